//go:build linux

package engine

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// psyncBackend runs one IO at a time with pread/pwrite, as fio's psync
// engine does: the IO happens inside wait.
type psyncBackend struct {
	fds     []int
	pending bool
	op      uint8
	file    int
	buf     []byte
	off     int64
	slot    int
}

func (b *psyncBackend) prep(op uint8, file int, buf []byte, off int64, slot int) {
	b.pending, b.op, b.file, b.buf, b.off, b.slot = true, op, file, buf, off, slot
}
func (b *psyncBackend) prepRead(file int, buf []byte, off int64, slot int) {
	b.prep(opRead, file, buf, off, slot)
}
func (b *psyncBackend) prepWrite(file int, buf []byte, off int64, slot int) {
	b.prep(opWrite, file, buf, off, slot)
}
func (b *psyncBackend) prepSync(file int, datasync bool, slot int) {
	op := opFsync
	if datasync {
		op = opFdatasync
	}
	b.prep(op, file, nil, 0, slot)
}
func (b *psyncBackend) submit() error { return nil }
func (b *psyncBackend) wait(minComplete int, timeout time.Duration, out []completion) ([]completion, error) {
	if !b.pending {
		if minComplete > 0 && timeout > 0 {
			ts := unix.NsecToTimespec(int64(timeout))
			_ = unix.Nanosleep(&ts, nil) // EINTR just wakes us early
		}
		return out, nil
	}
	b.pending = false
	var n int
	var err error
	fd := b.fds[b.file]
	for {
		switch b.op {
		case opRead:
			n, err = unix.Pread(fd, b.buf, b.off)
		case opWrite:
			n, err = unix.Pwrite(fd, b.buf, b.off)
		case opFdatasync:
			err = unix.Fdatasync(fd)
		default:
			err = unix.Fsync(fd)
		}
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	res := int32(n)
	var errno unix.Errno
	if errors.As(err, &errno) {
		res = -int32(errno)
	} else if err != nil {
		return out, err
	}
	return append(out, completion{slot: int32(b.slot), res: res}), nil
}
func (b *psyncBackend) close() {}
