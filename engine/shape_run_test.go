//go:build linux

package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A bssplit run issues the sizes in their shares: the mean IO size of
// 4k/75:64k/25 is 19k.
func TestABSSplitRunIssuesTheSizesInTheirShares(t *testing.T) {
	jobs, opts, err := ParseArgs([]string{"--directory=" + t.TempDir(), "--name=split", "--ioengine=psync", "--rw=randwrite",
		"--size=4m", "--io_size=64m", "--bssplit=4k/75:64k/25"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	w := doc.Jobs[0].Write
	mean := float64(w.IOBytes) / float64(w.TotalIOs)
	if want := 0.75*4096 + 0.25*65536; mean < 0.93*want || mean > 1.07*want {
		t.Errorf("mean IO size %.0f over %d IOs, want about %.0f", mean, w.TotalIOs, want)
	}
}

// exitall, set on any job, makes the end of any job stop the other jobs of
// its reporting group, as fio's does; a job of another reporting group
// (new_group) keeps running.
func TestExitallStopsTheOtherJobsOfTheReportingGroup(t *testing.T) {
	jobs, opts, err := ParseArgs([]string{"--directory=" + t.TempDir(), "--ioengine=psync", "--rw=write",
		"--name=short", "--size=64k",
		"--name=long", "--size=1m", "--time_based", "--runtime=30s", "--exitall",
		"--name=apart", "--size=1m", "--time_based", "--runtime=1s", "--new_group"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatalf("stopping the other jobs is no failure: %v", err)
	}
	if n := doc.Jobs[0].Write.TotalIOs; n != 16 {
		t.Errorf("the short job did %d IOs, want 16", n)
	}
	if ms := doc.Jobs[1].JobRuntime; ms > 10_000 {
		t.Errorf("the 30 s job ran %d ms: the short job's end did not stop it", ms)
	}
	if ms := doc.Jobs[2].JobRuntime; ms < 900 {
		t.Errorf("the job of another reporting group ran %d ms, want its whole second", ms)
	}
}

func TestAllowFileCreateOffRefusesAMissingFile(t *testing.T) {
	jobs, opts, err := ParseArgs([]string{"--directory=" + t.TempDir(), "--name=a", "--size=64k", "--allow_file_create=0"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), jobs, opts)
	if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "allow_file_create=0 forbids creating it") {
		t.Fatalf("error %v, want allow_file_create named", err)
	}
}
