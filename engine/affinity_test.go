//go:build linux

package engine

import (
	"context"
	"errors"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPlacementSharesOrSplitsTheUsableCPUs(t *testing.T) {
	jobs := []JobSpec{
		{Name: "anywhere"},
		{Name: "shared", CPUsAllowed: []int{2, 3, 4}},
		{Name: "split", CPUsAllowed: []int{0, 1, 2, 3}, CPUsAllowedPolicy: CPUsSplit},
	}
	even := func(c int) bool { return c%2 == 0 } // the process may use 0, 2, 4, ...
	p, err := placeJobs(jobs, even)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.cpusFor(0, 0, 0, 1); got != nil {
		t.Errorf("a job without cpus_allowed got CPUs %v, want none (anywhere)", got)
	}
	if got := p.cpusFor(1, 5, 0, 1); !reflect.DeepEqual(got, []int{2, 4}) {
		t.Errorf("shared: CPUs %v, want the usable 2 and 4", got)
	}
	// split: one usable CPU (0 or 2) per thread, round robin over clones
	// and their lanes.
	var got []int
	for clone := 0; clone < 2; clone++ {
		for lane := 0; lane < 3; lane++ {
			got = append(got, p.cpusFor(2, clone, lane, 3)...)
		}
	}
	if want := []int{0, 2, 0, 2, 0, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("split: threads on CPUs %v, want %v", got, want)
	}
}

func TestPlacementRefusesAJobWithNoUsableCPU(t *testing.T) {
	jobs := []JobSpec{{Name: "ok", CPUsAllowed: []int{0}}, {Name: "far", CPUsAllowed: seq(100, 163)}}
	_, err := placeJobs(jobs, func(c int) bool { return c < 2 })
	if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `job "far": cpus_allowed: none of CPUs 100-163 is one this process may use`) {
		t.Fatalf("error %v, want a usage error naming the job and its CPUs", err)
	}
}

// processCPUs lists the CPUs this process may use.
func processCPUs(t *testing.T) []int {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	var cpus []int
	for c := 0; c < maxCPU; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

func TestPinThreadRestrictsTheCallingThread(t *testing.T) {
	first := processCPUs(t)[0]
	got := make(chan unix.CPUSet, 1)
	errs := make(chan error, 1)
	go func() {
		// Locked and never unlocked: the pinned thread ends with the
		// goroutine instead of going back to the runtime's pool.
		runtime.LockOSThread()
		var after unix.CPUSet
		err := pinThread([]int{first})
		if err == nil {
			err = unix.SchedGetaffinity(0, &after)
		}
		errs <- err
		got <- after
	}()
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if after := <-got; after.Count() != 1 || !after.IsSet(first) {
		t.Fatalf("thread may run on %d CPUs after pinning to CPU %d", after.Count(), first)
	}
}

func TestRunWithCPUsAllowed(t *testing.T) {
	usable := processCPUs(t)
	doc := mustRun(t, "--name=pinned", "--directory="+t.TempDir(), "--size=256k", "--rw=randread", "--bs=4k",
		"--numjobs=2", "--cpus_allowed="+formatCPUList(usable), "--cpus_allowed_policy=split")
	if len(doc.Jobs) != 2 || doc.Jobs[0].Read.TotalIOs != 64 || doc.Jobs[1].Read.TotalIOs != 64 {
		t.Fatalf("pinned run: %d jobs, want 2 reading 64 blocks each", len(doc.Jobs))
	}
	// Each of the job's threads got one of the CPUs, in turn.
	jobs, _ := job(t, "--name=pinned", "--directory="+t.TempDir(), "--size=256k", "--numjobs=3",
		"--cpus_allowed="+formatCPUList(usable), "--cpus_allowed_policy=split")
	for i, w := range plannedWorkers(t, jobs)[0].workers {
		if want := []int{usable[i%len(usable)]}; !reflect.DeepEqual(w.cpus, want) {
			t.Errorf("thread %d placed on %v, want %v", i, w.cpus, want)
		}
	}

	if slices.Contains(usable, 1023) {
		t.Skip("this process may use CPU 1023")
	}
	dir := t.TempDir()
	jobs, opts := job(t, "--name=nowhere", "--directory="+dir, "--size=1m", "--cpus_allowed=1023")
	_, err := Run(context.Background(), jobs, opts)
	if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `job "nowhere": cpus_allowed: none of CPUs 1023`) {
		t.Fatalf("error %v, want the cpus_allowed usage error", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused run laid out %d file(s)", len(entries))
	}
}
