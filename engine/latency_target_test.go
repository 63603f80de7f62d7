//go:build linux

package engine

import (
	"strings"
	"testing"
	"time"
)

// simulateLatencySearch drives a search on a modelled device: every turn
// issues what the search allows, and each IO completes with the latency
// the model gives for the depth it was issued at (the device's queue). It
// returns the depths judged, in order, and whether the search ended.
func simulateLatencySearch(t *testing.T, l *latencySearch, latencyAt func(depth, i int) time.Duration, turns int) (depths []int, done bool) {
	t.Helper()
	now := l.cycleStart // a search driven again goes on from where it was
	for range turns {
		n := l.room(0)
		worst := time.Duration(0)
		for i := range n {
			lat := latencyAt(n, i)
			worst = max(worst, lat)
			if !l.observe(int64(lat)) {
				t.Fatalf("the search failed the job at depth %d", l.depth)
			}
		}
		now += int64(max(worst, time.Microsecond))
		before := l.depth
		switch l.turn(now, 0) {
		case latencyDone:
			return depths, true
		case latencyFinalRun:
			if l.depth != before {
				t.Fatalf("final run at depth %d after judging %d", l.depth, before)
			}
		}
		if len(depths) == 0 || depths[len(depths)-1] != l.depth {
			depths = append(depths, l.depth)
		}
	}
	return depths, false
}

func searchFor(target, window time.Duration, percentile float64, maxDepth int) *latencySearch {
	j := defaultJob()
	j.LatencyTarget, j.LatencyWindow, j.LatencyPercentile = target, window, percentile
	return newLatencySearch(&j, maxDepth)
}

func TestLatencySearchDoublesThenBisectsToTheDeepestDepthMeetingTheTarget(t *testing.T) {
	// 100 µs per IO in the queue: depth 4 meets 450 µs, depth 5 does not.
	perIO := func(depth, _ int) time.Duration { return time.Duration(depth) * 100 * time.Microsecond }
	l := searchFor(450*time.Microsecond, time.Millisecond, 100, 32)
	depths, done := simulateLatencySearch(t, l, perIO, 10000)
	if !done || l.depth != 4 {
		t.Fatalf("search ended %v at depth %d (path %v), want depth 4", done, l.depth, depths)
	}
	// fio's path: 1, 2, 4, 8 (fails), (8+4)/2 = 6 (fails), 5 (fails),
	// then (5+4)/2 = 4 holds and stays.
	if want := []int{1, 2, 4, 8, 6, 5, 4}; !equalInts(depths, want) {
		t.Fatalf("depths %v, want fio's %v", depths, want)
	}
}

func TestLatencySearchWithPercentileCountsTheShareOfIOsMeetingTheTarget(t *testing.T) {
	// At depth d, d*d/64 of a turn's d IOs are slow: none up to depth 7,
	// from depth 8 on more than 5 % (1 of 8, 1 of 11, 2 of 12, ...). With
	// 95 % required, 7 is the deepest that holds; each turn is a window.
	slow := func(depth, i int) time.Duration {
		if i < depth*depth/64 {
			return time.Second
		}
		return time.Microsecond
	}
	l := searchFor(time.Millisecond, time.Microsecond, 95, 64)
	depths, done := simulateLatencySearch(t, l, slow, 10000)
	if !done || l.depth != 7 {
		t.Fatalf("ended %v at depth %d (path %v), want 7", done, l.depth, depths)
	}
}

func TestLatencySearchReachesIODepthWhenNothingFails(t *testing.T) {
	l := searchFor(time.Second, time.Millisecond, 100, 24)
	depths, done := simulateLatencySearch(t, l, func(int, int) time.Duration { return time.Microsecond }, 10000)
	if !done || l.depth != 24 {
		t.Fatalf("ended %v at %d (path %v), want iodepth 24", done, l.depth, depths)
	}
}

func TestLatencySearchFailsTheJobWhenDepthOneMissesEveryIOTarget(t *testing.T) {
	l := searchFor(time.Millisecond, time.Second, 100, 8)
	if l.room(0) != 1 || !l.observe(int64(time.Microsecond)) {
		t.Fatal("a fast IO at depth 1 fails")
	}
	if l.observe(int64(2 * time.Millisecond)) {
		t.Fatal("an IO over the target at depth 1, with every IO required, does not fail the job")
	}
	// Below 100 % a slow window at depth 1 keeps searching there.
	l = searchFor(time.Millisecond, time.Microsecond, 50, 8)
	if !l.observe(int64(time.Second)) || l.turn(int64(time.Second), 0) != latencyContinue || l.depth != 1 {
		t.Fatalf("a slow window at depth 1 with percentile 50: depth %d", l.depth)
	}
}

func TestLatencySearchQuiescesBeforeJudgingALowerDepth(t *testing.T) {
	l := searchFor(time.Millisecond, time.Microsecond, 100, 16)
	l.depth, l.low = 8, 4
	if !l.observe(int64(time.Second)) || l.depth != 6 || l.room(0) != 0 {
		t.Fatalf("after a miss at 8: depth %d, room %d; want 6 and nothing issued", l.depth, l.room(0))
	}
	// IOs of the deeper queue complete while quiescing: not judged.
	if !l.observe(int64(time.Second)) || l.depth != 6 {
		t.Fatalf("a late IO of depth 8 was judged against depth 6: depth %d", l.depth)
	}
	l.turn(10, 3)
	if l.room(3) != 0 {
		t.Fatal("issuing while IOs of the deeper queue are in flight")
	}
	l.turn(20, 0)
	if l.room(0) != 6 || l.cycleStart != 20 {
		t.Fatalf("after the quiesce: room %d, window from %d; want 6 from 20", l.room(0), l.cycleStart)
	}
}

func TestLatencyRunKeepsSearching(t *testing.T) {
	j := defaultJob()
	j.LatencyTarget, j.LatencyWindow, j.LatencyRun = 450*time.Microsecond, time.Millisecond, true
	l := newLatencySearch(&j, 32)
	_, done := simulateLatencySearch(t, l, func(depth, _ int) time.Duration { return time.Duration(depth) * 100 * time.Microsecond }, 2000)
	// It keeps trying one deeper than the deepest that held (fio's
	// heuristic), so it is at 4 or probing 5.
	if done || l.low != 4 || (l.depth != 4 && l.depth != 5) {
		t.Fatalf("latency_run: ended %v at depth %d (deepest held %d), want still running at 4 or 5 above 4", done, l.depth, l.low)
	}
}

func TestLatencyRunCreepsBackUpWhenTheStorageGetsFaster(t *testing.T) {
	j := defaultJob()
	j.LatencyTarget, j.LatencyWindow, j.LatencyRun = 450*time.Microsecond, time.Millisecond, true
	l := newLatencySearch(&j, 32)
	slow := func(depth, _ int) time.Duration { return time.Duration(depth) * 100 * time.Microsecond }
	if _, done := simulateLatencySearch(t, l, slow, 2000); done || l.low != 4 {
		t.Fatalf("deepest depth that held %d (at %d, ended %v), want 4", l.low, l.depth, done)
	}
	// Twice as fast now: depth 9 meets the target (450 µs), 10 does not.
	// fio raises the failed bound by one after three good windows in a
	// row one below it, so the depth climbs again instead of staying at
	// 4 for good.
	fast := func(depth, _ int) time.Duration { return time.Duration(depth) * 50 * time.Microsecond }
	if _, done := simulateLatencySearch(t, l, fast, 2000); done || l.low != 9 {
		t.Fatalf("after the storage got faster: deepest that held %d (at %d, ended %v), want 9", l.low, l.depth, done)
	}
}

func TestLatencySearchJudgesAGrowingWindowAtDepthOne(t *testing.T) {
	// Half the IOs are required to meet the target: a first window of
	// one slow IO fails at depth 1, and fio then keeps that window
	// going, so three fast IOs later three of four met it and it holds.
	l := searchFor(time.Millisecond, time.Microsecond, 50, 8)
	l.observe(int64(time.Second))
	if l.turn(10_000, 0) != latencyContinue || l.depth != 1 || l.cycleStart != 0 {
		t.Fatalf("a failed window at depth 1: depth %d, window from %d; want 1 from 0", l.depth, l.cycleStart)
	}
	for range 3 {
		l.observe(int64(time.Microsecond))
	}
	if l.turn(20_000, 0); l.depth != 2 {
		t.Fatalf("3 of 4 IOs met the target since the window began: depth %d, want 2", l.depth)
	}
}

func TestLatencyTargetOptions(t *testing.T) {
	jobs, _, err := ParseArgs([]string{"--name=a", "--size=1m", "--iodepth=16", "--latency_target=500", "--latency_window=200ms", "--latency_percentile=99.9", "--latency_run"})
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if j.LatencyTarget != 500*time.Microsecond || j.LatencyWindow != 200*time.Millisecond || j.LatencyPercentile != 99.9 || !j.LatencyRun {
		t.Fatalf("parsed %v %v %v %v", j.LatencyTarget, j.LatencyWindow, j.LatencyPercentile, j.LatencyRun)
	}
	if d := defaultJob(); d.LatencyPercentile != 100 {
		t.Fatalf("default latency_percentile %v, want fio's 100", d.LatencyPercentile)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--latency_target=fast"}, "latency_target"},
		{[]string{"--latency_percentile=101"}, "not a percentage between 0 and 100"},
		{[]string{"--latency_percentile=NaN"}, "not a percentage"},
		{[]string{"--latency_target=1ms"}, "latency_window: latency_target=1ms needs a window"},
		{[]string{"--latency_target=1ms", "--latency_window=2d"}, "more than 24h0m0s"},
		{[]string{"--latency_target=1ms", "--latency_window=1s", "--rate_iops=100"}, "not with rate or rate_iops"},
		{[]string{"--ss_dur=500ms"}, "less than one 1s sample"},
		{[]string{"--ss_dur=2d"}, "more than 86400 samples"},
		{[]string{"--ss=bogus:1%", "--ss_dur=5"}, "unknown criterion"},
	} {
		args := append([]string{"--name=a", "--size=1m"}, tc.args...)
		jobs, _, err := ParseArgs(args)
		if err == nil {
			err = validateJobs(jobs)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
