package controllers

import (
	"sort"
	"time"

	"github.com/robfig/cron/v3"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// maxMissedRuns bounds the search for the latest missed scheduled time
// after a long outage: an @every 1m schedule missed for a year would
// otherwise iterate half a million times in one pass.
const maxMissedRuns = 100_000

// scheduledRun is what the decision needs to know of one run.
type scheduledRun struct {
	name      string
	scheduled time.Time
	// outcome: runActive, runSucceeded or runFailed.
	outcome runOutcome
	// deleting: the run is being deleted (Replace stops an active run in
	// the foreground: it stays until its pods are gone).
	deleting bool
}

type runOutcome int

const (
	runActive runOutcome = iota
	runSucceeded
	runFailed
)

// scheduleInput is everything decideSchedule reads.
type scheduleInput struct {
	now      time.Time
	schedule cron.Schedule
	location *time.Location
	// since is the latest scheduled time already handled (status'
	// lastScheduleTime), else the schedule's creation.
	since             time.Time
	startingDeadline  *time.Duration
	suspended         bool
	concurrency       sbv1.ConcurrencyPolicy
	successfulToKeep  int
	failedToKeep      int
	runs              []scheduledRun
	existingRunOfTime func(time.Time) bool
}

// scheduleDecision is what a pass does.
type scheduleDecision struct {
	// create is the scheduled time of the run to create now, if one.
	create *time.Time
	// handled is the latest scheduled time dealt with (created, found
	// created, or skipped past its deadline): lastScheduleTime.
	handled *time.Time
	// stop are active runs Replace deletes before creating the new one.
	stop []string
	// trim are completed runs beyond the history limits, oldest first.
	trim []string
	// skipped says why a due run was not created (for an event); empty if
	// none was skipped.
	skipped string
	// waiting: a due run waits for the active one (Forbid).
	waiting bool
	// next is the next scheduled time after now (zero when suspended).
	next time.Time
}

// decideSchedule is the schedule's whole policy, as the CronJob controller
// has it: the latest scheduled time not yet handled runs (earlier missed
// ones are not made up), unless it is past startingDeadlineSeconds, the
// schedule is suspended, or a run is active and the policy is Forbid (the
// due run then starts when the active one ends, if still within its
// deadline). Runs are named after their scheduled time, so a pass repeated
// after a restart finds the run it created instead of creating another.
func decideSchedule(in scheduleInput) scheduleDecision {
	var d scheduleDecision
	d.trim = runsBeyondLimits(in.runs, in.successfulToKeep, in.failedToKeep)
	if in.suspended {
		return d
	}
	local := in.now.In(in.location)
	due, ok, next := scheduledTimes(in.schedule, in.since.In(in.location), local)
	d.next = next
	if !ok {
		return d
	}
	if in.existingRunOfTime(due) {
		d.handled = &due
		return d
	}
	if in.startingDeadline != nil && in.now.Sub(due) > *in.startingDeadline {
		d.handled = &due
		d.skipped = "the run due at " + due.UTC().Format(time.RFC3339) + " missed its starting deadline of " + in.startingDeadline.String()
		return d
	}
	if stopping(in.runs) {
		// A replaced run's pods may still do IO: the due run waits.
		d.waiting = true
		return d
	}
	if active := activeRuns(in.runs); len(active) > 0 {
		if in.concurrency == sbv1.ReplaceConcurrent {
			// Stopped now, replaced once they are gone (a later pass).
			d.stop = active
		}
		d.waiting = true
		return d
	}
	d.create, d.handled = &due, &due
	return d
}

// stopping reports whether an active run is being deleted.
func stopping(runs []scheduledRun) bool {
	for _, r := range runs {
		if r.deleting && r.outcome == runActive {
			return true
		}
	}
	return false
}

// scheduledTimes walks the schedule's times from since: the latest one in
// (since, now], if any, and the first one after now. Counting from since
// (not from now) keeps "@every" schedules on the times their runs get.
func scheduledTimes(s cron.Schedule, since, now time.Time) (due time.Time, found bool, next time.Time) {
	first := s.Next(since)
	t := first
	for n := 0; !t.IsZero() && !t.After(now); n++ {
		due, found = t, true
		if n == maxMissedRuns {
			// Too far behind to walk on: jump ahead by whole intervals
			// (as walked so far, which keeps an @every schedule's phase)
			// to a few intervals before now, and walk from there, so that
			// the time found is still the latest one.
			interval := t.Sub(first) / time.Duration(n)
			skip := now.Sub(t)/interval - 4
			if interval <= 0 || skip <= 0 {
				return due, found, s.Next(now)
			}
			return scheduledTimes(s, t.Add(skip*interval), now)
		}
		t = s.Next(t)
	}
	// t is zero for a schedule that never fires again (e.g. 30 February).
	return due, found, t
}

func activeRuns(runs []scheduledRun) []string {
	var out []string
	for _, r := range runs {
		if r.outcome == runActive && !r.deleting {
			out = append(out, r.name)
		}
	}
	return out
}

// runsBeyondLimits are the completed runs older than the newest
// successfulToKeep successful and failedToKeep failed ones. The newest
// completed run is always kept, whatever the limits: status, Drifted and
// the metrics describe it.
func runsBeyondLimits(runs []scheduledRun, successfulToKeep, failedToKeep int) []string {
	sorted := make([]scheduledRun, 0, len(runs))
	for _, r := range runs {
		if !r.deleting {
			sorted = append(sorted, r)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].scheduled.After(sorted[j].scheduled) })
	kept := map[runOutcome]int{}
	limit := map[runOutcome]int{runSucceeded: successfulToKeep, runFailed: failedToKeep}
	var out []string
	newestKept := false
	for _, r := range sorted {
		if r.outcome == runActive {
			continue
		}
		if !newestKept {
			newestKept = true
			kept[r.outcome]++
			continue
		}
		if kept[r.outcome] < limit[r.outcome] {
			kept[r.outcome]++
			continue
		}
		out = append(out, r.name)
	}
	// Oldest first: a pass cut short by an error has removed the oldest.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
