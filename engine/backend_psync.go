//go:build linux

package engine

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// syncQueue is the one IO a synchronous backend (psync, mmap) holds: it is
// prepared, then done inside wait, as fio's synchronous engines do.
type syncQueue struct {
	pending bool
	op      uint8
	file    int
	buf     []byte
	off     int64
	slot    int
}

func (q *syncQueue) prep(op uint8, file int, buf []byte, off int64, slot int) {
	q.pending, q.op, q.file, q.buf, q.off, q.slot = true, op, file, buf, off, slot
}
func (q *syncQueue) prepRead(file int, buf []byte, off int64, slot int) {
	q.prep(opRead, file, buf, off, slot)
}
func (q *syncQueue) prepWrite(file int, buf []byte, off int64, slot int) {
	q.prep(opWrite, file, buf, off, slot)
}
func (q *syncQueue) prepSync(file int, datasync bool, slot int) {
	op := opFsync
	if datasync {
		op = opFdatasync
	}
	q.prep(op, file, nil, 0, slot)
}
func (q *syncQueue) submit() error { return nil }

// waitWith does the pending IO with do (its result: bytes, or -errno), or
// with none pending sleeps for the timeout (a paced worker's wait).
func (q *syncQueue) waitWith(minComplete int, timeout time.Duration, out []completion, do func() (int32, error)) ([]completion, error) {
	if !q.pending {
		if minComplete > 0 && timeout > 0 {
			ts := unix.NsecToTimespec(int64(timeout))
			_ = unix.Nanosleep(&ts, nil) // EINTR just wakes us early
		}
		return out, nil
	}
	q.pending = false
	res, err := do()
	if err != nil {
		return out, err
	}
	return append(out, completion{slot: int32(q.slot), res: res}), nil
}

// psyncBackend runs one IO at a time with pread/pwrite, as fio's psync
// engine does: the IO happens inside wait.
type psyncBackend struct {
	syncQueue
	fds []int
}

func (b *psyncBackend) wait(minComplete, _ int, timeout time.Duration, out []completion) ([]completion, error) {
	return b.waitWith(minComplete, timeout, out, b.do)
}

func (b *psyncBackend) do() (int32, error) {
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
	// The system calls return a bare Errno. A type assertion, not
	// errors.As: As's target escapes, which cost an allocation per IO
	// (seen in perf as mallocgc under do, and the GC it feeds).
	if errno, ok := err.(unix.Errno); ok {
		return -int32(errno), nil
	}
	return int32(n), err
}

func (b *psyncBackend) close() {}
