package engine

import "time"

// spinBudget is how long a worker looks for a completion in user space
// before it sleeps in the kernel for one, when the run leaves a CPU the
// process may use free of worker threads (spinBudgetFor).
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
// paid for). At QD1 5 µs (and 15) is shorter than one IO there, so the
// look backed off and the worker slept every IO, as did the loop device's
// kernel worker on the other CPU: two halts per IO in the slow placement
// ("A look longer than one IO", 2026-12-07). A look of 30 µs outlasts the
// IO: the worker takes the completion awake and submits the next IO while
// the kernel worker is still awake for it, and the CPUs stop halting
// (0.16-0.78 halts per IO against fio's 0.65-1.36): QD1 went from 0.70x
// fio's IOPS to 1.28x (libaio) and 1.52x (io_uring), libaio QD8 from 0.92x
// to 1.33x with 0.89x fio's CPU per IO.
const spinBudget = 30 * time.Microsecond

// spinBudgetShort is the look where the long one would cost more than it
// saves: when every CPU the process may use has a worker thread (a longer
// look would hold a CPU that another worker or the device's kernel work is
// waiting for), and for blocks larger than spinLongLookLargestBlock. It is
// the look measured before spinBudget was raised (the QD8 lines above).
const spinBudgetShort = 5 * time.Microsecond

// spinLongLookLargestBlock is the largest block a job may issue for its
// workers to take the long look. A large block keeps the device busy for
// longer per IO (128 KiB on the loop device: a completion every 20-25 µs at
// QD8), so a 30 µs look found its completion nearly every time and the
// worker never slept: 1.28-1.54x fio's CPU per IO for the whole process on
// the 128k lines, and libaio 128k writes at 0.915x fio's IOPS, where the
// 4k lines took 0.89-0.97x fio's CPU at 1.08-1.6x its IOPS. 16 KiB is a
// choice between the sizes measured (4k in, 128k out).
const spinLongLookLargestBlock = 16 << 10

// spinBudgetFor is the look of a worker of a job whose largest block is
// largestBlock, in a process running workers worker threads (over all runs
// in flight) that may use cpus CPUs.
func spinBudgetFor(workers, cpus int, largestBlock int64) time.Duration {
	if workers < cpus && largestBlock <= spinLongLookLargestBlock {
		return spinBudget
	}
	return spinBudgetShort
}

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

// newSpinWait spins on ready, which must not enter the kernel, for up to
// budget each time.
func newSpinWait(ready func() bool, budget time.Duration) *spinWait {
	return &spinWait{ready: ready, budget: int64(budget), backoff: 1, clock: nanotime}
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
