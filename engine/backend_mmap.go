//go:build linux

package engine

import (
	"fmt"
	"runtime/debug"
	"time"

	"golang.org/x/sys/unix"
)

// mmapBackend is fio's mmap engine: each file is mapped shared, a read
// copies from the mapping into the IO buffer and a write into the mapping
// (the page faults and the kernel's writeback are what it measures), an
// fsync is msync(MS_SYNC) of the mapping. One IO at a time, in wait, as
// fio's synchronous engines.
type mmapBackend struct {
	syncQueue
	maps [][]byte
}

// newMmapBackend maps each file from its start to its end (the file's
// size, or a device's). A mapping of a file that is later truncated would
// fault on access: the worker's goroutine turns such faults into errors
// (debug.SetPanicOnFault) instead of a crash.
func newMmapBackend(fds []int) (*mmapBackend, error) {
	b := &mmapBackend{}
	for _, fd := range fds {
		// A read job's files are opened read-only: so are their maps.
		prot := unix.PROT_READ | unix.PROT_WRITE
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil && fl&unix.O_ACCMODE == unix.O_RDONLY {
			prot = unix.PROT_READ
		}
		size, err := fdSize(fd)
		if err != nil {
			b.close()
			return nil, err
		}
		m, err := unix.Mmap(fd, 0, int(size), prot, unix.MAP_SHARED)
		if err != nil {
			b.close()
			return nil, fmt.Errorf("mapping %d bytes: %w", size, err)
		}
		b.maps = append(b.maps, m)
	}
	debug.SetPanicOnFault(true)
	return b, nil
}

// fdSize is a regular file's size or a block device's.
func fdSize(fd int) (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFBLK {
		size, err := unix.IoctlGetUint64(fd, unix.BLKGETSIZE64)
		return int64(size), err
	}
	return st.Size, nil
}

func (b *mmapBackend) wait(minComplete, _ int, timeout time.Duration, out []completion) ([]completion, error) {
	return b.waitWith(minComplete, timeout, out, func() (int32, error) { return b.do(), nil })
}

// do runs the pending IO: bytes moved, or -errno (EIO for a fault, as a
// mapping past a truncated file's end gives SIGBUS).
func (b *mmapBackend) do() (res int32) {
	defer func() {
		if recover() != nil {
			res = -int32(unix.EIO)
		}
	}()
	m := b.maps[b.file]
	switch {
	case b.op == opFsync || b.op == opFdatasync:
		if err := unix.Msync(m, unix.MS_SYNC); err != nil {
			return -int32(err.(unix.Errno))
		}
		return 0
	case b.off >= int64(len(m)):
		return 0
	case b.op == opRead:
		return int32(copy(b.buf, m[b.off:]))
	default:
		return int32(copy(m[b.off:], b.buf))
	}
}

func (b *mmapBackend) close() {
	for _, m := range b.maps {
		_ = unix.Munmap(m)
	}
	b.maps = nil
}
