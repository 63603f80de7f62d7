//go:build linux

package engine

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// chunkAlign is what layout writes start and end on: 4 KiB (O_DIRECT on
// any device), and for a verified layout whole intervals too, so that each
// header lands where the cells' reads look for it.
func (t *target) chunkAlign() int64 {
	if t.verify == nil || t.verify.interval <= 0 {
		return 4096
	}
	a, b := int64(4096), int64(t.verify.interval)
	for b != 0 {
		a, b = b, a%b
	}
	return 4096 / a * int64(t.verify.interval)
}

// laidOutVerified reports whether the data set's first and last whole
// intervals carry valid headers: one laid out by an earlier run of the
// same data set (ifmissing) is then reused.
func (t *target) laidOutVerified() (bool, error) {
	fd, err := unix.Open(t.path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, fmt.Errorf("%s: %w", t.path, err)
	}
	defer unix.Close(fd)
	step := int64(t.verify.interval)
	buf := make([]byte, step)
	first := t.start - t.start%step
	for _, off := range []int64{first, max(first, (t.end-step)/step*step)} {
		if n, err := unix.Pread(fd, buf, off); err != nil || int64(n) < step {
			return false, nil
		}
		if t.verify.check(buf, off, 0, false) != nil {
			return false, nil
		}
	}
	return true, nil
}
