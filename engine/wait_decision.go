package engine

import (
	"math"
	"time"
)

// timedWaitWindow is how close to the end of the ramp or of the run an
// unpaced worker switches from untimed to timed waits.
const timedWaitWindow = 50 * time.Millisecond

// maxWait bounds every blocking wait so that a cancelled run is noticed
// promptly even while IOs hang.
const maxWait = 100 * time.Millisecond

// waitState is what a worker knows when it is about to wait for
// completions, after issuing what it may. Times are nanotime values.
type waitState struct {
	now      int64
	inflight int // IOs handed to the backend and not completed
	free     int // slots without an IO
	paced    bool
	// nextDue is the intended time of the pacer's next IO not yet issued;
	// only read when paced with free slots.
	nextDue   int64
	measuring bool // the ramp is over
	rampEnd   int64
	end       int64 // end of the run; math.MaxInt64 when not time-bound
	// nextBoundary is the end of the current time-series interval (only
	// read while measuring).
	nextBoundary int64
	// stopping: the run is over, failed or cancelled, or the byte limit
	// is reached; nothing more is issued and what is in flight drains.
	stopping bool
	// resumeAt is when a thinking worker (thinktime) issues again; 0 when
	// it is not thinking.
	resumeAt int64
	// readingBack: a verify read-back, which runs to its last block past
	// the job's end, so the end bounds none of its waits (a wait bounded
	// by a time already past reaps nothing: an io_uring's direct IOs
	// complete only when the worker enters the kernel, so it spun).
	readingBack bool
	// reapLeast and reapMost are the job's bounds on the completions one
	// wait reaps (JobSpec.reapBounds); 0 is taken as 1.
	reapLeast, reapMost int
}

// waitDecision is the backend wait to make: wait(minComplete,
// maxComplete, timeout).
type waitDecision struct {
	minComplete int
	// timeout <= 0 with minComplete > 0 is an untimed wait, woken only
	// by a completion; with minComplete 0 the backend only polls.
	timeout time.Duration
	// maxComplete is the most completions the wait reaps; the others
	// wait for the next one.
	maxComplete int
}

// decideWait chooses how many completions to wait for and for how long.
//
// The timeout is the nearest of: the pacer's next due IO (when a free slot
// could take it), the end of the ramp (before measuring) or of the current
// interval (while measuring), the end of the run (unless draining), and
// maxWait. When that moment has come the wait only polls.
//
// An unpaced worker with IOs in flight waits without a timeout, as fio
// does: a completion will wake it, and a timed wait arms a kernel timer on
// every call, which in a VM costs an exit to the hypervisor per IO at low
// queue depths. Interval boundaries and cancellation are then noticed at
// the next completion. Within timedWaitWindow of the ramp or run end, where
// precision matters, waits are timed again.
func decideWait(s waitState) waitDecision {
	if s.readingBack {
		s.end = math.MaxInt64
	}
	wait := int64(maxWait)
	if s.paced && s.free > 0 && !s.stopping {
		wait = min(wait, s.nextDue-s.now)
	}
	if !s.measuring {
		wait = min(wait, s.rampEnd-s.now)
	} else {
		wait = min(wait, s.nextBoundary-s.now)
	}
	if !s.stopping {
		wait = min(wait, s.end-s.now)
		if s.resumeAt > 0 {
			wait = min(wait, s.resumeAt-s.now)
		}
	}
	minComplete := 0
	if wait > 0 && (s.inflight > 0 || s.paced || (s.resumeAt > 0 && !s.stopping)) {
		// A paced or thinking worker with nothing in flight also
		// "waits" for one: the backend then sleeps until the next due
		// IO or the think's end.
		minComplete = 1
	}
	if minComplete > 0 && s.inflight > 0 {
		// iodepth_batch_complete_min, never more than can come.
		minComplete = min(max(s.reapLeast, 1), s.inflight)
	}
	if s.inflight > 0 && !s.paced && !s.stopping && s.end-s.now > int64(timedWaitWindow) &&
		(s.measuring || s.rampEnd-s.now > int64(timedWaitWindow)) {
		wait = 0
	}
	return waitDecision{minComplete: minComplete, timeout: time.Duration(wait), maxComplete: max(s.reapMost, minComplete, 1)}
}

// looksFirst says whether a worker that can look for a completion without a
// system call does so before this wait (spin_wait.go): only before an
// untimed wait for completions of IOs in flight. A timed wait (a paced or
// thinking worker's, one near the ramp's or the run's end, a draining one)
// keeps its time exactly.
func (d waitDecision) looksFirst(inflight int) bool {
	return inflight > 0 && d.minComplete > 0 && d.timeout <= 0
}

// completionsStillNeeded is how many more completions a backend must wait
// for in the kernel when inHand are already reaped. It is never negative:
// a backend that still has unsent IOs enters the kernel to submit them
// even when enough completions are in hand, and a negative count converted
// to the kernel's unsigned argument would wait for more completions than
// can ever arrive.
func completionsStillNeeded(minComplete, inHand int) uint32 {
	return uint32(max(minComplete-inHand, 0))
}
