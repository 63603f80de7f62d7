package engine

import "sync"

// backendChoice is the outcome of choosing a backend for a run.
type backendChoice struct {
	name   string
	reason string
}

// probeCache remembers the auto choice: the kernel's answer does not
// change within a process.
var probeCache struct {
	sync.Mutex
	done   bool
	choice backendChoice
}

// probeFunc is the seam tests use to simulate a kernel that refuses
// io_uring and libaio.
var probeFunc = probe

// chooseBackend resolves --ioengine. auto tries io_uring, then libaio, then
// psync, recording every refusal (seccomp's EPERM, old kernels' ENOSYS or
// EINVAL) in the reason instead of failing the run.
func chooseBackend(requested string) backendChoice {
	if requested != EngineAuto {
		return backendChoice{name: requested, reason: "requested with --ioengine=" + requested}
	}
	probeCache.Lock()
	defer probeCache.Unlock()
	if !probeCache.done {
		probeCache.choice, probeCache.done = probeFunc(), true
	}
	return probeCache.choice
}
