package controllers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

func TestFailRun(t *testing.T) {
	two := func(opts ...benchOption) *sbv1.StorageBenchmark {
		return newBenchmark(append([]benchOption{withTargets(classTarget("t0", "fast"), classTarget("t1", "slow"), classTarget("t2", "slow"))}, opts...)...)
	}
	long := strings.Repeat("x", 2000)
	for _, tc := range []struct {
		name    string
		bench   *sbv1.StorageBenchmark
		failure runFailure
		// states are the targets' "state: message" afterwards.
		states     []string
		conditions []string
	}{{
		name:    "the failing target is Failed with the cause, and the targets after it are marked as not run",
		bench:   two(withTarget("t1", provisioning(-time.Minute))),
		failure: runFailure{sbv1.ReasonClientFailed, "target t1: pod p failed"},
		states: []string{"Failed: not run: the run failed on target t1", "Failed: target t1: pod p failed",
			"Failed: not run: the run failed on target t1"},
		conditions: []string{"Stalled=True/ClientFailed", "Completed=True/ClientFailed", "Ready=False/ClientFailed"},
	}, {
		name:    "a target that succeeded before keeps its results",
		bench:   two(withTarget("t0", func(st *sbv1.TargetStatus) { st.State = sbv1.TargetSucceeded })),
		failure: runFailure{sbv1.ReasonVolumeNotBound, "target t1: claim(s) not bound"},
		states: []string{"Succeeded: ", "Failed: target t1: claim(s) not bound",
			"Failed: not run: the run failed on target t1"},
		conditions: []string{"Stalled=True/VolumeNotBound", "Completed=True/VolumeNotBound", "Ready=False/VolumeNotBound"},
	}, {
		name:    "a target started already is marked as stopped, not as not run",
		bench:   two(withTarget("t1", provisioning(-time.Minute)), withTarget("t2", provisioning(-time.Second))),
		failure: runFailure{sbv1.ReasonResultsUnreadable, "target t1: no client report in the log"},
		states: []string{"Failed: not run: the run failed on target t1", "Failed: target t1: no client report in the log",
			"Failed: stopped: the run failed on target t1"},
		conditions: []string{"Stalled=True/ResultsUnreadable", "Completed=True/ResultsUnreadable", "Ready=False/ResultsUnreadable"},
	}, {
		name:    "a long cause is cut to 1024 characters in the target's message, not in the conditions",
		bench:   two(),
		failure: runFailure{sbv1.ReasonResultsUnreadable, long},
		states: []string{"Failed: not run: the run failed on target t1", "Failed: " + long[:1021] + "...",
			"Failed: not run: the run failed on target t1"},
		conditions: []string{"Stalled=True/ResultsUnreadable", "Completed=True/ResultsUnreadable", "Ready=False/ResultsUnreadable"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.bench, nil)
			p := h.pass()
			failure := tc.failure
			h.r.failRun(p, h.snapshot(), h.target(p, "t1"), &failure)
			var states []string
			for _, st := range tc.bench.Status.Targets {
				states = append(states, fmt.Sprintf("%s: %s", st.State, st.Message))
			}
			if strings.Join(states, "\n") != strings.Join(tc.states, "\n") {
				t.Errorf("targets:\n  %s\nwant\n  %s", strings.Join(states, "\n  "), strings.Join(tc.states, "\n  "))
			}
			expectConditions(t, tc.bench, tc.conditions...)
			// Status bounds the message; the event carries the whole cause.
			if msg := conditionMessage(tc.bench, sbv1.ConditionStalled); msg != truncate(tc.failure.message, maxConditionMessage) {
				t.Errorf("Stalled message %q, want the cause, cut at %d bytes", msg, maxConditionMessage)
			}
			st := tc.bench.Status
			if st.CompletionTime == nil || !st.CompletionTime.Time.Equal(t0) || st.Progress == nil || st.Progress.CurrentTarget != "" {
				t.Errorf("completionTime %v, progress %+v", st.CompletionTime, st.Progress)
			}
			h.expectEvents([]string{"Warning " + tc.failure.reason + "/Fail"})
		})
	}
}

func TestStopFailedRun(t *testing.T) {
	b := newBenchmark(withClients(2))
	for _, tc := range []struct {
		name   string
		objs   []client.Object
		faults []fault
		outcome
	}{{
		name:    "clients still running are stopped",
		objs:    objects(jobsOf(b, "t1"), podsOf(b, "t1")),
		outcome: outcome{calls: []string{"delete Job/bench-t1-g1-c*", "delete Job/bench-t1-g1-c*"}},
	}, {
		name:    "a Job with a failed pod is kept for its log; the other is stopped",
		objs:    objects(jobsOf(b, "t1"), podsOf(b, "t1", onClient(1, failed(1, "boom")))),
		outcome: outcome{calls: []string{"delete Job/bench-t1-g1-c0"}},
	}, {
		name: "Jobs that completed or failed are left alone",
		objs: objects(jobsOf(b, "t1", jobComplete())[:1], jobsOf(b, "t1", jobFailed(batchv1.JobReasonBackoffLimitExceeded, ""))[1:]),
	}, {
		name: "Jobs already being deleted are not deleted again",
		objs: beingDeleted(jobsOf(b, "t1")),
	}, {
		name:   "a delete error is returned wrapped",
		objs:   jobsOf(b, "t1")[:1],
		faults: []fault{failing("delete", "Job", "", errInternal)},
		outcome: outcome{err: "deleting *v1.Job bench-t1-g1-c0", errIs: apierrors.IsInternalError,
			calls: []string{"delete Job/bench-t1-g1-c0"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, b.DeepCopy(), tc.objs, tc.faults...)
			err := h.r.stopFailedRun(context.Background(), h.b)
			h.expectErr(err, tc.outcome)
			h.expectCalls(tc.outcome.calls)
		})
	}
}

func TestFinishRun(t *testing.T) {
	stored := func(b *sbv1.StorageBenchmark) []client.Object {
		return one(resultsConfigMap(b, "t1", mergedResult(b, "t1", measuredStart)))
	}
	succeededTarget := withTarget("t1", func(st *sbv1.TargetStatus) { st.State = sbv1.TargetSucceeded })
	minIOPS := func(n int64) benchOption {
		return withSpec(func(s *sbv1.StorageBenchmarkSpec) {
			s.Thresholds = []sbv1.Threshold{{Name: "floor", Workload: "w", MinIOPS: ptr.To(n), Severity: sbv1.SeverityFail}}
		})
	}
	for _, tc := range []struct {
		name  string
		bench *sbv1.StorageBenchmark
		objs  func(b *sbv1.StorageBenchmark) []client.Object
		// onPass puts the target's results on the pass, as collect does.
		onPass bool
		// lagging leaves the results ConfigMap out of the snapshot, as a
		// cache that has not caught up does.
		lagging  bool
		finished bool
		verdict  sbv1.Verdict
		// conditions and events are checked when the run finished.
		conditions []string
		events     []string
		messageHas string
	}{{
		name:       "targets without thresholds pass: Completed and Ready, ThresholdsMet with NoThresholds",
		bench:      newBenchmark(succeededTarget),
		onPass:     true,
		finished:   true,
		verdict:    sbv1.VerdictPassed,
		conditions: []string{"Completed=True/Succeeded", "ThresholdsMet=True/NoThresholds", "Ready=True/NoThresholds"},
		events:     []string{"Normal NoThresholds/Complete"},
		messageHas: "1 target(s) measured in 1m0s; verdict Passed",
	}, {
		name:       "a threshold met makes the run Ready",
		bench:      newBenchmark(succeededTarget, minIOPS(1)),
		onPass:     true,
		finished:   true,
		verdict:    sbv1.VerdictPassed,
		conditions: []string{"Completed=True/Succeeded", "ThresholdsMet=True/ThresholdsPassed", "Ready=True/ThresholdsPassed"},
		events:     []string{"Normal ThresholdsPassed/Complete"},
		messageHas: "1 target(s) measured in 1m0s; verdict Passed",
	}, {
		name:       "a threshold failed completes the run Stalled, naming the violation",
		bench:      newBenchmark(succeededTarget, minIOPS(1_000_000)),
		onPass:     true,
		finished:   true,
		verdict:    sbv1.VerdictFailed,
		conditions: []string{"Completed=True/Succeeded", "ThresholdsMet=False/ThresholdsFailed", "Ready=False/ThresholdsFailed", "Stalled=True/ThresholdsFailed"},
		events:     []string{"Warning ThresholdsFailed/Complete"},
		messageHas: "1 target(s) measured in 1m0s; verdict Failed",
	}, {
		name:       "a status without a start time finishes without a duration instead of panicking",
		bench:      newBenchmark(succeededTarget, withStatus(func(st *sbv1.StorageBenchmarkStatus) { st.StartTime = nil })),
		onPass:     true,
		finished:   true,
		verdict:    sbv1.VerdictPassed,
		conditions: []string{"Completed=True/Succeeded", "ThresholdsMet=True/NoThresholds", "Ready=True/NoThresholds"},
		events:     []string{"Normal NoThresholds/Complete"},
		messageHas: "1 target(s) measured; verdict Passed",
	}, {
		name:       "results are read from the stored ConfigMaps when the pass has none",
		bench:      newBenchmark(succeededTarget),
		objs:       stored,
		finished:   true,
		verdict:    sbv1.VerdictPassed,
		conditions: []string{"Completed=True/Succeeded", "ThresholdsMet=True/NoThresholds", "Ready=True/NoThresholds"},
		events:     []string{"Normal NoThresholds/Complete"},
	}, {
		name:  "stored results that do not decode fail the run naming the ConfigMap, rather than waiting forever",
		bench: newBenchmark(succeededTarget),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			cm := resultsConfigMap(b, "t1", mergedResult(b, "t1", measuredStart))
			cm.Data[results.StoredKey] = "{not json"
			return one(cm)
		},
		finished:   true,
		conditions: []string{"Stalled=True/ResultsUnreadable", "Completed=True/ResultsUnreadable", "Ready=False/ResultsUnreadable"},
		events:     []string{"Warning ResultsUnreadable/Fail"},
		messageHas: "target t1: configmap bench-t1-results: reading stored results",
	}, {
		name:       "results the cache does not show yet (the API server has them) leave the run unfinished and its status untouched",
		bench:      newBenchmark(succeededTarget),
		objs:       stored,
		lagging:    true,
		conditions: running,
	}, {
		name:       "results that are gone while status says the target succeeded fail the run naming the ConfigMap, rather than waiting forever",
		bench:      newBenchmark(succeededTarget),
		finished:   true,
		conditions: []string{"Stalled=True/ResultsUnreadable", "Completed=True/ResultsUnreadable", "Ready=False/ResultsUnreadable"},
		events:     []string{"Warning ResultsUnreadable/Fail"},
		messageHas: "target t1: its results configmap bench-t1-results is gone",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []client.Object
			if tc.objs != nil {
				objs = tc.objs(tc.bench)
			}
			h := newHarness(t, tc.bench, objs)
			s := h.snapshot()
			if tc.lagging {
				delete(s.configMaps, "bench-t1-results")
			}
			p := h.pass()
			if tc.onPass {
				p.targetResults["t1"] = mergedResult(tc.bench, "t1", measuredStart)
			}
			before := tc.bench.DeepCopy()
			finished, err := h.r.finishRun(context.Background(), p, s)
			if err != nil {
				t.Fatal(err)
			}
			if finished != tc.finished {
				t.Fatalf("finished %v, want %v", finished, tc.finished)
			}
			expectConditions(t, tc.bench, tc.conditions...)
			if !finished {
				if tc.bench.Status.CompletionTime != nil || tc.bench.Status.Verdict != before.Status.Verdict || len(p.events) != 0 {
					t.Errorf("an unfinished run changed status or queued events: %+v, %v", tc.bench.Status, p.events)
				}
				return
			}
			st := tc.bench.Status
			if tc.verdict == "" { // the run failed instead
				if ts := targetStatus(tc.bench, "t1"); ts.State != sbv1.TargetFailed || st.Verdict != "" || st.Comparison != nil ||
					!strings.Contains(ts.Message, tc.messageHas) {
					t.Errorf("verdict %q, comparison %v, target %+v", st.Verdict, st.Comparison, ts)
				}
				h.expectEvents(tc.events)
				return
			}
			if st.Verdict != tc.verdict || st.Comparison == nil || st.CompletionTime == nil || !st.CompletionTime.Time.Equal(t0) {
				t.Errorf("verdict %s, comparison %v, completionTime %v", st.Verdict, st.Comparison, st.CompletionTime)
			}
			if msg := conditionMessage(tc.bench, sbv1.ConditionCompleted); !strings.Contains(msg, tc.messageHas) {
				t.Errorf("Completed message %q lacks %q", msg, tc.messageHas)
			}
			h.expectEvents(tc.events)
		})
	}
}

func TestVerdictCondition(t *testing.T) {
	spec := func(thresholds int) *sbv1.StorageBenchmarkSpec {
		s := &sbv1.StorageBenchmarkSpec{}
		for i := 0; i < thresholds; i++ {
			s.Thresholds = append(s.Thresholds, sbv1.Threshold{Workload: "w"})
		}
		return s
	}
	fail := func(name string) sbv1.Violation {
		return sbv1.Violation{Threshold: name, Severity: sbv1.SeverityFail, Target: "t1", Cell: "c", Metric: "totalIOPS", Measured: "10", Limit: "20"}
	}
	warn := sbv1.Violation{Threshold: "soft", Severity: sbv1.SeverityWarn}
	for _, tc := range []struct {
		name            string
		spec            *sbv1.StorageBenchmarkSpec
		ev              results.Evaluation
		reason, message string
	}{
		{"no thresholds", spec(0), results.Evaluation{Verdict: sbv1.VerdictPassed}, sbv1.ReasonNoThresholds, "no thresholds to meet"},
		{"every threshold met", spec(2), results.Evaluation{Verdict: sbv1.VerdictPassed}, sbv1.ReasonThresholdsPassed, "all 2 thresholds met"},
		{"met with warnings counts them", spec(2), results.Evaluation{Verdict: sbv1.VerdictPassed, Violations: []sbv1.Violation{warn}},
			sbv1.ReasonThresholdsPassed, "all 2 thresholds met (1 warning violation(s))"},
		{"failed names the violations, warnings not counted", spec(2), results.Evaluation{Verdict: sbv1.VerdictFailed, Violations: []sbv1.Violation{fail("a"), warn}},
			sbv1.ReasonThresholdsFailed, "1 threshold violation(s): a on t1/c: totalIOPS 10 (limit 20)"},
		{"failed names at most five", spec(1), results.Evaluation{Verdict: sbv1.VerdictFailed, Violations: []sbv1.Violation{fail("1"), fail("2"), fail("3"), fail("4"), fail("5"), fail("6")}},
			sbv1.ReasonThresholdsFailed, "6 threshold violation(s): 1 on t1/c: totalIOPS 10 (limit 20); 2 on t1/c: totalIOPS 10 (limit 20); 3 on t1/c: totalIOPS 10 (limit 20); 4 on t1/c: totalIOPS 10 (limit 20); 5 on t1/c: totalIOPS 10 (limit 20)"},
		{"inconclusive says what could not be judged", spec(1), results.Evaluation{Verdict: sbv1.VerdictInconclusive, Unevaluated: []string{"a: no cell", "b: no baseline"}},
			sbv1.ReasonResultsIncomplete, "thresholds could not be judged: a: no cell; b: no baseline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, message := verdictCondition(tc.spec, tc.ev)
			if reason != tc.reason || message != tc.message {
				t.Errorf("got %s %q\nwant %s %q", reason, message, tc.reason, tc.message)
			}
		})
	}
}

func TestStatusBounds(t *testing.T) {
	violations := make([]sbv1.Violation, maxStatusViolations+5)
	if got := boundViolations(violations); len(got) != maxStatusViolations {
		t.Errorf("%d violations kept, want %d", len(got), maxStatusViolations)
	}
	if got := boundViolations(violations[:3]); len(got) != 3 {
		t.Errorf("a short list is kept whole: %d", len(got))
	}
	warnings := make([]sbv1.Warning, maxStatusWarnings+10)
	got := boundWarnings(warnings)
	if len(got) != maxStatusWarnings || got[len(got)-1].Reason != "MoreWarnings" ||
		got[len(got)-1].Message != "11 more warnings in the results ConfigMaps" {
		t.Errorf("warnings %d, last %+v", len(got), got[len(got)-1])
	}
	if got := boundWarnings(warnings[:maxStatusWarnings]); len(got) != maxStatusWarnings || got[len(got)-1].Reason == "MoreWarnings" {
		t.Errorf("a list at the bound is kept whole")
	}
}

func TestFailRunStatus(t *testing.T) {
	three := []sbv1.WorkloadGroup{{Name: "w", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 70, 0},
		QueueDepths: []int32{8}, NumJobs: []int32{1}, DurationSeconds: 1}}
	for _, tc := range []struct {
		name     string
		bench    *sbv1.StorageBenchmark
		start    map[string]time.Time
		failing  string
		progress string
		states   string
	}{{
		name: "progress counts a succeeded target's cells, and none of the target that failed",
		bench: newBenchmark(withWorkloads(three...), withTargets(classTarget("t0", "fast"), classTarget("t1", "slow")),
			withTarget("t0", func(st *sbv1.TargetStatus) { st.State = sbv1.TargetSucceeded }),
			withTarget("t1", func(st *sbv1.TargetStatus) { st.State = sbv1.TargetRunning })),
		// t1 measured two of its three cells before it failed.
		start:    map[string]time.Time{"t1": t0.Add(-5 * time.Second)},
		failing:  "t1",
		progress: "3/6",
		states:   "Succeeded Failed",
	}, {
		name:     "a failure on a later target names it in the messages of those not run",
		bench:    newBenchmark(withTargets(classTarget("t0", "fast"), classTarget("t1", "slow"), classTarget("t2", "slow"))),
		failing:  "t2",
		progress: "0/3",
		states:   "Failed Failed Failed",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &snapshot{configMaps: map[string]*corev1.ConfigMap{}}
			records := map[string]plan.StartRecord{}
			for name, at := range tc.start {
				records[name] = startedAt(tc.bench, at)
			}
			cm := startConfigMap(tc.bench, records).(*corev1.ConfigMap)
			s.configMaps[cm.Name] = cm
			failRunStatus(tc.bench, s, targetStatus(tc.bench, tc.failing), &runFailure{sbv1.ReasonTimedOut, "cause"}, t0)
			st := tc.bench.Status
			var states []string
			for _, ts := range st.Targets {
				states = append(states, string(ts.State))
				if ts.Name != tc.failing && ts.State == sbv1.TargetFailed && ts.Message != "not run: the run failed on target "+tc.failing {
					t.Errorf("%s: message %q", ts.Name, ts.Message)
				}
			}
			if strings.Join(states, " ") != tc.states || st.Progress.Summary != tc.progress || !st.CompletionTime.Time.Equal(t0) {
				t.Errorf("states %v, progress %s, completion %v; want %s, %s", states, st.Progress.Summary, st.CompletionTime, tc.states, tc.progress)
			}
			expectConditions(t, tc.bench, "Stalled=True/TimedOut", "Completed=True/TimedOut", "Ready=False/TimedOut")
		})
	}
}
