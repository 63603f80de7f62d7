//go:build linux

package engine

import (
	"strings"
	"testing"
)

// Per-direction caps, as fio 3.33 keeps them (randrw, 3 s, this machine:
// rate_iops=100,400 gave 100 reads and 400 writes per second whatever
// rwmixread said; rate_iops=,400 left the reads unpaced).
func TestRatesPerDirectionCapEachDirection(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		reads, writes float64 // per second; 0: not capped, must run faster
	}{
		{[]string{"--rate_iops=100,400"}, 100, 400},
		{[]string{"--rate_iops=100,400", "--rwmixread=90"}, 100, 400},
		{[]string{"--rate=400k,1600k"}, 100, 400},
		{[]string{"--rate_iops=,400"}, 0, 400},
	} {
		doc := mustRun(t, append([]string{"--name=d", "--directory=" + t.TempDir(), "--size=16m", "--bs=4k", "--rw=randrw", "--time_based", "--runtime=2"}, tc.args...)...)
		j := doc.Jobs[0]
		for d, want := range map[string]float64{"reads": tc.reads, "writes": tc.writes} {
			got := j.Read.IOPS
			if d == "writes" {
				got = j.Write.IOPS
			}
			switch {
			case want == 0 && got < 4*tc.writes:
				t.Errorf("%v: %s at %.0f/s, want them unpaced (far above the other direction's %.0f)", tc.args, d, got, tc.writes)
			case want > 0 && (got < want*0.9 || got > want*1.1):
				t.Errorf("%v: %s at %.0f/s, want %.0f", tc.args, d, got, want)
			}
		}
	}
}

func TestRatesPerDirectionRefuseWhatTheyCannotMean(t *testing.T) {
	for args, want := range map[string][]string{
		"has 4 rates":                  {"--rate_iops=1,2,3,4"},
		"rate and rate_iops: give one": {"--rate=1m,2m", "--rate_iops=100"},
		"not with rate or rate_iops":   {"--rate_iops=,100", "--thinktime=1ms"},
		"one block size per direction": {"--rate=1m,2m", "--bsrange=4k-8k"},
	} {
		_, _, err := ParseArgs(append([]string{"--name=r", "--size=1m"}, want...))
		if err == nil || !strings.Contains(err.Error(), args) {
			t.Errorf("%v: got %v, want %q", want, err, args)
		}
	}
}

// fio options the engine does not implement are refused naming the option
// and why; those that change nothing it measures are accepted.
func TestFiosOtherOptionsAreRefusedWithTheirReasonOrAccepted(t *testing.T) {
	for _, o := range []string{"--iodepth_low=4", "--continue_on_error=all", "--kb_base=1000", "--write_hist_log=h"} {
		_, _, err := ParseArgs([]string{"--name=o", "--size=1m", o})
		if err == nil || !strings.Contains(err.Error(), "is not supported: ") {
			t.Errorf("%s: got %v, want it refused with the reason", o, err)
		}
	}
	if _, _, err := ParseArgs([]string{"--name=o", "--size=1m", "--verify_interva=4k"}); err == nil || !strings.Contains(err.Error(), "did you mean verify_interval?") {
		t.Errorf("a near miss: %v", err)
	}
	if _, _, err := ParseArgs([]string{"--name=o", "--size=1m", "--fallocate=posix", "--overwrite=1", "--lat_percentiles=1", "--clat_percentiles", "--disable_slat=1", "--userspace_reap"}); err != nil {
		t.Errorf("options that change nothing measured: %v", err)
	}
	// Accepted, but not with a value fio would refuse.
	for _, o := range []string{"--gtod_reduce=banana", "--userspace_reap=2", "--thread=maybe"} {
		_, _, err := ParseArgs([]string{"--name=o", "--size=1m", o})
		if err == nil || !strings.Contains(err.Error(), "is not a boolean") || !strings.Contains(err.Error(), o) {
			t.Errorf("%s: got %v, want it refused naming the value", o, err)
		}
	}
}
