//go:build linux

package uring

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Config describes the ring to create.
type Config struct {
	// Entries is the number of IOs that may be in flight at once (the job's
	// iodepth). The kernel rounds it up to a power of two.
	Entries uint32
	// Files are the file descriptors IOs refer to by index. They are
	// registered with the ring when the kernel allows it, which spares the
	// kernel a file table look-up per IO.
	Files []int
	// Arena, when set, is registered as one fixed buffer so that reads and
	// writes into it skip pinning pages per IO. Buffers passed to PrepRead
	// and PrepWrite that lie inside it use the fixed opcodes.
	Arena []byte
	// NoFixed disables registered files, buffers and ring fd (for tests that
	// compare both paths).
	NoFixed bool
}

// Completion is one finished IO: the user data given at Prep time and the
// result (bytes transferred, or -errno).
type Completion struct {
	UserData uint64
	Res      int32
}

// Ring is one io_uring instance with its mmap'd queues.
type Ring struct {
	fd         int
	enterFD    int // fd or registered ring index
	enterFlags uint32
	features   []string
	extArg     bool

	sqRing, cqRing, sqeMem []byte
	sqHead, sqTail         *uint32
	// sqFlags is the SQ ring's flags word; with taskrunFlag the kernel
	// sets sqTaskrun in it while completions wait as task work.
	sqFlags        *uint32
	taskrunFlag    bool
	sqMask         uint32
	sqes           []sqe
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe

	localTail uint32 // next SQE to fill; published to *sqTail on submit
	unsent    uint32 // prepared but not yet consumed by the kernel

	files      []int
	fixedFiles bool
	arenaStart uintptr
	arenaEnd   uintptr
	fixedBuf   bool
}

// setupAttempts lists the flag sets tried in order: the newest first, then
// older kernels' sets. Each step drops what an older kernel rejects with
// EINVAL, as fio does. TASKRUN_FLAG (5.19, as COOP_TASKRUN; DEFER_TASKRUN
// is 6.1) has the kernel flag waiting completions in the SQ ring, the only
// sign of them user space can read while they are still task work: Ready
// reads it. Mainline kernels take the flag wherever they take either mode;
// each mode is tried without it too, only so that a kernel built otherwise
// keeps the mode (its workers then sleep without looking).
var setupAttempts = []struct {
	flags uint32
	names string
}{
	{setupClamp | setupSubmitAll | setupSingleIssuer | setupDeferTaskrun | setupTaskrunFlag, "single_issuer,defer_taskrun,taskrun_flag"},
	{setupClamp | setupSubmitAll | setupSingleIssuer | setupDeferTaskrun, "single_issuer,defer_taskrun"},
	{setupClamp | setupSubmitAll | setupCoopTaskrun | setupTaskrunFlag, "coop_taskrun,taskrun_flag"},
	{setupClamp | setupSubmitAll | setupCoopTaskrun, "coop_taskrun"},
	{setupClamp, ""},
}

// New creates a ring. It must be called on the OS thread that will use it.
func New(cfg Config) (*Ring, error) {
	if cfg.Entries == 0 {
		return nil, errors.New("io_uring: zero entries")
	}
	var p params
	var fd int
	var err error
	var names string
	for _, a := range setupAttempts {
		p = params{flags: a.flags}
		fd, err = setup(cfg.Entries, &p)
		if err == nil {
			names = a.names
			break
		}
		if !errors.Is(err, unix.EINVAL) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("io_uring_setup: %w", err)
	}
	r := &Ring{fd: fd, enterFD: fd, files: cfg.Files, taskrunFlag: p.flags&setupTaskrunFlag != 0}
	if names != "" {
		r.features = append(r.features, strings.Split(names, ",")...)
	}
	if err := r.mapRings(&p); err != nil {
		unix.Close(fd)
		return nil, err
	}
	r.extArg = p.features&featExtArg != 0
	if !cfg.NoFixed {
		r.register(cfg)
	}
	return r, nil
}

func setup(entries uint32, p *params) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

func (r *Ring) mapRings(p *params) error {
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	single := p.features&featSingleMmap != 0
	if single && cqSize > sqSize {
		sqSize = cqSize
	}
	var err error
	r.sqRing, err = unix.Mmap(r.fd, offSQRing, sqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return fmt.Errorf("io_uring: mmap of the submission ring: %w", err)
	}
	if single {
		r.cqRing = r.sqRing
	} else if r.cqRing, err = unix.Mmap(r.fd, offCQRing, cqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		r.unmap()
		return fmt.Errorf("io_uring: mmap of the completion ring: %w", err)
	}
	sqeBytes := int(p.sqEntries) * int(unsafe.Sizeof(sqe{}))
	if r.sqeMem, err = unix.Mmap(r.fd, offSQEs, sqeBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		r.unmap()
		return fmt.Errorf("io_uring: mmap of the SQE array: %w", err)
	}
	at := func(b []byte, off uint32) unsafe.Pointer { return unsafe.Pointer(&b[off]) }
	r.sqHead = (*uint32)(at(r.sqRing, p.sqOff.head))
	r.sqTail = (*uint32)(at(r.sqRing, p.sqOff.tail))
	r.sqFlags = (*uint32)(at(r.sqRing, p.sqOff.flags))
	r.sqMask = *(*uint32)(at(r.sqRing, p.sqOff.ringMask))
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	// The indirection array maps ring positions to SQE indexes; an
	// identity map set once means SQEs are filled in ring order.
	array := unsafe.Slice((*uint32)(at(r.sqRing, p.sqOff.array)), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.cqHead = (*uint32)(at(r.cqRing, p.cqOff.head))
	r.cqTail = (*uint32)(at(r.cqRing, p.cqOff.tail))
	r.cqMask = *(*uint32)(at(r.cqRing, p.cqOff.ringMask))
	r.cqes = unsafe.Slice((*cqe)(at(r.cqRing, p.cqOff.cqes)), p.cqEntries)
	r.localTail = atomic.LoadUint32(r.sqTail)
	return nil
}

// register asks for fixed files, a fixed buffer and a registered ring fd.
// Each is an optimisation: a refusal (old kernel, RLIMIT_MEMLOCK in a pod)
// only leaves it off.
func (r *Ring) register(cfg Config) {
	if len(cfg.Files) > 0 {
		fds := make([]int32, len(cfg.Files))
		for i, f := range cfg.Files {
			fds[i] = int32(f)
		}
		if r.registerRaw(registerFiles, unsafe.Pointer(&fds[0]), uint32(len(fds))) == nil {
			r.fixedFiles = true
			r.features = append(r.features, "fixed_files")
		}
	}
	if len(cfg.Arena) > 0 {
		iov := unix.Iovec{Base: &cfg.Arena[0]}
		iov.SetLen(len(cfg.Arena))
		if r.registerRaw(registerBuffers, unsafe.Pointer(&iov), 1) == nil {
			r.fixedBuf = true
			r.arenaStart = uintptr(unsafe.Pointer(&cfg.Arena[0]))
			r.arenaEnd = r.arenaStart + uintptr(len(cfg.Arena))
			r.features = append(r.features, "fixed_buffers")
		}
	}
	upd := rsrcUpdate{offset: ^uint32(0), data: uint64(r.fd)}
	if r.registerRaw(registerRingFDs, unsafe.Pointer(&upd), 1) == nil {
		r.enterFD = int(upd.offset)
		r.enterFlags |= enterRegisteredRing
		r.features = append(r.features, "registered_ring")
	}
}

func (r *Ring) registerRaw(op uint32, arg unsafe.Pointer, n uint32) error {
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), uintptr(op), uintptr(arg), uintptr(n), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// Features lists the optional kernel features in use, for the result's
// record of how the backend ran.
func (r *Ring) Features() string { return strings.Join(r.features, ",") }

// nextSQE returns the next free SQE, zeroed. Callers never prepare more IOs
// than Entries, so the ring cannot be full.
func (r *Ring) nextSQE() *sqe {
	s := &r.sqes[r.localTail&r.sqMask]
	*s = sqe{}
	r.localTail++
	r.unsent++
	return s
}

func (r *Ring) setFile(s *sqe, file int) {
	if r.fixedFiles {
		s.fd = int32(file)
		s.flags |= sqeFixedFile
	} else {
		s.fd = int32(r.files[file])
	}
}

func (r *Ring) prepRW(op, fixedOp uint8, file int, buf []byte, off int64, userData uint64) {
	s := r.nextSQE()
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	s.opcode = op
	if r.fixedBuf && addr >= r.arenaStart && addr+uintptr(len(buf)) <= r.arenaEnd {
		s.opcode = fixedOp
	}
	r.setFile(s, file)
	s.off = uint64(off)
	s.addr = uint64(addr)
	s.len = uint32(len(buf))
	s.userData = userData
}

// PrepRead queues a read of len(buf) bytes at off from Files[file]. buf
// must stay valid until the completion is reaped (an mmap'd arena is).
func (r *Ring) PrepRead(file int, buf []byte, off int64, userData uint64) {
	r.prepRW(opRead, opReadFixed, file, buf, off, userData)
}

// PrepWrite queues a write of buf at off to Files[file].
func (r *Ring) PrepWrite(file int, buf []byte, off int64, userData uint64) {
	r.prepRW(opWrite, opWriteFixed, file, buf, off, userData)
}

// PrepFsync queues an fsync (fdatasync when datasync) of Files[file].
func (r *Ring) PrepFsync(file int, datasync bool, userData uint64) {
	s := r.nextSQE()
	s.opcode = opFsync
	r.setFile(s, file)
	if datasync {
		s.opFlags = fsyncDatasync
	}
	s.userData = userData
}

// SubmitAndWait hands every prepared IO to the kernel and waits until at
// least minComplete completions are ready or timeout passes (timeout <= 0:
// no limit); with minComplete 0 it only submits. A timeout, a signal or a
// transient EAGAIN/EBUSY is not an error: the caller reaps what is there
// and calls again (IOs the kernel did not take stay queued).
func (r *Ring) SubmitAndWait(minComplete uint32, timeout time.Duration) error {
	if r.unsent > 0 {
		atomic.StoreUint32(r.sqTail, r.localTail)
	}
	// GETEVENTS also runs deferred task work (DEFER_TASKRUN), which is
	// how completions get posted at all in that mode, so it is always set.
	flags := r.enterFlags | enterGetEvents
	var argp unsafe.Pointer
	var argsz uintptr
	var ts unix.Timespec
	var arg getEventsArg
	if minComplete > 0 && timeout > 0 {
		if !r.extArg {
			return errors.New("io_uring: kernel lacks IORING_FEAT_EXT_ARG for timed waits")
		}
		ts = unix.NsecToTimespec(int64(timeout))
		arg.ts = uint64(uintptr(unsafe.Pointer(&ts)))
		argp, argsz = unsafe.Pointer(&arg), unsafe.Sizeof(arg)
		flags |= enterExtArg
	}
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.enterFD), uintptr(r.unsent), uintptr(minComplete), uintptr(flags), uintptr(argp), argsz)
	if errno == 0 {
		r.unsent -= uint32(n)
		return nil
	}
	switch errno {
	case unix.ETIME, unix.EINTR:
		return nil
	case unix.EAGAIN, unix.EBUSY:
		// The kernel is short of resources or the CQ is full: the
		// caller reaps completions and calls again.
		return nil
	}
	return fmt.Errorf("io_uring_enter: %w", errno)
}

// Unsent is the number of prepared IOs the kernel has not consumed yet.
func (r *Ring) Unsent() int { return int(r.unsent) }

// CanTellReady says whether Ready sees every completion before Reap and
// SubmitAndWait would: with DEFER_TASKRUN or COOP_TASKRUN a completion
// waits as task work until the ring's thread enters the kernel, and only
// TASKRUN_FLAG's bit shows it from user space.
func (r *Ring) CanTellReady() bool { return r.taskrunFlag }

// Ready says, without a system call, whether a completion is in the ring
// or waits as task work (then SubmitAndWait posts it without sleeping).
func (r *Ring) Ready() bool {
	if *r.cqHead != atomic.LoadUint32(r.cqTail) {
		return true
	}
	return r.taskrunFlag && atomic.LoadUint32(r.sqFlags)&sqTaskrun != 0
}

// Reap appends the available completions, at most most of them, to out
// and frees their slots; the others stay in the ring for the next Reap.
func (r *Ring) Reap(out []Completion, most int) []Completion {
	head := *r.cqHead // only this thread writes the head
	tail := atomic.LoadUint32(r.cqTail)
	for ; head != tail && most > 0; head, most = head+1, most-1 {
		c := &r.cqes[head&r.cqMask]
		out = append(out, Completion{UserData: c.userData, Res: c.res})
	}
	atomic.StoreUint32(r.cqHead, head)
	return out
}

// Close unmaps the rings and closes the ring fd. Registered files and
// buffers are released by the kernel with it.
func (r *Ring) Close() error {
	r.unmap()
	if r.fd >= 0 {
		err := unix.Close(r.fd)
		r.fd = -1
		return err
	}
	return nil
}

func (r *Ring) unmap() {
	if r.sqeMem != nil {
		_ = unix.Munmap(r.sqeMem)
	}
	// With IORING_FEAT_SINGLE_MMAP both rings share one mapping.
	if r.cqRing != nil && (r.sqRing == nil || &r.cqRing[0] != &r.sqRing[0]) {
		_ = unix.Munmap(r.cqRing)
	}
	if r.sqRing != nil {
		_ = unix.Munmap(r.sqRing)
	}
	r.sqeMem, r.cqRing, r.sqRing = nil, nil, nil
}
