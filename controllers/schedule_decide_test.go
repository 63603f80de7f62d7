package controllers

import (
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

var scheduleEpoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func minute(minutes float64) time.Time {
	return scheduleEpoch.Add(time.Duration(minutes * float64(time.Minute)))
}

// everyTenMinutes is a schedule input at now, created at the epoch, with
// the given runs (their names are their scheduled minute).
func everyTenMinutes(t *testing.T, now time.Time, runs ...scheduledRun) scheduleInput {
	t.Helper()
	sched, err := cron.ParseStandard("*/10 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	return scheduleInput{
		now: now, schedule: sched, location: time.UTC, since: scheduleEpoch, concurrency: sbv1.ForbidConcurrent,
		successfulToKeep: 3, failedToKeep: 1, runs: runs,
		existingRunOfTime: func(tm time.Time) bool {
			for _, r := range runs {
				if r.scheduled.Equal(tm) {
					return true
				}
			}
			return false
		},
	}
}

func run(name string, m float64, o runOutcome) scheduledRun {
	return scheduledRun{name: name, scheduled: minute(m), outcome: o}
}

func TestScheduleCreatesTheDueRunOnce(t *testing.T) {
	in := everyTenMinutes(t, minute(5))
	if d := decideSchedule(in); d.create != nil || !d.next.Equal(minute(10)) {
		t.Fatalf("before the first time: create %v, next %v; want none and 10:10", d.create, d.next)
	}
	in = everyTenMinutes(t, minute(10.5))
	d := decideSchedule(in)
	if d.create == nil || !d.create.Equal(minute(10)) || !d.handled.Equal(minute(10)) || !d.next.Equal(minute(20)) {
		t.Fatalf("at 10:10:30: create %v handled %v next %v; want the 10:10 run, next 10:20", d.create, d.handled, d.next)
	}
	// A restarted manager that lost its status write finds the run by
	// its name and creates no second one.
	in = everyTenMinutes(t, minute(10.6), run("r10", 10, runActive))
	if d := decideSchedule(in); d.create != nil || !d.handled.Equal(minute(10)) {
		t.Fatalf("with the run existing: create %v handled %v; want none, handled 10:10", d.create, d.handled)
	}
}

func TestScheduleMakesUpOnlyTheLatestMissedRun(t *testing.T) {
	in := everyTenMinutes(t, minute(75)) // the manager was down since 10:00
	d := decideSchedule(in)
	if d.create == nil || !d.create.Equal(minute(70)) {
		t.Fatalf("after missing 7 times: create %v, want only the 11:10 run", d.create)
	}
}

func TestStartingDeadlineSkipsALateRun(t *testing.T) {
	deadline := 2 * time.Minute
	in := everyTenMinutes(t, minute(13))
	in.startingDeadline = &deadline
	d := decideSchedule(in)
	if d.create != nil || d.handled == nil || !d.handled.Equal(minute(10)) || !strings.Contains(d.skipped, "starting deadline of 2m0s") {
		t.Fatalf("3 min late with a 2 min deadline: create %v handled %v skipped %q", d.create, d.handled, d.skipped)
	}
	in = everyTenMinutes(t, minute(11.5))
	in.startingDeadline = &deadline
	if d := decideSchedule(in); d.create == nil {
		t.Fatal("1.5 min late with a 2 min deadline: the run must start")
	}
}

func TestForbidHoldsTheDueRunUntilTheActiveOneEnds(t *testing.T) {
	in := everyTenMinutes(t, minute(20.2), run("r10", 10, runActive))
	in.since = minute(10)
	d := decideSchedule(in)
	if d.create != nil || !d.waiting || d.handled != nil {
		t.Fatalf("Forbid with a run active: create %v waiting %v handled %v", d.create, d.waiting, d.handled)
	}
	// The active run ended at 10:23: the held-back 10:20 run starts.
	in = everyTenMinutes(t, minute(23), run("r10", 10, runSucceeded))
	in.since = minute(10)
	if d := decideSchedule(in); d.create == nil || !d.create.Equal(minute(20)) {
		t.Fatalf("after the active run ended: create %v, want the 10:20 run", d.create)
	}
}

func TestReplaceStopsTheActiveRunAndStartsOnceItIsGone(t *testing.T) {
	in := everyTenMinutes(t, minute(20.2), run("r10", 10, runActive), run("r0", 0, runSucceeded))
	in.since, in.concurrency = minute(10), sbv1.ReplaceConcurrent
	d := decideSchedule(in)
	if d.create != nil || len(d.stop) != 1 || d.stop[0] != "r10" || !d.waiting || d.handled != nil {
		t.Fatalf("Replace: create %v stop %v waiting %v: want r10 stopped and the 10:20 run held", d.create, d.stop, d.waiting)
	}
	// While r10 is being deleted (its pods may still do IO), nothing starts.
	deleting := run("r10", 10, runActive)
	deleting.deleting = true
	in = everyTenMinutes(t, minute(20.4), deleting, run("r0", 0, runSucceeded))
	in.since, in.concurrency = minute(10), sbv1.ReplaceConcurrent
	if d := decideSchedule(in); d.create != nil || len(d.stop) != 0 || !d.waiting {
		t.Fatalf("while r10 is deleted: create %v stop %v waiting %v", d.create, d.stop, d.waiting)
	}
	// Gone: the 10:20 run starts.
	in = everyTenMinutes(t, minute(20.6), run("r0", 0, runSucceeded))
	in.since, in.concurrency = minute(10), sbv1.ReplaceConcurrent
	if d := decideSchedule(in); d.create == nil || !d.create.Equal(minute(20)) {
		t.Fatalf("after r10 is gone: create %v", d.create)
	}
}

func TestSuspendedCreatesNothingButStillTrims(t *testing.T) {
	in := everyTenMinutes(t, minute(30), run("a", 0, runFailed), run("b", 10, runFailed))
	in.suspended = true
	d := decideSchedule(in)
	if d.create != nil || !d.next.IsZero() || len(d.trim) != 1 || d.trim[0] != "a" {
		t.Fatalf("suspended: create %v next %v trim %v; want nothing, no next, trim a", d.create, d.next, d.trim)
	}
}

func TestHistoryLimitsKeepTheNewestOfEachOutcome(t *testing.T) {
	runs := []scheduledRun{
		run("s1", 0, runSucceeded), run("s2", 10, runSucceeded), run("f1", 20, runFailed), run("s3", 30, runSucceeded),
		run("f2", 40, runFailed), run("s4", 50, runSucceeded), run("s5", 60, runSucceeded), run("act", 70, runActive),
	}
	got := runsBeyondLimits(runs, 3, 1)
	if strings.Join(got, ",") != "s1,s2,f1" {
		t.Errorf("trimmed %v, want s1,s2,f1 (oldest first; the active run is never trimmed)", got)
	}
	// Limits of 0 still keep the newest completed run: status, Drifted
	// and the metrics describe it.
	if got := runsBeyondLimits(runs, 0, 0); strings.Join(got, ",") != "s1,s2,f1,s3,f2,s4" {
		t.Errorf("limits 0: trimmed %v, want every completed run but the newest (s5)", got)
	}
}

func TestATimeZoneMovesTheSchedule(t *testing.T) {
	sched, err := cron.ParseStandard("0 9 * * *")
	if err != nil {
		t.Fatal(err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	in := everyTenMinutes(t, time.Date(2026, 12, 2, 8, 0, 30, 0, time.UTC)) // 09:00:30 in Berlin
	in.schedule, in.location, in.since = sched, berlin, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	d := decideSchedule(in)
	if d.create == nil || !d.create.Equal(time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)) {
		t.Fatalf("09:00 Berlin: create %v, want 08:00 UTC", d.create)
	}
}

func TestAnEveryScheduleCountsFromItsLastTimeNotFromNow(t *testing.T) {
	sched, err := cron.ParseStandard("@every 24h")
	if err != nil {
		t.Fatal(err)
	}
	in := everyTenMinutes(t, minute(300)) // 5 hours after since
	in.schedule = sched
	if d := decideSchedule(in); d.create != nil || !d.next.Equal(minute(24*60)) {
		t.Fatalf("create %v, next %v: want none, and since + 24h", d.create, d.next)
	}
}

func TestAScheduleFarBehindStillRunsOnlyItsLatestTime(t *testing.T) {
	sched, err := cron.ParseStandard("@every 1m")
	if err != nil {
		t.Fatal(err)
	}
	// Down for a year: half a million missed minutes, more than the walk
	// takes; the run made up is still the latest one.
	now := scheduleEpoch.Add(365 * 24 * time.Hour).Add(30 * time.Second)
	due, found, next := scheduledTimes(sched, scheduleEpoch, now)
	if !found || !due.Equal(now.Add(-30*time.Second)) || !next.Equal(due.Add(time.Minute)) {
		t.Fatalf("due %v (found %v), next %v; want %v and a minute later", due, found, next, now.Add(-30*time.Second))
	}
}
