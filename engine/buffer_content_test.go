//go:build linux

package engine

import (
	"bytes"
	"compress/flate"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// blockCounts writes a 4 MiB file sequentially with the given options and
// returns how many times each distinct 4 KiB block occurs, and the file.
func blockCounts(t *testing.T, args ...string) (map[string]int, []byte) {
	t.Helper()
	dir := t.TempDir()
	mustRun(t, append([]string{"--name=c", "--directory=" + dir, "--size=4m", "--bs=4k", "--rw=write", "--iodepth=4"}, args...)...)
	data, err := os.ReadFile(filepath.Join(dir, "c.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for off := 0; off+4096 <= len(data); off += 4096 {
		counts[string(data[off:off+4096])]++
	}
	return counts, data
}

func TestCompressPercentageMakesWritesCompressThatMuch(t *testing.T) {
	for _, pct := range []int{0, 60, 90} {
		_, data := blockCounts(t, "--buffer_compress_percentage="+strconv.Itoa(pct))
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, flate.BestSpeed)
		w.Write(data)
		w.Close()
		ratio := float64(out.Len()) / float64(len(data))
		want := float64(100-pct) / 100
		// flate's framing adds a little; random bytes do not shrink.
		if ratio < want-0.02 || ratio > want+0.05 {
			t.Errorf("buffer_compress_percentage=%d: the file compresses to %.3f of its size, want about %.2f", pct, ratio, want)
		}
	}
}

func TestDedupePercentageRepeatsThatShareOfWrites(t *testing.T) {
	counts, _ := blockCounts(t, "--dedupe_percentage=50")
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	// 1024 writes: about 512 repeat one block, the rest are unique.
	if most < 430 || most > 600 || len(counts) < 430 {
		t.Fatalf("the most repeated block occurs %d times in %d distinct blocks, want about 512 repeats of one block and the rest unique", most, len(counts))
	}
	if counts, _ := blockCounts(t); len(counts) != 1024 {
		t.Fatalf("by default %d of 1024 blocks are distinct, want all", len(counts))
	}
	if counts, _ := blockCounts(t, "--scramble_buffers=0"); len(counts) > 4 {
		t.Fatalf("scramble_buffers=0 wrote %d distinct blocks, want at most one per IO buffer (4)", len(counts))
	}
	if counts, _ := blockCounts(t, "--refill_buffers", "--scramble_buffers=0"); len(counts) != 1024 {
		t.Fatalf("refill_buffers wrote %d distinct blocks of 1024", len(counts))
	}
}

func TestBufferOptionsRefuseWhatTheyCannotMean(t *testing.T) {
	for args, want := range map[string][]string{
		"zero_buffers": {"--zero_buffers", "--dedupe_percentage=10"},
		"verify: not with buffer_compress_percentage": {"--verify=md5", "--buffer_compress_percentage=50"},
		`"working_set" is not implemented`:            {"--dedupe_mode=working_set"},
	} {
		_, _, err := ParseArgs(append([]string{"--name=b", "--size=1m"}, want...))
		if err == nil || !strings.Contains(err.Error(), args) {
			t.Errorf("%v: got %v, want %q", want, err, args)
		}
	}
}
