package engine

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestBSSplitReadsFiosForm(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []BlockSizeShare
	}{
		{"4k/40:64k/60", []BlockSizeShare{{4096, 40}, {65536, 60}}},
		// Blank shares split what is left, rounded down.
		{"4k/50:8k/:16k", []BlockSizeShare{{8192, 25}, {16384, 25}, {4096, 50}}},
		{"4k/:8k/:16k/", []BlockSizeShare{{4096, 33}, {8192, 33}, {16384, 33}}},
		{"1m", []BlockSizeShare{{1 << 20, 100}}},
		// Shares that do not add up to 100 are taken as they are, ordered by
		// share, smallest first, as fio orders them.
		{"4k/60:64k/30", []BlockSizeShare{{65536, 30}, {4096, 60}}},
		{"4k/60:64k/50", []BlockSizeShare{{65536, 50}, {4096, 60}}},
		{"4k/150:8k/", []BlockSizeShare{{8192, 0}, {4096, 100}}},
	} {
		got, err := parseBSSplit(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("bssplit=%s: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for in, want := range map[string]string{
		"4k/x":                 `share "x" of "4k" is not a percentage`,
		"4q/100":               "block size",
		"4k/50,8k/100":         "per-direction values",
		"0/100":                "must be positive",
		"4k/60:8k/50:16k/:32k": "more than 100%",
	} {
		if _, err := parseBSSplit(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bssplit=%s: error %v, want one containing %q", in, err, want)
		}
	}
}

func TestRateIsABandwidthCapForOneBlockSize(t *testing.T) {
	jobs, _, err := ParseArgs([]string{"--name=a", "--size=1m", "--rate=1m", "--bs=4k"})
	if err != nil || jobs[0].RateIOPS != 256 {
		t.Fatalf("rate=1m bs=4k: rate_iops %d, %v; want 256", jobs[0].RateIOPS, err)
	}
	for args, want := range map[string]string{
		"--name=a --size=1m --rate=1m --rate_iops=10":        "rate and rate_iops: give one",
		"--name=a --size=1m --rate=1m --bsrange=4k-8k":       "needs one block size",
		"--name=a --size=1m --rate=1m --bssplit=4k/50:8k/50": "needs one block size",
		"--name=a --size=1m --rate=1m,2m,3m,4m":              "has 4 rates",
		"--name=a --size=1m --percentage_random=120":         "not a percentage",
	} {
		_, _, err := ParseArgs(strings.Fields(args))
		if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want a usage error containing %q", args, err, want)
		}
	}
}

func TestSizeSplitDrawsByTheShares(t *testing.T) {
	s := newSizeSplit([]BlockSizeShare{{4096, 70}, {8192, 0}, {65536, 30}})
	r := newRNG(1)
	counts := map[int64]int{}
	for range 100000 {
		counts[s.draw(&r)]++
	}
	if counts[8192] != 0 || counts[4096] < 69000 || counts[4096] > 71000 || counts[65536] < 29000 || counts[65536] > 31000 {
		t.Errorf("sizes drawn %v, want about 70%% 4k, 30%% 64k, no 8k", counts)
	}
}

// Shares under 100 leave the rest to the last entry, the largest share:
// fio's 4k/10:64k/50 issues 4k 10 % of the time and 64k 90 %.
func TestBSSplitLeavesTheRestToTheLargestShare(t *testing.T) {
	shares, err := parseBSSplit("4k/10:64k/50")
	if err != nil {
		t.Fatal(err)
	}
	s := newSizeSplit(shares)
	r := newRNG(5)
	small := 0
	for range 100000 {
		if s.draw(&r) == 4096 {
			small++
		}
	}
	if small < 9000 || small > 11000 {
		t.Errorf("4k drawn %d times in 100000, want about 10000", small)
	}
}

// bssplit sets the block sizes whatever comes after it, as in fio.
func TestBSSplitWinsOverALaterBs(t *testing.T) {
	jobs, _, err := ParseArgs([]string{"--bssplit=4k/50:64k/50", "--name=a", "--size=1m", "--bs=4k"})
	if err != nil {
		t.Fatal(err)
	}
	if j := jobs[0]; j.BSMin != 4096 || j.BSMax != 65536 {
		t.Errorf("block sizes %d..%d, want bssplit's 4096..65536", j.BSMin, j.BSMax)
	}
	if _, _, err := ParseArgs([]string{"--name=a", "--size=1m", "--bs=0", "--rate=1m"}); err == nil || !strings.Contains(err.Error(), "block size must be positive") {
		t.Errorf("bs=0 with rate: error %v, want the block size named", err)
	}
}
