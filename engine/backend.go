package engine

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/storagebench/storagebench/engine/aio"
	"github.com/storagebench/storagebench/engine/uring"
	"golang.org/x/sys/unix"
)

// completion is one finished IO: the slot it used and its result (bytes,
// or -errno).
type completion struct {
	slot int32
	res  int32
}

// backend is what a worker needs from an IO interface. A worker prepares
// IOs into slots and then, with one call, submits them and waits for
// completions, so each backend can use its cheapest system calls.
type backend interface {
	prepRead(file int, buf []byte, off int64, slot int)
	prepWrite(file int, buf []byte, off int64, slot int)
	prepFsync(file int, slot int)
	// submit hands the prepared IOs to the kernel (psync: nothing; its IO
	// happens in wait). It is separate from wait, as in fio, so that
	// submission latency (slat) and completion latency (clat) can be told
	// apart.
	submit() error
	// wait waits until at least minComplete IOs completed or timeout
	// passed (timeout <= 0: no limit), appending completions to out. With
	// nothing in flight and minComplete > 0 it sleeps for the timeout,
	// which is how a paced worker waits for its next due IO.
	wait(minComplete int, timeout time.Duration, out []completion) ([]completion, error)
	close()
}

// openBackend creates a backend of the given kind for depth IOs in flight
// on fds, with arena as the memory IOs use. It runs on the worker's locked
// thread (io_uring rings are created single-issuer).
func openBackend(kind string, depth int, fds []int, mem []byte) (backend, string, error) {
	switch kind {
	case EngineIOUring:
		r, err := uring.New(uring.Config{Entries: uint32(depth), Files: fds, Arena: mem})
		if err != nil {
			return nil, "", err
		}
		return &uringBackend{r: r, scratch: make([]uring.Completion, 0, 2*depth)}, r.Features(), nil
	case EngineLibaio:
		c, err := aio.New(depth, fds)
		if err != nil {
			return nil, "", err
		}
		return &aioBackend{c: c, scratch: make([]aio.Completion, 0, depth)}, "", nil
	case EnginePsync:
		return &psyncBackend{fds: fds}, "", nil
	}
	return nil, "", fmt.Errorf("unknown backend %q", kind)
}

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

// probeFunc and newBackend are the seams tests use to simulate a kernel that
// refuses io_uring and libaio, or a device that fails IOs.
var (
	probeFunc  = probe
	newBackend = openBackend
)

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

func probe() backendChoice {
	var tried []string
	done := make(chan error)
	// Probe on a locked thread, as the workers will run.
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r, err := uring.New(uring.Config{Entries: 2})
		if err == nil {
			r.Close()
		}
		done <- err
	}()
	if err := <-done; err == nil {
		return backendChoice{name: EngineIOUring, reason: "auto: io_uring available"}
	} else {
		tried = append(tried, "io_uring refused ("+err.Error()+")")
	}
	c, err := aio.New(1, nil)
	if err == nil {
		c.Close()
		return backendChoice{name: EngineLibaio, reason: "auto: " + strings.Join(tried, "; ") + "; libaio available"}
	}
	tried = append(tried, "libaio refused ("+err.Error()+")")
	return backendChoice{name: EnginePsync, reason: "auto: " + strings.Join(tried, "; ") + "; using psync"}
}

type uringBackend struct {
	r       *uring.Ring
	scratch []uring.Completion
}

func (b *uringBackend) prepRead(file int, buf []byte, off int64, slot int) {
	b.r.PrepRead(file, buf, off, uint64(slot))
}
func (b *uringBackend) prepWrite(file int, buf []byte, off int64, slot int) {
	b.r.PrepWrite(file, buf, off, uint64(slot))
}
func (b *uringBackend) prepFsync(file int, slot int) { b.r.PrepFsync(file, false, uint64(slot)) }
func (b *uringBackend) submit() error {
	if b.r.Unsent() == 0 {
		return nil
	}
	return b.r.SubmitAndWait(0, 0)
}
func (b *uringBackend) wait(minComplete int, timeout time.Duration, out []completion) ([]completion, error) {
	// Completions may already be posted: then do not enter the kernel.
	b.scratch = b.r.Reap(b.scratch[:0])
	if len(b.scratch) < minComplete || b.r.Unsent() > 0 {
		// With unsent IOs left over (the kernel refused part of a
		// submission) enough completions may already be in hand: then
		// only submit. A negative count would wrap to a wait for more
		// completions than can ever arrive.
		stillNeeded := max(minComplete-len(b.scratch), 0)
		if err := b.r.SubmitAndWait(uint32(stillNeeded), timeout); err != nil {
			return out, err
		}
		b.scratch = b.r.Reap(b.scratch)
	}
	for _, c := range b.scratch {
		out = append(out, completion{slot: int32(c.UserData), res: c.Res})
	}
	return out, nil
}
func (b *uringBackend) close() { b.r.Close() }

type aioBackend struct {
	c       *aio.Context
	scratch []aio.Completion
}

func (b *aioBackend) prepRead(file int, buf []byte, off int64, slot int) {
	b.c.PrepRead(file, buf, off, uint64(slot))
}
func (b *aioBackend) prepWrite(file int, buf []byte, off int64, slot int) {
	b.c.PrepWrite(file, buf, off, uint64(slot))
}
func (b *aioBackend) prepFsync(file int, slot int) { b.c.PrepFsync(file, false, uint64(slot)) }
func (b *aioBackend) submit() error                { return b.c.Submit() }
func (b *aioBackend) wait(minComplete int, timeout time.Duration, out []completion) ([]completion, error) {
	if b.c.Unsent() > 0 {
		// A partial io_submit (EAGAIN) left IOs queued: retry first.
		if err := b.c.Submit(); err != nil {
			return out, err
		}
	}
	if minComplete == 0 {
		timeout = 1 // poll: a (nearly) zero timespec returns at once
	}
	var err error
	b.scratch, err = b.c.Wait(minComplete, timeout, b.scratch[:0])
	for _, c := range b.scratch {
		out = append(out, completion{slot: int32(c.UserData), res: c.Res})
	}
	return out, err
}
func (b *aioBackend) close() { b.c.Close() }

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
func (b *psyncBackend) prepFsync(file int, slot int) { b.prep(opFsync, file, nil, 0, slot) }
func (b *psyncBackend) submit() error                { return nil }
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
