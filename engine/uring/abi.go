//go:build linux

package uring

// Kernel ABI from include/uapi/linux/io_uring.h. Only what this package uses.

const (
	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000
)

// Setup flags.
const (
	setupClamp        = 1 << 4
	setupSubmitAll    = 1 << 7
	setupCoopTaskrun  = 1 << 8
	setupTaskrunFlag  = 1 << 9
	setupSingleIssuer = 1 << 12
	setupDeferTaskrun = 1 << 13
)

// SQ ring flags (the word at sqOff.flags).
const sqTaskrun = 1 << 2 // completions wait as task work (IORING_SQ_TASKRUN)

// Features reported by setup.
const (
	featSingleMmap = 1 << 0
	featExtArg     = 1 << 8
)

// Enter flags.
const (
	enterGetEvents      = 1 << 0
	enterExtArg         = 1 << 3
	enterRegisteredRing = 1 << 4
)

// Register opcodes.
const (
	registerBuffers = 0
	registerFiles   = 2
	registerRingFDs = 20
)

// Opcodes.
const (
	opFsync      = 3
	opReadFixed  = 4
	opWriteFixed = 5
	opRead       = 22
	opWrite      = 23
)

// SQE flags.
const sqeFixedFile = 1 << 0

// fsync flags.
const fsyncDatasync = 1 << 0

// sqringOffsets is struct io_sqring_offsets.
type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

// cqringOffsets is struct io_cqring_offsets.
type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// params is struct io_uring_params (120 bytes).
type params struct {
	sqEntries    uint32
	cqEntries    uint32
	flags        uint32
	sqThreadCPU  uint32
	sqThreadIdle uint32
	features     uint32
	wqFD         uint32
	resv         [3]uint32
	sqOff        sqringOffsets
	cqOff        cqringOffsets
}

// sqe is struct io_uring_sqe (64 bytes) for the fields this package sets.
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFDIn  int32
	addr3       uint64
	pad2        uint64
}

// cqe is struct io_uring_cqe (16 bytes).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// getEventsArg is struct io_uring_getevents_arg, passed with
// IORING_ENTER_EXT_ARG to bound a wait by a timeout.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWaitUs uint32
	ts        uint64
}

// rsrcUpdate is struct io_uring_rsrc_update, used to register the ring fd.
type rsrcUpdate struct {
	offset uint32
	resv   uint32
	data   uint64
}
