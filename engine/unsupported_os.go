//go:build !linux

package engine

import (
	"context"
	"errors"
	"runtime"

	"github.com/storagebench/storagebench/engine/result"
)

// The engine's backends (io_uring, libaio, psync with O_DIRECT) and its
// layout and alignment checks are Linux system calls. Elsewhere the package
// still builds, so that option and job-file parsing, output and the thread
// budget can be used and tested, but running or preparing IO fails with
// this error.

// errNotLinux says why nothing can run here. It matches
// errors.ErrUnsupported.
type errNotLinux struct{}

func (errNotLinux) Error() string {
	return "storagebench's IO engine runs on Linux only (io_uring, libaio, pread/pwrite with O_DIRECT); this is " + runtime.GOOS
}

func (errNotLinux) Is(target error) bool { return target == errors.ErrUnsupported }

// Run fails: there is no backend on this system.
func Run(ctx context.Context, jobs []JobSpec, opts RunOptions) (*result.Document, error) {
	return nil, errNotLinux{}
}

// Prepare fails: layout and O_DIRECT checks need Linux.
func Prepare(ctx context.Context, jobs []JobSpec) error {
	return errNotLinux{}
}

// probe has nothing to probe; planning counts auto jobs as psync, the
// backend that needs the most threads, so that a plan checked here is not
// too optimistic for the Linux nodes that will run it.
func probe() backendChoice {
	return backendChoice{name: EnginePsync, reason: errNotLinux{}.Error()}
}

// memoryBytes is the machine's total memory: unknown here.
func memoryBytes() int64 { return 0 }
