//go:build linux

package engine

import (
	"errors"

	"golang.org/x/sys/unix"
)

// openDataFile opens one of a job's files for its IO. A block device is
// opened O_NOATIME, as fio opens every file that is not a regular one:
// otherwise each read passes the device node's access-time check
// (touch_atime, atime_needs_update), about 90 ns per IO in a profile of 4
// KiB reads at QD1 on a zram device, where the device is faster than the
// CPU and that is 1 % of the rate. Only the node's owner (or a process
// with CAP_FOWNER) may ask for it, so EPERM opens it again without, as fio
// does: a non-root client pod on a raw block volume gets EPERM.
func openDataFile(f fileSpec, flags int, perm uint32) (int, error) {
	if f.device {
		fd, err := openFile(f.path, flags|unix.O_NOATIME, perm)
		if !errors.Is(err, unix.EPERM) {
			return fd, err
		}
	}
	return openFile(f.path, flags, perm)
}
