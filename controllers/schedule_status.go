package controllers

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// Schedule condition reasons.
const (
	ReasonScheduled    = "Scheduled"
	ReasonRunActive    = "RunActive"
	ReasonLatestPassed = "LatestRunPassed"
	ReasonLatestFailed = "LatestRunFailed"
	ReasonLatestUnsure = "LatestRunInconclusive"
	ReasonDrifted      = "Drifted"
	ReasonNoDrift      = "NoDrift"
)

// runOutcomeOf says whether a run is still going, passed or failed.
func runOutcomeOf(b *sbv1.StorageBenchmark) runOutcome {
	if !b.RunCompleted() {
		return runActive
	}
	if b.Status.Verdict == sbv1.VerdictPassed && !meta.IsStatusConditionTrue(b.Status.Conditions, sbv1.ConditionStalled) {
		return runSucceeded
	}
	return runFailed
}

// verdictOf is a completed run's verdict; a run that failed to run has
// none of its own and counts as Failed.
func verdictOf(b *sbv1.StorageBenchmark) sbv1.Verdict {
	if b.Status.Verdict == "" {
		return sbv1.VerdictFailed
	}
	return b.Status.Verdict
}

// scheduleStatus is the schedule's status from its runs (newest first is
// the order it lists them in) and the decision of this pass.
func scheduleStatus(s *sbv1.StorageBenchmarkSchedule, runs []*sbv1.StorageBenchmark, d scheduleDecision) sbv1.StorageBenchmarkScheduleStatus {
	st := *s.Status.DeepCopy()
	st.ObservedGeneration = s.Generation
	if d.handled != nil && (st.LastScheduleTime == nil || d.handled.After(st.LastScheduleTime.Time)) {
		t := metav1.NewTime(*d.handled)
		st.LastScheduleTime = &t
	}
	st.NextScheduleTime = nil
	if !d.next.IsZero() {
		t := metav1.NewTime(d.next)
		st.NextScheduleTime = &t
	}
	sorted := append([]*sbv1.StorageBenchmark(nil), runs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ScheduledTime().After(sorted[j].ScheduledTime()) })
	st.Runs, st.Active = nil, ""
	var latest *sbv1.StorageBenchmark
	for _, b := range sorted {
		if !b.DeletionTimestamp.IsZero() {
			continue // trimmed, or replaced
		}
		outcome := runOutcomeOf(b)
		if outcome == runActive && st.Active == "" {
			st.Active = b.Name
		}
		if outcome != runActive && latest == nil {
			latest = b
		}
		if outcome == runSucceeded && b.Status.CompletionTime != nil &&
			(st.LastSuccessfulTime == nil || b.Status.CompletionTime.After(st.LastSuccessfulTime.Time)) {
			st.LastSuccessfulTime = b.Status.CompletionTime.DeepCopy()
		}
		if len(st.Runs) < sbv1.MaxRecentRuns {
			st.Runs = append(st.Runs, scheduledRunOf(b, outcome))
		}
	}
	if latest != nil {
		st.LastVerdict = verdictOf(latest)
	}
	setScheduleConditions(&st, s.Generation, s.Spec.Suspend != nil && *s.Spec.Suspend, latest, d)
	return st
}

func scheduledRunOf(b *sbv1.StorageBenchmark, outcome runOutcome) sbv1.ScheduledRun {
	run := sbv1.ScheduledRun{Name: b.Name, ScheduledTime: metav1.NewTime(b.ScheduledTime())}
	if outcome == runActive {
		return run
	}
	run.CompletionTime = b.Status.CompletionTime.DeepCopy()
	run.Verdict = verdictOf(b)
	run.Drifted = len(drifts(b)) > 0
	metadata := map[string]bool{}
	for _, c := range b.Spec.Cells() {
		metadata[c.Name] = c.IsMetadata()
	}
	for _, t := range b.Status.Targets {
		h := sbv1.TargetHeadline{Name: t.Name}
		var logSum float64
		n := 0
		for _, c := range t.Cells {
			var iops float64
			if _, err := fmt.Sscan(c.IOPS, &iops); err != nil || iops <= 0 || metadata[c.Name] {
				continue
			}
			logSum += math.Log(iops)
			n++
		}
		if n > 0 {
			h.GeomeanIOPS = results.Decimal(math.Exp(logSum/float64(n)), 1)
		}
		run.Targets = append(run.Targets, h)
	}
	return run
}

// drifts are the violations of a run's thresholds that compare with
// earlier runs.
func drifts(b *sbv1.StorageBenchmark) []sbv1.Violation {
	history := map[string]bool{}
	for i := range b.Spec.Thresholds {
		if th := &b.Spec.Thresholds[i]; th.MaxRegression.AgainstHistory() {
			history[results.ThresholdName(th, i)] = true
		}
	}
	var out []sbv1.Violation
	for _, v := range b.Status.Violations {
		// The threshold's regression, not its other limits (they carry
		// no reference value).
		if history[v.Threshold] && v.ReferenceValue != "" && strings.HasSuffix(v.Metric, "RegressionPercent") {
			out = append(out, v)
		}
	}
	return out
}

// driftMessage names each drift: target, cell, metric, then and now.
func driftMessage(run string, ds []sbv1.Violation) string {
	parts := make([]string, 0, len(ds))
	for _, v := range ds {
		parts = append(parts, fmt.Sprintf("target %s, cell %s: %s %s%% (limit %s%%), then %s, now %s",
			v.Target, v.Cell, v.Metric, v.Measured, v.Limit, v.ReferenceValue, v.Value))
	}
	return fmt.Sprintf("run %s drifted: %s", run, strings.Join(parts, "; "))
}

// setScheduleConditions: Reconciling while a run is active, Ready and
// Stalled from the latest completed run's verdict, Drifted from its
// history thresholds.
func setScheduleConditions(st *sbv1.StorageBenchmarkScheduleStatus, generation int64, suspended bool, latest *sbv1.StorageBenchmark, d scheduleDecision) {
	set := func(t string, status metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason,
			Message: truncate(message, maxConditionMessage), ObservedGeneration: generation})
	}
	if st.Active != "" {
		set(sbv1.ConditionReconciling, metav1.ConditionTrue, ReasonRunActive, "run "+st.Active+" is in progress")
	} else {
		meta.RemoveStatusCondition(&st.Conditions, sbv1.ConditionReconciling)
	}
	next := "no next run: the schedule never fires again"
	switch {
	case suspended:
		next = "suspended"
	case !d.next.IsZero():
		next = "next run at " + d.next.UTC().Format(time.RFC3339)
	}
	switch {
	case latest == nil:
		set(sbv1.ConditionReady, metav1.ConditionTrue, ReasonScheduled, "no run completed yet; "+next)
		meta.RemoveStatusCondition(&st.Conditions, sbv1.ConditionStalled)
	case st.LastVerdict == sbv1.VerdictPassed:
		set(sbv1.ConditionReady, metav1.ConditionTrue, ReasonLatestPassed, "run "+latest.Name+" passed; "+next)
		meta.RemoveStatusCondition(&st.Conditions, sbv1.ConditionStalled)
	case st.LastVerdict == sbv1.VerdictInconclusive:
		set(sbv1.ConditionReady, metav1.ConditionFalse, ReasonLatestUnsure, "run "+latest.Name+" was inconclusive; "+next)
		meta.RemoveStatusCondition(&st.Conditions, sbv1.ConditionStalled)
	default:
		msg := "run " + latest.Name + " failed"
		if c := meta.FindStatusCondition(latest.Status.Conditions, sbv1.ConditionStalled); c != nil {
			msg += ": " + c.Message
		}
		set(sbv1.ConditionReady, metav1.ConditionFalse, ReasonLatestFailed, msg)
		set(sbv1.ConditionStalled, metav1.ConditionTrue, ReasonLatestFailed, msg)
	}
	if latest == nil {
		meta.RemoveStatusCondition(&st.Conditions, sbv1.ConditionDrifted)
		return
	}
	if ds := drifts(latest); len(ds) > 0 {
		set(sbv1.ConditionDrifted, metav1.ConditionTrue, ReasonDrifted, driftMessage(latest.Name, ds))
	} else {
		set(sbv1.ConditionDrifted, metav1.ConditionFalse, ReasonNoDrift, "run "+latest.Name+" broke no threshold that compares with earlier runs")
	}
}
