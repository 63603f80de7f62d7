package engine

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// fio's thinktime: an application that computes between bursts of IO. After
// every thinktime_blocks IOs (counted as they complete, or as they are
// issued with thinktime_blocks_type=issue), or once thinktime_iotime of IO
// has passed since the last think, the job stops issuing, lets every IO in
// flight complete (fio's quiesce), spins for thinktime_spin and sleeps the
// rest of thinktime. The check follows each read or write issued, as fio's
// handle_thinktime follows each one (see check): with the default
// thinktime_blocks=1 a job thinks after every IO it reaps. The
// think is no IO's latency: each IO is timed from its own preparation.

func init() {
	for _, o := range []option{
		{name: "thinktime", help: "stop issuing, let the IOs in flight complete and think this long (bare number = microseconds)", apply: numberOpt(usecTimeKind, func(j *JobSpec, v int64) { j.Think.Time = time.Duration(v) })},
		{name: "thinktime_spin", help: "spend this part of thinktime spinning on the CPU instead of sleeping (bare number = microseconds)", apply: numberOpt(usecTimeKind, func(j *JobSpec, v int64) { j.Think.Spin = time.Duration(v) })},
		{name: "thinktime_blocks", help: "think after every this many IOs (default 1)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) { j.Think.Blocks, j.Think.BlocksSet = v, true })},
		{name: "thinktime_blocks_type", help: "count thinktime_blocks as IOs complete (complete, the default) or as they are issued (issue)", apply: func(j *JobSpec, s string) error {
			switch strings.TrimSpace(s) {
			case "complete":
				j.Think.ByIssue = false
			case "issue":
				j.Think.ByIssue = true
			default:
				return fmt.Errorf("%s is not complete or issue", excerpt(s))
			}
			return nil
		}},
		{name: "thinktime_iotime", help: "think once this much time of IO has passed since the last think (bare number = microseconds)", apply: numberOpt(usecTimeKind, func(j *JobSpec, v int64) { j.Think.IOTime = time.Duration(v) })},
	} {
		registerOption(o)
	}
}

// ThinkTime is a job's fio thinktime settings; a zero Time leaves it off.
type ThinkTime struct {
	Time, Spin, IOTime time.Duration
	// Blocks is thinktime_blocks (fio's default 1); BlocksSet says it was
	// given, which matters with IOTime (fio then checks both).
	Blocks    int64
	BlocksSet bool
	ByIssue   bool
}

// validateThinkTime refuses what thinktime cannot mean here.
func (j *JobSpec) validateThinkTime() error {
	t := j.Think
	bad := func(opt, format string, a ...any) error {
		return fmt.Errorf("job %q: %s: %s", j.Name, opt, fmt.Sprintf(format, a...))
	}
	switch {
	case t.Time == 0:
		return nil
	case t.Spin > t.Time:
		return bad("thinktime_spin", "%v is more than thinktime %v (the spin is part of the think)", t.Spin, t.Time)
	case t.Time > maxLatencyWindow || t.IOTime > maxLatencyWindow:
		return bad("thinktime", "more than %v", maxLatencyWindow)
	case j.isFileOp():
		return bad("thinktime", "not with ioengine=%s (a file engine issues no reads or writes to think between)", j.IOEngine)
	case j.capped():
		return bad("thinktime", "not with rate or rate_iops: the rate's schedule would count each think as the next IOs' latency")
	case j.LatencyTarget > 0:
		return bad("thinktime", "not with latency_target: both decide how many IOs are in flight")
	}
	return nil
}

// thinker is one worker's thinktime state.
type thinker struct {
	cfg                 ThinkTime
	issued, completed   int64 // reads and writes, since the job started
	lastBlocks          int64 // the count at the last think
	lastThink           int64 // nanotime the last think ended (or the job started)
	quiescing, thinking bool
	until               int64 // nanotime the current think ends
}

func newThinker(cfg ThinkTime, start int64) *thinker {
	if cfg.Time == 0 {
		return nil
	}
	if !cfg.BlocksSet {
		cfg.Blocks = 1
	}
	return &thinker{cfg: cfg, lastThink: start}
}

// issuedOne counts a read or write issued; with thinktime_blocks_type=issue
// it checks at once whether the think is due, as fio does after each IO it
// issues, and reports whether it is.
func (t *thinker) issuedOne(now int64) bool {
	t.issued++
	if t.cfg.ByIssue {
		t.check(now)
	}
	return t.quiescing
}

// check follows each turn of the worker's loop (its IOs issued, then
// reaped), as fio's handle_thinktime follows each IO issued and the
// completions reaped with it: whether the job must now stop issuing and
// think.
func (t *thinker) check(now int64) {
	if t.quiescing || t.thinking {
		return
	}
	stall := false
	if t.cfg.IOTime > 0 {
		if now-t.lastThink >= int64(t.cfg.IOTime) {
			stall = true
		} else if !t.cfg.BlocksSet {
			// fio: the default of one block does not apply beside
			// thinktime_iotime.
			return
		}
	}
	b := t.completed
	if t.cfg.ByIssue {
		b = t.issued
	}
	if b >= t.lastBlocks+t.cfg.Blocks {
		stall = true
	}
	if stall {
		t.lastBlocks = b
		t.quiescing = true
	}
}

// room is how many IOs the worker may issue now: none while the IOs in
// flight drain or the think lasts. The think starts when the last IO in
// flight has completed: its spin runs here, on the worker's thread, as
// fio's does, never past the job's end (fio caps the think at the runtime
// left) and not after the run is stopped; the sleep is the worker's wait
// (resumeAt), which ends at the job's end too. It returns the time after
// the spin with the room.
func (t *thinker) room(free, inflight int, now, end int64, stop *atomic.Bool) (int, int64) {
	if t.quiescing {
		if inflight > 0 {
			return 0, now
		}
		t.quiescing, t.thinking = false, true
		spinEnd := min(now+int64(t.cfg.Spin), end)
		for now < spinEnd && !stop.Load() {
			now = nanotime()
		}
		t.until = spinEnd + int64(t.cfg.Time-t.cfg.Spin)
	}
	if t.thinking {
		if now < t.until {
			return 0, now
		}
		t.thinking = false
		t.lastThink = now
	}
	return free, now
}

// resumeAt is when a thinking worker issues again, 0 when it is not
// thinking.
func (t *thinker) resumeAt() int64 {
	if t == nil || !t.thinking {
		return 0
	}
	return t.until
}
