package engine

import (
	"math"
	"testing"
	"time"
)

func TestDecideWait(t *testing.T) {
	const ms = int64(time.Millisecond)
	const now = 10_000 * ms
	far := int64(math.MaxInt64) // not time-bound
	// measuringUnpaced is an unpaced worker in its measured phase with a
	// full queue and the next interval boundary half a second away.
	measuringUnpaced := waitState{now: now, inflight: 4, measuring: true, rampEnd: now - 1000*ms, end: far, nextBoundary: now + 500*ms}
	with := func(s waitState, edit func(*waitState)) waitState { edit(&s); return s }
	for _, tc := range []struct {
		name string
		in   waitState
		want waitDecision
	}{
		// ed8efa3: unpaced workers wait without a timeout.
		{"an unpaced worker with IOs in flight waits for a completion without a timeout, so no kernel timer is armed per IO",
			measuringUnpaced, waitDecision{1, 0, 1}},
		{"an unpaced worker waits untimed even past an interval boundary, which it notices at the next completion",
			with(measuringUnpaced, func(s *waitState) { s.nextBoundary = now + ms }), waitDecision{1, 0, 1}},
		{"an unpaced worker in a ramp far from its end waits untimed",
			with(measuringUnpaced, func(s *waitState) { s.measuring, s.rampEnd = false, now+1000*ms }), waitDecision{1, 0, 1}},
		// bdf2fb1: timed waits again near the ramp or run end.
		{"an unpaced worker within 50 ms of the run end waits with a timeout up to the end, so the runtime stays precise",
			with(measuringUnpaced, func(s *waitState) { s.end = now + 30*ms }), waitDecision{1, 30 * time.Millisecond, 1}},
		{"an unpaced worker exactly 50 ms before the run end already waits with a timeout",
			with(measuringUnpaced, func(s *waitState) { s.end = now + 50*ms }), waitDecision{1, 50 * time.Millisecond, 1}},
		{"an unpaced worker within 50 ms of the ramp end waits with a timeout up to the ramp end, so measuring starts on time",
			with(measuringUnpaced, func(s *waitState) { s.measuring, s.rampEnd = false, now+20*ms }), waitDecision{1, 20 * time.Millisecond, 1}},
		{"a verify read-back past the job's end waits for its reads, untimed (a past end made it spin, reaping nothing)",
			with(measuringUnpaced, func(s *waitState) { s.end, s.readingBack = now-5*ms, true }), waitDecision{1, 0, 1}},
		// Pacing.
		{"a paced worker with a free slot waits until its next due IO",
			with(measuringUnpaced, func(s *waitState) { s.paced, s.free, s.inflight, s.nextDue = true, 3, 1, now+2*ms }), waitDecision{1, 2 * time.Millisecond, 1}},
		{"a paced worker with nothing in flight sleeps until its next due IO",
			with(measuringUnpaced, func(s *waitState) { s.paced, s.free, s.inflight, s.nextDue = true, 4, 0, now+5*ms }), waitDecision{1, 5 * time.Millisecond, 1}},
		// thinktime.
		{"a thinking worker with nothing in flight sleeps until the think ends",
			with(measuringUnpaced, func(s *waitState) { s.free, s.inflight, s.resumeAt = 4, 0, now+3*ms }), waitDecision{1, 3 * time.Millisecond, 1}},
		{"a thinking worker that is stopping does not wait for the think",
			with(measuringUnpaced, func(s *waitState) { s.free, s.inflight, s.resumeAt, s.stopping = 4, 0, now+3*ms, true }), waitDecision{0, maxWait, 1}},
		{"a paced worker without a free slot waits for a completion, at most maxWait, whatever the next due IO",
			with(measuringUnpaced, func(s *waitState) { s.paced, s.nextDue = true, now+ms }), waitDecision{1, maxWait, 1}},
		{"a paced worker whose next IO is already due only polls, so it issues that IO at once",
			with(measuringUnpaced, func(s *waitState) { s.paced, s.free, s.inflight, s.nextDue = true, 1, 3, now-ms }), waitDecision{0, -time.Millisecond, 1}},
		{"the interval boundary bounds a paced wait while measuring",
			with(measuringUnpaced, func(s *waitState) { s.paced, s.free, s.nextDue, s.nextBoundary = true, 1, now+50*ms, now+3*ms }), waitDecision{1, 3 * time.Millisecond, 1}},
		{"the run end bounds a paced sleep",
			with(measuringUnpaced, func(s *waitState) {
				s.paced, s.free, s.inflight, s.nextDue, s.end = true, 4, 0, now+80*ms, now+10*ms
			}), waitDecision{1, 10 * time.Millisecond, 1}},
		{"a paced worker in the ramp sleeps at most until the ramp ends",
			with(measuringUnpaced, func(s *waitState) {
				s.paced, s.free, s.inflight, s.nextDue, s.measuring, s.rampEnd = true, 4, 0, now+80*ms, false, now+6*ms
			}), waitDecision{1, 6 * time.Millisecond, 1}},
		// Draining.
		{"a stopping worker drains what is in flight with timed waits of at most maxWait, past the run end",
			with(measuringUnpaced, func(s *waitState) { s.stopping, s.inflight, s.end = true, 2, now-5*ms }), waitDecision{1, maxWait, 1}},
		{"a stopping worker still closes the interval on time while it drains",
			with(measuringUnpaced, func(s *waitState) { s.stopping, s.nextBoundary = true, now+7*ms }), waitDecision{1, 7 * time.Millisecond, 1}},
		{"a stopping paced worker drains without waiting for a next due IO it will not issue",
			with(measuringUnpaced, func(s *waitState) { s.stopping, s.paced, s.free, s.inflight, s.nextDue = true, true, 2, 2, now+ms }), waitDecision{1, maxWait, 1}},
		// iodepth_batch_complete_min and _max.
		{"by default a wait reaps one completion, as fio's does, so each reaped slot is refilled at the queue's depth",
			with(measuringUnpaced, func(s *waitState) { s.reapLeast, s.reapMost = 1, 1 }), waitDecision{1, 0, 1}},
		{"iodepth_batch_complete_min makes a wait wait for that many, and _max bounds what it reaps",
			with(measuringUnpaced, func(s *waitState) { s.reapLeast, s.reapMost = 3, 8 }), waitDecision{3, 0, 8}},
		{"a wait never waits for more completions than there are IOs in flight",
			with(measuringUnpaced, func(s *waitState) { s.reapLeast, s.reapMost = 8, 8 }), waitDecision{4, 0, 8}},
		{"a paced sleep with nothing in flight still ends at its timeout, whatever iodepth_batch_complete_min says",
			with(measuringUnpaced, func(s *waitState) {
				s.paced, s.free, s.inflight, s.nextDue, s.reapLeast, s.reapMost = true, 4, 0, now+5*ms, 4, 4
			}), waitDecision{1, 5 * time.Millisecond, 4}},
		{"an unpaced worker with nothing in flight only polls",
			with(measuringUnpaced, func(s *waitState) { s.inflight, s.free = 0, 4 }), waitDecision{0, maxWait, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decideWait(tc.in); got != tc.want {
				t.Errorf("decideWait(%+v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestCompletionsStillNeeded(t *testing.T) {
	for _, tc := range []struct {
		name                string
		minComplete, inHand int
		want                uint32
	}{
		// c45819c: the count wrapped to 4294967294 here.
		{"completions already in hand while IOs are left unsent: enter the kernel only to submit, never for a wrapped-around count", 1, 3, 0},
		{"enough completions in hand: wait for none", 2, 2, 0},
		{"none in hand: wait for all", 1, 0, 1},
		{"some in hand: wait for the rest", 4, 1, 3},
		{"a poll needs none", 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := completionsStillNeeded(tc.minComplete, tc.inHand); got != tc.want {
				t.Errorf("completionsStillNeeded(%d, %d) = %d, want %d", tc.minComplete, tc.inHand, got, tc.want)
			}
		})
	}
}

// Only an untimed wait for IOs in flight is preceded by a look for a
// completion (spin_wait.go): a timed wait keeps its time.
func TestWhichWaitsLookFirst(t *testing.T) {
	const ms = int64(time.Millisecond)
	const now = 10_000 * ms
	base := waitState{now: now, inflight: 4, measuring: true, rampEnd: now - 1000*ms, end: math.MaxInt64, nextBoundary: now + 500*ms}
	with := func(edit func(*waitState)) waitState { s := base; edit(&s); return s }
	for _, tc := range []struct {
		name  string
		in    waitState
		looks bool
	}{
		{"an unpaced worker with IOs in flight, far from any end", base, true},
		{"an unpaced worker in its ramp, far from its end", with(func(s *waitState) { s.measuring, s.rampEnd = false, now+1000*ms }), true},
		{"a verify read-back past the job's end (an untimed wait for its reads)", with(func(s *waitState) { s.end, s.readingBack = now-5*ms, true }), true},
		{"within 50 ms of the run end", with(func(s *waitState) { s.end = now + 30*ms }), false},
		{"within 50 ms of the ramp end", with(func(s *waitState) { s.measuring, s.rampEnd = false, now+20*ms }), false},
		{"a paced worker with a free slot", with(func(s *waitState) { s.paced, s.free, s.inflight, s.nextDue = true, 3, 1, now+2*ms }), false},
		{"a paced worker without a free slot", with(func(s *waitState) { s.paced, s.nextDue = true, now+ms }), false},
		{"a thinking worker with nothing in flight", with(func(s *waitState) { s.free, s.inflight, s.resumeAt = 4, 0, now+3*ms }), false},
		{"a stopping worker draining", with(func(s *waitState) { s.stopping, s.end = true, now-5*ms }), false},
		{"nothing in flight", with(func(s *waitState) { s.inflight, s.free = 0, 4 }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decideWait(tc.in)
			if got := d.looksFirst(tc.in.inflight); got != tc.looks {
				t.Errorf("decideWait(%+v) = %+v: looksFirst %v, want %v", tc.in, d, got, tc.looks)
			}
		})
	}
}
