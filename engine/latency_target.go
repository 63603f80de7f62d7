package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// fio's latency_target: each clone searches, while it runs, for the deepest
// queue (up to iodepth) at which its IOs meet a latency bound. The search is
// fio's (its io_u.c): start at depth 1; after every latency_window judge the
// window's IOs; while they meet the target double the depth, once a depth
// has failed bisect between the deepest that met it and the shallowest that
// failed. With latency_percentile=100 a single IO over the target fails the
// depth at once (and at depth 1 fails the job, as fio's "latency exceeds
// specified max"); below 100 the window fails when fewer than that share of
// its IOs met it. Lowering the depth first lets every IO in flight complete
// (fio's quiesce), so that the IOs issued at the deeper queue do not fail the
// shallower one. When a judgement leaves the depth where it was, the depth
// is found: the statistics are reset, one more window runs at that depth
// alone, and the job ends (latency_run=1 keeps searching until the job's
// own end instead, and raises the shallowest failed depth by one after three
// good windows in a row just below it, as fio does). The latency judged is fio's lat: from the IO's
// preparation to its completion.
//
// The API's latencyTarget searches (results/search.go) answer the same
// question across clients, with steps the controller decides; this is the
// engine CLI's fio-compatible form.

func init() {
	for _, o := range []option{
		{name: "latency_target", help: "find the deepest queue (up to iodepth) whose IOs meet this latency; bare number = microseconds", apply: numberOpt(usecTimeKind, func(j *JobSpec, v int64) { j.LatencyTarget = time.Duration(v) })},
		{name: "latency_window", help: "how long each queue depth is judged against latency_target; bare number = microseconds", apply: numberOpt(usecTimeKind, func(j *JobSpec, v int64) { j.LatencyWindow = time.Duration(v) })},
		{name: "latency_percentile", help: "percentage of a window's IOs that must meet latency_target (default 100: every IO)", apply: func(j *JobSpec, s string) error {
			p, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
				return fmt.Errorf("%s is not a percentage between 0 and 100", excerpt(s))
			}
			j.LatencyPercentile = p
			return nil
		}},
		{name: "latency_run", flag: true, help: "keep adjusting the queue depth to latency_target until the job ends, instead of ending it once the depth is found", apply: boolOpt(func(j *JobSpec, v bool) { j.LatencyRun = v })},
	} {
		registerOption(o)
	}
}

// usecTimeKind is a time whose bare number is microseconds, as fio reads
// latency_target, latency_window and thinktime.
var usecTimeKind = timeKindIn("us", "microseconds")

// timeKindIn is a time whose bare number is in unit: fio reads some times
// in seconds, some in microseconds, some in milliseconds.
func timeKindIn(unit, unitName string) valueKind {
	return valueKind{noun: "a time", want: "a whole number >= 0 with an optional unit us, ms, s, m, h, d (a bare number is " + unitName + ")",
		parse: func(s string) (int64, error) {
			t := strings.TrimSpace(s)
			if t != "" && strings.Trim(t, "0123456789") == "" {
				t += unit
			}
			d, err := parseDuration(t)
			return int64(d), err
		}, max: math.MaxInt64}
}

// maxLatencyWindow bounds latency_window: a window longer than a day would
// never end a search, and the clock's arithmetic must not wrap.
const maxLatencyWindow = 24 * time.Hour

// validateLatencyTarget checks latency_target's companions.
func (j *JobSpec) validateLatencyTarget() error {
	bad := func(opt, format string, a ...any) error {
		return fmt.Errorf("job %q: %s: %s", j.Name, opt, fmt.Sprintf(format, a...))
	}
	switch {
	case j.LatencyTarget == 0:
		return nil
	case j.isFileOp():
		return bad("latency_target", "not with ioengine=%s (a file engine has no queue depth)", j.IOEngine)
	case j.LatencyWindow <= 0:
		return bad("latency_window", "latency_target=%v needs a window to judge each queue depth over (e.g. latency_window=1s)", j.LatencyTarget)
	case j.LatencyWindow > maxLatencyWindow:
		return bad("latency_window", "%v is more than %v", j.LatencyWindow, maxLatencyWindow)
	case j.capped():
		// A paced clone's depth is the pacer's, not the search's.
		return bad("latency_target", "not with rate or rate_iops: a capped clone's queue depth follows its rate")
	}
	return nil
}

// latencyAction is what a latency search asks of its worker after a turn.
type latencyAction int

const (
	latencyContinue latencyAction = iota
	// latencyFinalRun: the depth is found; reset the statistics and
	// measure one more window at it.
	latencyFinalRun
	// latencyDone: the final window met the target; end the job.
	latencyDone
)

// latencySearch is one clone's fio latency_target search. Only its worker
// touches it. Times are nanotime values.
type latencySearch struct {
	target, window int64
	percentile     float64
	keepRunning    bool // latency_run
	maxDepth       int

	depth, low, high int
	// stable counts windows in a row that held one below the shallowest
	// failed depth; at 3 that bound is raised by one (fio's heuristic
	// since latency_run, so that a long run creeps back up when the
	// storage gets faster).
	stable           int
	cycleStart       int64
	cycleIOs, missed int64
	// quiescing: the depth was lowered (or the final window is about to
	// start) and nothing is issued until every IO in flight completed.
	quiescing, resetAfterQuiesce bool
	finalRun                     bool
}

func newLatencySearch(j *JobSpec, maxDepth int) *latencySearch {
	l := &latencySearch{target: int64(j.LatencyTarget), window: int64(j.LatencyWindow), percentile: j.LatencyPercentile,
		keepRunning: j.LatencyRun, maxDepth: maxDepth}
	l.restart(0)
	return l
}

// restart begins the search at depth 1 at now, unless the final window is
// already running (fio resets the search when the ramp ends, except then).
func (l *latencySearch) restart(now int64) {
	if !l.finalRun {
		l.depth, l.low, l.high = 1, 1, l.maxDepth
	}
	l.newCycle(now)
}

func (l *latencySearch) newCycle(now int64) {
	l.cycleStart, l.cycleIOs, l.missed = now, 0, 0
}

// room is how many more IOs may be issued with inflight in flight.
func (l *latencySearch) room(inflight int) int {
	if l.quiescing {
		return 0
	}
	return max(l.depth-inflight, 0)
}

// observe accounts one measured IO's latency. It returns false when the IO
// missed the target at depth 1 with every IO required to meet it: the job
// then fails, as fio's does. IOs completing while the search quiesces were
// issued at the depth already judged and are not counted.
func (l *latencySearch) observe(lat int64) bool {
	if l.quiescing {
		return true
	}
	l.cycleIOs++
	if lat <= l.target {
		return true
	}
	if l.percentile < 100 {
		l.missed++
		return true
	}
	return l.lower()
}

// lower fails the current depth: bisect down towards the deepest that met
// the target, quiescing first. At depth 1 there is nowhere to go and it
// returns false.
func (l *latencySearch) lower() bool {
	if l.depth == 1 {
		return false
	}
	l.high = l.depth
	if l.depth == l.low {
		l.low--
	}
	l.depth = (l.depth + l.low) / 2
	l.stable = 0
	l.quiescing = true
	return true
}

// turn is called once per loop turn of a measuring worker, with inflight
// IOs still in flight.
func (l *latencySearch) turn(now int64, inflight int) latencyAction {
	if l.quiescing {
		if inflight > 0 {
			return latencyContinue
		}
		l.quiescing = false
		l.newCycle(now)
		if l.resetAfterQuiesce {
			l.resetAfterQuiesce = false
			return latencyFinalRun
		}
		return latencyContinue
	}
	if now-l.cycleStart < l.window {
		return latencyContinue
	}
	// A window without a completed IO has a NaN share and fails, as in
	// fio: its IOs take longer than the window.
	met := 100 * float64(l.cycleIOs-l.missed) / float64(l.cycleIOs)
	if !(met >= l.percentile) {
		// At depth 1 there is nowhere to go: as in fio the window is
		// not restarted, so it grows and is judged again, with every
		// IO since it began, until enough of them met the target.
		if l.lower() {
			l.newCycle(now)
		}
		return latencyContinue
	}
	judged := l.depth
	l.low = l.depth
	if l.depth+1 == l.high {
		if l.stable++; l.stable >= 3 {
			l.high++
			l.stable = 0
		}
	}
	if l.high != l.maxDepth {
		l.depth = (l.depth + l.high) / 2
	} else {
		l.depth *= 2 // nothing failed yet: keep doubling
	}
	l.depth = min(l.depth, l.maxDepth)
	if !l.keepRunning && l.depth == judged {
		if l.finalRun {
			return latencyDone
		}
		l.finalRun = true
		l.quiescing, l.resetAfterQuiesce = true, true
		return latencyContinue
	}
	l.newCycle(now)
	return latencyContinue
}
