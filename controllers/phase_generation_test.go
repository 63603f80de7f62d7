package controllers

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

func TestStartGeneration(t *testing.T) {
	finishedRun := func(st *sbv1.StorageBenchmarkStatus) {
		st.CompletionTime = at(-time.Hour)
		st.Verdict = sbv1.VerdictFailed
		st.Violations = []sbv1.Violation{{Threshold: "p99"}}
		st.Recommendation = &sbv1.Recommendation{Target: "t1"}
		st.Targets[0].State = sbv1.TargetSucceeded
		st.Targets[0].Cells = []sbv1.CellSummary{{Name: "c"}}
		c := conditionSetter{status: st, generation: 1}
		c.set(sbv1.ConditionCompleted, metav1.ConditionTrue, sbv1.ReasonSucceeded, "done")
		c.set(sbv1.ConditionStalled, metav1.ConditionTrue, sbv1.ReasonThresholdsFailed, "p99")
		c.set(sbv1.ConditionThresholdsMet, metav1.ConditionFalse, sbv1.ReasonThresholdsFailed, "p99")
		c.remove(sbv1.ConditionReconciling)
	}
	for _, tc := range []struct {
		name       string
		bench      *sbv1.StorageBenchmark
		targets    string
		conditions []string
	}{{
		name:       "a first generation lists its targets as Pending and marks the run in progress",
		bench:      newBenchmark(withTargets(classTarget("a", "fast"), classTarget("b", "slow")), freshGeneration()),
		targets:    "a,b",
		conditions: []string{"Reconciling=True/RunStarted", "Completed=False/RunStarted", "Ready=False/RunStarted"},
	}, {
		name:    "a spec change drops the finished run's results, keeping only its conditions, restamped",
		bench:   newBenchmark(withGeneration(2), withStatus(finishedRun)),
		targets: "t1",
		// The old verdict (ThresholdsMet) goes with the old results: it would
		// still answer `kubectl wait --for=condition=ThresholdsMet` for a
		// run that has not measured anything yet.
		conditions: []string{"Reconciling=True/RunStarted", "Completed=False/RunStarted", "Ready=False/RunStarted"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.bench, nil)
			p := h.pass()
			h.r.startGeneration(p)
			st := tc.bench.Status
			if st.ObservedGeneration != tc.bench.Generation || !st.StartTime.Time.Equal(t0) || st.CompletionTime != nil ||
				st.Verdict != "" || st.Violations != nil || st.Recommendation != nil || st.Progress != nil || st.TargetNames != tc.targets {
				t.Errorf("status not reset: %+v", st)
			}
			var names []string
			for _, ts := range st.Targets {
				if ts.State != sbv1.TargetPending || ts.Cells != nil {
					t.Errorf("target %s: %+v, want a bare Pending entry", ts.Name, ts)
				}
				names = append(names, ts.Name)
			}
			if strings.Join(names, ",") != tc.targets {
				t.Errorf("targets %v, want %s", names, tc.targets)
			}
			expectConditions(t, tc.bench, tc.conditions...)
			h.expectEvents([]string{"Normal RunStarted/Start"})
			if msg := p.events[0].message; msg != "starting the run for generation "+generationLabel(tc.bench.Generation) {
				t.Errorf("event message %q", msg)
			}
		})
	}
}

func TestRemoveStaleRuns(t *testing.T) {
	gen1 := newBenchmark()
	resized := classTarget("t1", "fast")
	resized.Size = ptr.To(resource.MustParse("2Gi"))
	for _, tc := range []struct {
		name   string
		bench  *sbv1.StorageBenchmark
		objs   []client.Object
		faults []fault
		outcome
		// left are the snapshot's children afterwards, sorted.
		left []string
	}{{
		name:  "the current generation's children are kept without an API call",
		bench: gen1,
		objs:  objects(runObjects(gen1), jobsOf(gen1, "t1"), claimsOf(gen1, "t1", corev1.ClaimBound)),
		left:  []string{"claim bench-t1-*-0", "configmap bench-plan-g1", "configmap bench-start", "job bench-t1-g1-c0"},
	}, {
		name:  "an older generation's Jobs and ConfigMaps are deleted, its claims and the start ConfigMap kept",
		bench: newBenchmark(withGeneration(2)),
		objs: objects(runObjects(gen1), jobsOf(gen1, "t1"), claimsOf(gen1, "t1", corev1.ClaimBound),
			one(resultsConfigMap(gen1, "t1", mergedResult(gen1, "t1", t0)))),
		// The plan and the results ConfigMap, in the snapshot's (map) order.
		outcome: outcome{calls: []string{"delete Job/bench-t1-g1-c0", "delete ConfigMap/bench-*", "delete ConfigMap/bench-*"}},
		left:    []string{"claim bench-t1-*-0", "configmap bench-start"},
	}, {
		name:    "claims the spec no longer asks for are deleted",
		bench:   newBenchmark(withGeneration(2), withTargets(resized)),
		objs:    claimsOf(gen1, "t1", corev1.ClaimBound),
		outcome: outcome{calls: []string{"delete PersistentVolumeClaim/bench-t1-" + claimHash + "-0"}},
	}, {
		name:   "a Job delete error is returned wrapped and the Job stays in the snapshot",
		bench:  newBenchmark(withGeneration(2)),
		objs:   jobsOf(gen1, "t1"),
		faults: []fault{failing("delete", "Job", "", errInternal)},
		outcome: outcome{err: "deleting *v1.Job bench-t1-g1-c0", errIs: apierrors.IsInternalError,
			calls: []string{"delete Job/bench-t1-g1-c0"}},
		left: []string{"job bench-t1-g1-c0"},
	}, {
		name:   "a claim delete error is returned wrapped",
		bench:  newBenchmark(withGeneration(2), withTargets(resized)),
		objs:   claimsOf(gen1, "t1", corev1.ClaimBound),
		faults: []fault{failing("delete", "PersistentVolumeClaim", "", errTimeout)},
		outcome: outcome{err: "deleting *v1.PersistentVolumeClaim", errIs: apierrors.IsTimeout,
			calls: []string{"delete PersistentVolumeClaim/bench-t1-*-0"}},
		left: []string{"claim bench-t1-*-0"},
	}, {
		name:    "an older generation's child gone already (NotFound) is no error",
		bench:   newBenchmark(withGeneration(2)),
		objs:    jobsOf(gen1, "t1"),
		faults:  []fault{failing("delete", "Job", "", notFound("Job", "bench-t1-g1-c0"))},
		outcome: outcome{calls: []string{"delete Job/bench-t1-g1-c0"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.bench, tc.objs, tc.faults...)
			s := h.snapshot()
			err := h.r.removeStaleRuns(context.Background(), tc.bench, s)
			h.expectErr(err, tc.outcome)
			h.expectCalls(tc.outcome.calls)
			left := snapshotChildren(s)
			ok := len(left) == len(tc.left)
			for i := 0; ok && i < len(left); i++ {
				ok = matches(tc.left[i], left[i])
			}
			if !ok {
				t.Errorf("left in the snapshot %v, want %v", left, tc.left)
			}
		})
	}
}

func snapshotChildren(s *snapshot) []string {
	var out []string
	for n := range s.claims {
		out = append(out, "claim "+n)
	}
	for n := range s.jobs {
		out = append(out, "job "+n)
	}
	for n := range s.configMaps {
		out = append(out, "configmap "+n)
	}
	sort.Strings(out)
	return out
}

func TestEnsureRunObjects(t *testing.T) {
	created := []string{
		"create ServiceAccount/bench-client", "create Role/bench-client", "create RoleBinding/bench-client",
		"create ConfigMap/bench-plan-g1", "create ConfigMap/bench-start",
	}
	for _, tc := range []struct {
		name   string
		bench  *sbv1.StorageBenchmark
		objs   func(b *sbv1.StorageBenchmark) []client.Object
		faults []fault
		outcome
	}{{
		name:    "a new run gets its clients' identity, its plans and an empty start ConfigMap",
		bench:   newBenchmark(),
		outcome: outcome{calls: created},
	}, {
		name:  "objects the snapshot holds are not created again",
		bench: newBenchmark(),
		objs:  runObjects,
	}, {
		name:  "a new generation gets new plans and reuses the start ConfigMap",
		bench: newBenchmark(withGeneration(2)),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return runObjects(newBenchmark())
		},
		outcome: outcome{calls: []string{"create ConfigMap/bench-plan-g2"}},
	}, {
		name:    "a create that loses to AlreadyExists is no error",
		bench:   newBenchmark(),
		faults:  []fault{failing("create", "Role", "", alreadyExists("Role", "bench-client"))},
		outcome: outcome{calls: created},
	}, {
		name:   "a create error is returned wrapped, and nothing after it is attempted",
		bench:  newBenchmark(),
		faults: []fault{failing("create", "Role", "", errInternal)},
		outcome: outcome{err: "creating *v1.Role bench-client", errIs: apierrors.IsInternalError,
			calls: created[:2]},
	}, {
		name:   "a plan ConfigMap create error is returned wrapped",
		bench:  newBenchmark(),
		faults: []fault{failing("create", "ConfigMap", "bench-plan-g1", errTimeout)},
		outcome: outcome{err: "creating *v1.ConfigMap bench-plan-g1", errIs: apierrors.IsTimeout,
			calls: created[:4]},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []client.Object
			if tc.objs != nil {
				objs = tc.objs(tc.bench)
			}
			h := newHarness(t, tc.bench, objs, tc.faults...)
			err := h.r.ensureRunObjects(context.Background(), tc.bench, h.snapshot())
			h.expectErr(err, tc.outcome)
			h.expectCalls(tc.outcome.calls)
		})
	}
}

func TestEnsureRunObjectsWritesEveryTargetsPlan(t *testing.T) {
	b := newBenchmark(withTargets(classTarget("a", "fast"), classTarget("b", "slow")), withGeneration(4))
	h := newHarness(t, b, nil)
	if err := h.r.ensureRunObjects(context.Background(), b, h.snapshot()); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := h.r.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "bench-plan-g4"}, cm); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		p, err := plan.Parse([]byte(cm.Data[name+".json"]))
		if err != nil || p.Target != name || p.Generation != 4 || p.StartSignal.ConfigMap != "bench-start" || p.StartSignal.Key != name {
			t.Errorf("plan of %s: %+v (%v)", name, p, err)
		}
	}
	start := &corev1.ConfigMap{}
	if err := h.r.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "bench-start"}, start); err != nil || len(start.Data) != 0 ||
		!controlledBy(start, b.UID) || start.Labels[labelGeneration] != "" {
		t.Errorf("start ConfigMap %+v (%v): empty, controlled by the benchmark, of no generation", start, err)
	}
}
