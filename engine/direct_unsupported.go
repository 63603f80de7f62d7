//go:build linux

package engine

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// openFile is unix.Open; tests replace it to simulate a file system that
// refuses O_DIRECT (tmpfs accepts it on current kernels, and no other is
// at hand in a unit test).
var openFile = unix.Open

// DirectIOUnsupportedError is a job with direct=1 on a file system that
// cannot do O_DIRECT (open gives EINVAL, or statx reports no direct-IO
// alignment). It matches ErrUsage, since only a change of the job helps,
// and the cause (unix.EINVAL when open refused).
type DirectIOUnsupportedError struct {
	// Path is the file, FSType its file system's name (or statfs magic).
	Path, FSType string
	// Cause is what refused: open's errno or statx's report.
	Cause error
}

func (e *DirectIOUnsupportedError) Error() string {
	return fmt.Sprintf("O_DIRECT is not supported on %s (file system %s: %v); run without it: direct=0 (engine option) or direct: false (StorageBenchmark workloads)",
		e.Path, e.FSType, e.Cause)
}

// Unwrap exposes ErrUsage and the cause to errors.Is.
func (e *DirectIOUnsupportedError) Unwrap() []error { return []error{ErrUsage, e.Cause} }

// directUnsupported describes the refusal of O_DIRECT on path.
func directUnsupported(path string, cause error) error {
	return &DirectIOUnsupportedError{Path: path, FSType: fsTypeName(path), Cause: cause}
}

// refusesDirect tells whether an open with O_DIRECT failed because of it:
// the kernel answers EINVAL when the file system has no direct IO.
func refusesDirect(flags int, err error) bool {
	return flags&unix.O_DIRECT != 0 && errors.Is(err, unix.EINVAL)
}

// errNoDIOAlignment is statx's way of saying a file cannot do O_DIRECT.
var errNoDIOAlignment = errors.New("statx reports no direct-IO alignment")
