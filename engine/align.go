//go:build linux

package engine

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ioctlPtr is an ioctl with a pointer argument.
func ioctlPtr[T any](fd int, req uint, arg *T) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(arg)))
	if errno != 0 {
		return errno
	}
	return nil
}

// statx is the seam tests use to simulate a file system that reports no
// direct-IO alignment.
var statx = unix.Statx

// dioAlignment returns the alignment O_DIRECT needs for offsets and sizes on
// path: statx's STATX_DIOALIGN where the kernel and filesystem report it,
// else the logical block size of a block device (BLKSSZGET), else 512. It
// returns an error when the filesystem reports that it cannot do O_DIRECT
// on the file at all.
func dioAlignment(path string, device bool) (int64, error) {
	var stx unix.Statx_t
	err := statx(unix.AT_FDCWD, path, 0, unix.STATX_DIOALIGN, &stx)
	if err == nil && stx.Mask&unix.STATX_DIOALIGN != 0 {
		if stx.Dio_offset_align == 0 {
			return 0, directUnsupported(path, errNoDIOAlignment)
		}
		return int64(stx.Dio_offset_align), nil
	}
	if device {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			defer unix.Close(fd)
			var ssz int32
			if err := ioctlPtr(fd, unix.BLKSSZGET, &ssz); err == nil && ssz > 0 {
				return int64(ssz), nil
			}
		}
	}
	return 512, nil
}

// checkAlignment verifies that the job's block sizes, offsets and random
// offset alignment are multiples of align, naming the option that is not.
func (j *JobSpec) checkAlignment(path string, align int64) error {
	check := func(opt string, v int64) error {
		if v%align != 0 {
			return fmt.Errorf("job %q: --%s=%d is not a multiple of %d, the O_DIRECT alignment of %s", j.Name, opt, v, align, path)
		}
		return nil
	}
	if err := check("bs", j.BSMin); err != nil {
		return err
	}
	if j.BSMax != j.BSMin {
		if err := check("bsrange", j.BSMax); err != nil {
			return err
		}
		if j.sizeStep()%align != 0 {
			return fmt.Errorf("job %q: --bsrange draws sizes in steps of %d, which are not multiples of %d, the O_DIRECT alignment of %s (a minimum that is not a power of two steps by 1 byte)", j.Name, j.sizeStep(), align, path)
		}
	}
	for _, sh := range j.BSSplit {
		if err := check("bssplit", sh.Size); err != nil {
			return err
		}
	}
	if err := check("blockalign", j.offsetAlign()); err != nil {
		return err
	}
	if err := check("offset_increment", j.OffsetIncrement); err != nil {
		return err
	}
	return check("offset", j.Offset)
}

// sizeStep is the granularity of IO sizes drawn from a bsrange: BSStep when
// set, else multiples of the minimum when it is a power of two (fio's rule),
// else any size.
func (j *JobSpec) sizeStep() int64 {
	if j.BSStep > 0 {
		return j.BSStep
	}
	if j.BSMin&(j.BSMin-1) == 0 {
		return j.BSMin
	}
	return 1
}

// offsetAlign is the alignment of random offsets: blockalign, else the
// minimum block size.
func (j *JobSpec) offsetAlign() int64 {
	if j.BlockAlign > 0 {
		return j.BlockAlign
	}
	return j.BSMin
}
