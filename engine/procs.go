package engine

import (
	"runtime"
	"sync"
)

// procs gives every worker thread of every run in flight its own P and keeps
// them all within MaxWorkerThreads. Runs may overlap in one process
// (concurrent cells of a slot, several clients of the local runner), so the
// worker count is summed over them, and GOMAXPROCS goes back to what it was
// only when the last run ends.
var procs struct {
	sync.Mutex
	workers  int
	baseline int
	quota    float64 // the cgroup's CPU limit when the first run started (cpuQuota)
}

// gomaxprocs is runtime.GOMAXPROCS; tests of the thread budget replace it
// so as not to raise the real one to thousands.
var gomaxprocs = runtimeGOMAXPROCS

// runtimeGOMAXPROCS is the real one, for restoring the seam.
var runtimeGOMAXPROCS = runtime.GOMAXPROCS

// reserveProcs accounts for n more worker threads and returns the release.
// It refuses (an error wrapping ErrUsage, naming detail, the jobs' account
// from WorkerThreads) when the runs in flight would exceed
// MaxWorkerThreads, before anything of the run has started.
func reserveProcs(n int, detail string) (release func(), err error) {
	procs.Lock()
	defer procs.Unlock()
	if err := checkThreadBudget(n, detail, procs.workers); err != nil {
		return nil, err
	}
	if procs.workers == 0 {
		procs.baseline = gomaxprocs(0)
		procs.quota = cpuQuota()
	}
	procs.workers += n
	setProcsLocked()
	return func() {
		procs.Lock()
		defer procs.Unlock()
		procs.workers -= n
		setProcsLocked()
	}, nil
}

func setProcsLocked() {
	want := procs.baseline
	if procs.workers > 0 {
		want = max(want, procs.workers+1)
	}
	if gomaxprocs(0) != want {
		gomaxprocs(want)
	}
}

// workersInFlight is the worker threads of every run in flight and the CPUs
// the process may keep busy: GOMAXPROCS as it was before the runs raised it
// (which the Go runtime sets from the CPU affinity and the cgroup's CPU
// limit, rounded up), or the limit in whole CPUs where that is lower.
func workersInFlight() (workers, cpus int) {
	procs.Lock()
	defer procs.Unlock()
	return procs.workers, cpusForWorkers(procs.baseline, procs.quota)
}
