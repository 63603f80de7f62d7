package engine

import (
	"strings"
	"testing"
)

func TestAStampedBlockChecksAndEachKindOfDamageIsNamed(t *testing.T) {
	for _, sum := range verifySumNames() {
		c := newBlockChecker(sum, 0)
		fresh := func() []byte {
			b := make([]byte, 4096)
			r := newRNG(7)
			r.fill(b)
			c.stamp(b, 8192, 42)
			return b
		}
		if p := c.check(fresh(), 8192, 42, true); p != nil {
			t.Fatalf("%s: an intact block failed: %s", sum, p.what)
		}
		cases := []struct {
			name    string
			damage  func(b []byte) []byte
			off     int64
			gen     uint64
			want    string
			withSum bool
		}{
			{"data", func(b []byte) []byte { b[4000] ^= 1; return b }, 8192, 42, "corrupted", true},
			{"header", func(b []byte) []byte { b[20] ^= 1; return b }, 8192, 42, "header is corrupt", true},
			{"never written", func(b []byte) []byte { clear(b); return b }, 8192, 42, "no verify header", false},
			{"misplaced", func(b []byte) []byte { return b }, 12288, 42, "header says offset 8192: a misplaced write", false},
			{"lost", func(b []byte) []byte { return b }, 8192, 43, "older write", false},
			{"short", func(b []byte) []byte { return b[:2048] }, 8192, 42, "header says a block of 4096 bytes, read 2048", false},
		}
		for _, tc := range cases {
			p := c.check(tc.damage(fresh()), tc.off, tc.gen, true)
			if p == nil || !strings.Contains(p.what, tc.want) {
				t.Fatalf("%s, %s: got %+v, want a problem saying %q", sum, tc.name, p, tc.want)
			}
			if tc.withSum && (p.expected == "" || p.found == "" || p.expected == p.found) {
				t.Fatalf("%s, %s: expected %q and found %q should both be given and differ", sum, tc.name, p.expected, p.found)
			}
		}
		// Without wantGen (a read job, verify_only) an older write is
		// a good block: its header and data agree.
		if p := c.check(fresh(), 8192, 43, false); p != nil {
			t.Fatalf("%s: the generation was checked without wantGen: %s", sum, p.what)
		}
	}
}

func TestAnotherChecksumsBlockIsNamedAsSuch(t *testing.T) {
	b := make([]byte, 512)
	newBlockChecker("md5", 0).stamp(b, 0, 1)
	p := newBlockChecker("crc32c", 0).check(b, 0, 1, true)
	if p == nil || !strings.Contains(p.what, "checksum code 2") {
		t.Fatalf("got %+v, want the md5 block named as written with another checksum", p)
	}
}

func TestPermutationVisitsEveryBlockOnce(t *testing.T) {
	for _, n := range []uint64{2, 3, 7, 64, 1000, 4097} {
		p := newPermutation(n, n*31)
		seen := make([]bool, n)
		inOrder := true
		for i := uint64(0); i < n; i++ {
			x := p.at(i)
			if x >= n || seen[x] {
				t.Fatalf("n=%d: value %d out of range or seen twice", n, x)
			}
			seen[x] = true
			inOrder = inOrder && x == i
		}
		if inOrder && n > 3 {
			t.Fatalf("n=%d: the permutation is the identity", n)
		}
	}
}

func TestLanesWalkDisjointBlocksThatCoverTheRegion(t *testing.T) {
	const bs, length, lanes = 4096, 4096*101 + 100, 3
	seen := map[int64]int{}
	for lane := 0; lane < lanes; lane++ {
		w := newBlockWalk(1<<20, length, bs, lane, lanes, true, false, 5)
		for {
			off, ok := w.take(true)
			if !ok {
				break
			}
			if off < 1<<20 || off+bs > 1<<20+length || (off-1<<20)%bs != 0 {
				t.Fatalf("lane %d: offset %d is not a whole block of the region", lane, off)
			}
			seen[off]++
		}
	}
	if len(seen) != 101 {
		t.Fatalf("%d blocks visited, want the region's 101", len(seen))
	}
	for off, n := range seen {
		if n != 1 {
			t.Fatalf("block at %d visited %d times", off, n)
		}
	}
}

func TestAMixedWalkReadsBackOnlyItsWrites(t *testing.T) {
	w := newBlockWalk(0, 10*512, 512, 0, 1, false, true, 0)
	var wrote []int64
	for i := 0; ; i++ {
		off, ok := w.take(i%3 == 0)
		if !ok {
			break
		}
		if i%3 == 0 {
			wrote = append(wrote, off)
		}
	}
	var checked []int64
	for {
		off, ok := w.nextToCheck()
		if !ok {
			break
		}
		checked = append(checked, off)
	}
	if len(checked) != len(wrote) || w.unchecked() {
		t.Fatalf("read back %v, want the writes %v", checked, wrote)
	}
	for i := range wrote {
		if checked[i] != wrote[i] {
			t.Fatalf("read back %v, want the writes %v", checked, wrote)
		}
	}
}

func TestVerifyOptionsRefuseWhatTheyCannotMean(t *testing.T) {
	base := []string{"--name=v", "--size=1m", "--filename=/x"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--verify=crc16"}, `"crc16" is not implemented here`},
		{[]string{"--verify=pattern"}, `"pattern" is not implemented`},
		{[]string{"--verify=adler"}, `"adler" is not a checksum`},
		{[]string{"--verify_only"}, "need verify="},
		{[]string{"--verify=md5", "--bsrange=4k-8k"}, "needs one block size"},
		{[]string{"--verify=sha512", "--bs=64"}, "less than its 96-byte header"},
		{[]string{"--verify=md5", "--rw=randwrite", "--random_distribution=zipf:1.2"}, "not with random_distribution zipf"},
		{[]string{"--verify=md5", "--rw=randwrite", "--percentage_random=50"}, "percentage_random"},
		{[]string{"--verify=md5", "--rw=randrw", "--verify_only"}, "needs a write job"},
		{[]string{"--verify=md5", "--ioengine=null"}, "not with ioengine=null"},
		{[]string{"--verify=md5", "--blockalign=512"}, "blockalign 512 differs"},
	} {
		_, _, err := ParseArgs(append(append([]string{}, base...), tc.args...))
		if err == nil {
			jobs, _, _ := ParseArgs(append(append([]string{}, base...), tc.args...))
			for i := range jobs {
				if err = jobs[i].resolve(); err == nil {
					err = jobs[i].validate()
				}
			}
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%v: got %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
}
