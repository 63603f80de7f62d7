package engine

import "time"

// spinBudget is how long a worker looks for a completion in user space
// before it sleeps in the kernel for one.
//
// Where the storage is faster than the CPU, a worker that has just
// submitted often has its next completion a few microseconds away. Sleeping
// for it costs more than that: the thread blocks, its CPU goes idle, and
// the completion has to wake it (on a virtual machine an interrupt to a
// halted virtual CPU), while a thread still looking takes the completion at
// once. fio does not spin, yet at QD8 the CPUs halted half as often per IO
// under fio as under the engine (0.07 against 0.14). On the memory-backed
// loop device (docs/engine-vs-fio.md, "Spinning before sleeping") a fixed
// look of 2 and 5 µs took libaio at QD8 from 0.79x fio's IOPS to 0.98x and
// 1.08x with less CPU per IO than without it (fewer sleeps and wake-ups
// paid for); with this backoff the QD8 lines went from 0.81-0.91x to
// 0.97-1.03x.
const spinBudget = 5 * time.Microsecond

// spinBackoffMost is the most waits a worker skips spinning after spins
// that found nothing. A device slower than the budget (a disk, a network
// file system, a QD1 job on a device that takes tens of microseconds per
// IO) then costs at most one budget per this many waits, and a device that
// becomes fast again is noticed within as many.
const spinBackoffMost = 64

// spinClockEvery is how many looks go between two readings of the clock.
const spinClockEvery = 16

// spinWait decides, wait by wait, whether a worker spins before sleeping,
// and spins. It backs off as a spin finds nothing: after a miss it skips
// the next backoff waits, and each further miss doubles that, up to
// spinBackoffMost; a spin that finds a completion starts over at one.
type spinWait struct {
	ready   func() bool // a completion waits (no system call)
	budget  int64       // ns
	skip    int         // waits still to go without spinning
	backoff int         // what the next miss sets skip to
	clock   func() int64
}

// newSpinWait spins on ready, which must not enter the kernel.
func newSpinWait(ready func() bool) *spinWait {
	return &spinWait{ready: ready, budget: int64(spinBudget), backoff: 1, clock: nanotime}
}

// spin looks for a completion for up to the budget, unless backing off. It
// returns at once when one is already there; then nothing is learnt.
func (s *spinWait) spin() {
	if s.ready() {
		return
	}
	if s.skip > 0 {
		s.skip--
		return
	}
	deadline := s.clock() + s.budget
	for n := 1; !s.ready(); n++ {
		// The clock every spinClockEvery looks: where the clock has no
		// user-space reading it is a system call.
		if n%spinClockEvery == 0 && s.clock() >= deadline {
			s.skip = s.backoff
			s.backoff = min(2*s.backoff, spinBackoffMost)
			return
		}
	}
	s.backoff = 1
}
