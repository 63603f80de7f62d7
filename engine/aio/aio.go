//go:build linux

package aio

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Kernel ABI from include/uapi/linux/aio_abi.h.
const (
	cmdPread  = 0
	cmdPwrite = 1
	cmdFsync  = 2
	cmdFdsync = 3
)

// iocb is struct iocb (64 bytes, little-endian field order).
// Fields the engine never sets (aio_key, aio_rw_flags, aio_reqprio,
// aio_reserved2, aio_flags, aio_resfd) are blank: they only hold the
// kernel's layout and stay zero.
type iocb struct {
	data   uint64
	_      uint32 // aio_key
	_      uint32 // aio_rw_flags
	opcode uint16
	_      int16 // aio_reqprio
	fildes uint32
	buf    uint64
	nbytes uint64
	offset int64
	_      uint64 // aio_reserved2
	_      uint32 // aio_flags
	_      uint32 // aio_resfd
}

// event is struct io_event (32 bytes).
type event struct {
	data uint64
	obj  uint64
	res  int64
	res2 int64
}

// Completion is one finished IO: the user data given at Prep time and the
// result (bytes transferred, or -errno).
type Completion struct {
	UserData uint64
	Res      int32
}

// ringHeader is the start of struct aio_ring (fs/aio.c), the completion
// ring the kernel maps into the process at the context's address: the
// kernel appends events at tail, the reader consumes them from head.
type ringHeader struct {
	id               uint32
	nr               uint32 // events the ring holds
	head             uint32
	tail             uint32
	magic            uint32
	compatFeatures   uint32
	incompatFeatures uint32
	headerLength     uint32 // where the events begin
}

// The ring layout the user-space reader knows (fs/aio.c: AIO_RING_MAGIC,
// AIO_RING_INCOMPAT_FEATURES 0); a kernel that announces another is read
// with io_getevents only.
const (
	ringMagic       = 0xa10a10a1
	ringHeaderBytes = uint32(unsafe.Sizeof(ringHeader{}))
)

// Context is one AIO context with room for Entries IOs in flight.
type Context struct {
	ctx uintptr
	// ring is the completion ring read in user space, nil where its
	// layout is not the one known here.
	ring    *ringHeader
	files   []int
	iocbs   []iocb // one per in-flight IO, reused round-robin
	next    int
	pending []*iocb // prepared, not yet submitted
	events  []event
}

// New creates a context for up to entries IOs in flight on files.
func New(entries int, files []int) (*Context, error) {
	if entries <= 0 {
		return nil, errors.New("aio: zero entries")
	}
	c := &Context{files: files, iocbs: make([]iocb, entries), events: make([]event, entries), pending: make([]*iocb, 0, entries)}
	if _, _, errno := unix.Syscall(unix.SYS_IO_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&c.ctx)), 0); errno != 0 {
		return nil, fmt.Errorf("io_setup: %w", errno)
	}
	// The context's id is the ring's address in this process: the
	// uintptr is read as the pointer it is (memory the kernel mapped,
	// not Go's heap).
	ring := *(**ringHeader)(unsafe.Pointer(&c.ctx))
	if ring.magic == ringMagic && ring.incompatFeatures == 0 && ring.headerLength == ringHeaderBytes && ring.nr > 0 {
		c.ring = ring
	}
	return c, nil
}

// The caller never has more than entries IOs prepared or in flight, so the
// iocb being reused has always completed.
func (c *Context) nextIOCB() *iocb {
	cb := &c.iocbs[c.next]
	c.next++
	if c.next == len(c.iocbs) {
		c.next = 0
	}
	*cb = iocb{}
	c.pending = append(c.pending, cb)
	return cb
}

func (c *Context) prepRW(op uint16, file int, buf []byte, off int64, userData uint64) {
	cb := c.nextIOCB()
	cb.opcode = op
	cb.fildes = uint32(c.files[file])
	cb.buf = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	cb.nbytes = uint64(len(buf))
	cb.offset = off
	cb.data = userData
}

// PrepRead queues a read of len(buf) bytes at off from files[file]; buf
// must stay valid until the completion is reaped.
func (c *Context) PrepRead(file int, buf []byte, off int64, userData uint64) {
	c.prepRW(cmdPread, file, buf, off, userData)
}

// PrepWrite queues a write of buf at off to files[file].
func (c *Context) PrepWrite(file int, buf []byte, off int64, userData uint64) {
	c.prepRW(cmdPwrite, file, buf, off, userData)
}

// PrepFsync queues an fsync (fdatasync when datasync) of files[file].
// Filesystems without AIO fsync support fail it with EINVAL.
func (c *Context) PrepFsync(file int, datasync bool, userData uint64) {
	cb := c.nextIOCB()
	cb.opcode = cmdFsync
	if datasync {
		cb.opcode = cmdFdsync
	}
	cb.fildes = uint32(c.files[file])
	cb.data = userData
}

// Unsent is the number of prepared IOs not yet accepted by io_submit.
func (c *Context) Unsent() int { return len(c.pending) }

// Submit hands the prepared IOs to the kernel. A partial submission leaves
// the rest queued for the next call; EAGAIN is not an error (the caller
// reaps completions and tries again).
func (c *Context) Submit() error {
	for len(c.pending) > 0 {
		n, _, errno := unix.Syscall(unix.SYS_IO_SUBMIT, c.ctx, uintptr(len(c.pending)), uintptr(unsafe.Pointer(&c.pending[0])))
		switch {
		case errno == unix.EAGAIN || errno == unix.EINTR:
			return nil
		case errno != 0:
			return fmt.Errorf("io_submit: %w", errno)
		case n == 0:
			return nil
		}
		c.pending = c.pending[:copy(c.pending, c.pending[n:])]
	}
	return nil
}

// Wait waits until at least minComplete IOs completed or timeout passed
// (timeout <= 0: no limit) and appends the completions, at most
// maxComplete of them, to out; the others stay for the next Wait.
//
// Completions already in the ring are read in user space, without a
// system call (as fio's libaio userspace_reap does, but as a first look
// rather than a busy poll): io_getevents is called only to wait for
// more. On a device that completes an IO inside io_submit (a
// memory-backed one, or any fast enough) that is one system call per IO
// instead of two; this VM pays about a microsecond for each.
func (c *Context) Wait(minComplete, maxComplete int, timeout time.Duration, out []Completion) ([]Completion, error) {
	maxComplete = min(maxComplete, len(c.events))
	start := len(out)
	out = c.reapRing(maxComplete, out)
	got := len(out) - start
	if c.ring != nil && got >= minComplete {
		return out, nil // a poll (minComplete 0) needs no system call either
	}
	var tsp unsafe.Pointer
	var ts unix.Timespec
	if timeout > 0 {
		ts = unix.NsecToTimespec(int64(timeout))
		tsp = unsafe.Pointer(&ts)
	}
	n, _, errno := unix.Syscall6(unix.SYS_IO_GETEVENTS, c.ctx, uintptr(max(minComplete-got, 0)), uintptr(maxComplete-got), uintptr(unsafe.Pointer(&c.events[0])), uintptr(tsp), 0)
	if errno == unix.EINTR {
		return out, nil
	}
	if errno != 0 {
		return out, fmt.Errorf("io_getevents: %w", errno)
	}
	for _, e := range c.events[:n] {
		out = append(out, Completion{UserData: e.data, Res: int32(e.res)})
	}
	return out, nil
}

// CanTellReady says whether Ready reads the completion ring (a kernel
// with another ring layout is read with io_getevents only).
func (c *Context) CanTellReady() bool { return c.ring != nil }

// Ready says, without a system call, whether a finished IO waits in the
// completion ring.
func (c *Context) Ready() bool {
	r := c.ring
	return r != nil && atomic.LoadUint32(&r.head) != atomic.LoadUint32(&r.tail)
}

// reapRing appends up to limit completions from the ring to out. The
// kernel writes an event before it moves tail (with a write barrier), and
// reads head to know which slots it may reuse, so tail is loaded before
// the events are read and head stored after.
func (c *Context) reapRing(limit int, out []Completion) []Completion {
	r := c.ring
	if r == nil {
		return out
	}
	head, tail := atomic.LoadUint32(&r.head), atomic.LoadUint32(&r.tail)
	if head >= r.nr || tail >= r.nr {
		return out // not a state the kernel leaves: let io_getevents read it
	}
	events := unsafe.Slice((*event)(unsafe.Add(unsafe.Pointer(r), r.headerLength)), r.nr)
	for n := 0; head != tail && n < limit; n++ {
		e := &events[head]
		out = append(out, Completion{UserData: e.data, Res: int32(e.res)})
		if head++; head == r.nr {
			head = 0
		}
	}
	atomic.StoreUint32(&r.head, head)
	return out
}

// Close destroys the context, cancelling or waiting for IOs in flight.
func (c *Context) Close() error {
	if c.ctx == 0 {
		return nil
	}
	_, _, errno := unix.Syscall(unix.SYS_IO_DESTROY, c.ctx, 0, 0)
	c.ctx = 0
	if errno != 0 {
		return fmt.Errorf("io_destroy: %w", errno)
	}
	return nil
}
