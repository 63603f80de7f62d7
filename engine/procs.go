package engine

import (
	"runtime"
	"sync"
)

// procs gives every worker thread of every run in flight its own P. Runs may
// overlap in one process (concurrent cells of a slot, several clients of the
// local runner), so the worker count is summed over them, and GOMAXPROCS
// goes back to what it was only when the last run ends.
var procs struct {
	sync.Mutex
	workers  int
	baseline int
}

// reserveProcs accounts for n more worker threads and returns the release.
func reserveProcs(n int) (release func()) {
	procs.Lock()
	defer procs.Unlock()
	if procs.workers == 0 {
		procs.baseline = runtime.GOMAXPROCS(0)
	}
	procs.workers += n
	setProcsLocked()
	return func() {
		procs.Lock()
		defer procs.Unlock()
		procs.workers -= n
		setProcsLocked()
	}
}

func setProcsLocked() {
	want := procs.baseline
	if procs.workers > 0 {
		want = max(want, procs.workers+1)
	}
	if runtime.GOMAXPROCS(0) != want {
		runtime.GOMAXPROCS(want)
	}
}
