package controllers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

func TestRunTarget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bench  *sbv1.StorageBenchmark
		objs   func(b *sbv1.StorageBenchmark) []client.Object
		faults []fault
		outcome
		state   sbv1.TargetState
		message string
		check   func(t *testing.T, b *sbv1.StorageBenchmark)
	}{{
		name:  "a pending claim makes the pass look again at the bind deadline, not at the prepare deadline",
		bench: newBenchmark(withTarget("t1", provisioning(-100*time.Second))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), claimsOf(b, "t1", corev1.ClaimPending), jobsOf(b, "t1"),
				podsOf(b, "t1", unschedulable("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims")))
		},
		outcome: outcome{wait: 501 * time.Second},
		state:   sbv1.TargetProvisioning,
		message: "0 of 1 clients ready; waiting for bench-t1-g1-c0-0-abcde (not scheduled: 0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims)",
	}, {
		name:  "stored results that do not decode fail the run at once: nothing is created again, nothing merged again",
		bench: newBenchmark(withTarget("t1", bound(-time.Minute, 500))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			cm := resultsConfigMap(b, "t1", mergedResult(b, "t1", t0.Add(-10*time.Second)))
			cm.Data[results.StoredKey] = `{"schemaVersion":"something/else"}`
			return objects(runObjects(b), one(cm))
		},
		outcome: outcome{failure: sbv1.ReasonResultsUnreadable, failureHas: []string{"configmap bench-t1-results"}},
		state:   sbv1.TargetProvisioning,
	}, {
		name:  "a target seen first starts provisioning at the pass's time, creating its claims and clients",
		bench: newBenchmark(),
		objs:  runObjects,
		outcome: outcome{
			wait:   601 * time.Second,
			calls:  []string{"create PersistentVolumeClaim/bench-t1-*-0", "create Job/bench-t1-g1-c0"},
			events: []string{"Normal VolumeRequested/Provision", "Normal ClientsCreated/Start"},
		},
		state:   sbv1.TargetProvisioning,
		message: "0 of 1 clients ready",
		check: func(t *testing.T, b *sbv1.StorageBenchmark) {
			if st := targetStatus(b, "t1"); st.ProvisioningStartTime == nil || !st.ProvisioningStartTime.Time.Equal(t0) {
				t.Errorf("provisioningStartTime %v, want t0", st.ProvisioningStartTime)
			}
		},
	}, {
		name:  "a provisioning start already recorded is kept",
		bench: newBenchmark(withTarget("t1", bound(-time.Minute, 500))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"), podsOf(b, "t1", notReady()))
		},
		outcome: outcome{wait: 4200*time.Second - time.Minute + time.Second},
		state:   sbv1.TargetPreparing,
		message: "0 of 1 clients ready; waiting for bench-t1-g1-c0-0-abcde (laying out its data set)",
		check: func(t *testing.T, b *sbv1.StorageBenchmark) {
			if st := targetStatus(b, "t1"); !st.ProvisioningStartTime.Time.Equal(t0.Add(-time.Minute)) {
				t.Errorf("provisioningStartTime %v moved", st.ProvisioningStartTime)
			}
		},
	}, {
		name:  "once the start is published a target is Running and looks again at its timetable's end",
		bench: newBenchmark(withTarget("t1", bound(-time.Minute, 500))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b)[:4], one(startConfigMap(b, map[string]plan.StartRecord{"t1": startedAt(b, t0.Add(2*time.Second))})),
				claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"), podsOf(b, "t1"))
		},
		// The timetable (1 s) ends 3 s after the pass: look again just after.
		outcome: outcome{wait: 3*time.Second + endMargin},
		state:   sbv1.TargetRunning,
		message: "measuring",
		check: func(t *testing.T, b *sbv1.StorageBenchmark) {
			if st := targetStatus(b, "t1"); !st.MeasurementStartTime.Time.Equal(t0.Add(2 * time.Second)) {
				t.Errorf("measurementStartTime %v", st.MeasurementStartTime)
			}
		},
	}, {
		name:  "a start record of an older generation is not this run's: the start is published anew",
		bench: newBenchmark(withGeneration(2), withTarget("t1", bound(-time.Minute, 500))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			old := startedAt(newBenchmark(), t0.Add(-time.Hour))
			return objects(runObjects(b)[:4], one(startConfigMap(b, map[string]plan.StartRecord{"t1": old})),
				claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"), podsOf(b, "t1"))
		},
		outcome: outcome{
			wait:   testLead + time.Second,
			calls:  []string{"update ConfigMap/bench-start"},
			events: []string{"Normal MeasurementScheduled/Start"},
		},
		state:   sbv1.TargetRunning,
		message: "measuring",
	}, {
		name:  "a failing client ends the target before its claims' timeout is looked at again",
		bench: newBenchmark(withTarget("t1", provisioning(-time.Minute))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), claimsOf(b, "t1", corev1.ClaimPending), jobsOf(b, "t1"), podsOf(b, "t1", failed(1, "boom")))
		},
		outcome: outcome{failure: sbv1.ReasonClientFailed, failureHas: []string{"failed: exit code 1 (Error): boom"}},
		state:   sbv1.TargetProvisioning,
		message: "waiting for claims to bind: bench-t1-" + claimHash + "-0 (Pending)",
	}, {
		name:   "an error creating a claim is returned before any client is created",
		bench:  newBenchmark(),
		objs:   runObjects,
		faults: []fault{failing("create", "PersistentVolumeClaim", "", errTimeout)},
		outcome: outcome{err: "creating *v1.PersistentVolumeClaim", errIs: apierrors.IsTimeout,
			calls: []string{"create PersistentVolumeClaim/bench-t1-*-0"}},
		state: sbv1.TargetProvisioning,
	}, {
		name: "a target whose results are stored is done without provisioning again",
		bench: newBenchmark(withSpec(func(s *sbv1.StorageBenchmarkSpec) {
			s.Cleanup = sbv1.Cleanup{Volumes: sbv1.CleanupKeep, ClientPods: sbv1.CleanupKeep}
		})),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), one(resultsConfigMap(b, "t1", mergedResult(b, "t1", t0.Add(-time.Minute)))))
		},
		outcome: outcome{done: true},
		state:   sbv1.TargetSucceeded,
		check: func(t *testing.T, b *sbv1.StorageBenchmark) {
			if st := targetStatus(b, "t1"); st.ProvisioningStartTime != nil || len(st.Cells) != 1 {
				t.Errorf("provisioningStartTime %v, %d cells", st.ProvisioningStartTime, len(st.Cells))
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []client.Object
			if tc.objs != nil {
				objs = tc.objs(tc.bench)
			}
			h := newHarness(t, tc.bench, objs, tc.faults...)
			s := h.snapshot()
			p := h.pass()
			step, err := h.r.runTarget(context.Background(), p, s, h.target(p, "t1"))
			h.expectStep(step, err, tc.outcome)
			st := targetStatus(tc.bench, "t1")
			if st.State != tc.state || st.Message != tc.message {
				t.Errorf("target %s %q, want %s %q", st.State, st.Message, tc.state, tc.message)
			}
			if tc.check != nil {
				tc.check(t, tc.bench)
			}
		})
	}
}

// claimHash is the volume hash of the default target t1.
var claimHash = volumeHash(target(newBenchmark(), "t1"))

func TestTargetStepLookAgainBy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wait, by time.Duration
		want     time.Duration
	}{
		{"no deadline keeps the wait", 5 * time.Second, 0, 5 * time.Second},
		{"an earlier deadline brings the wait forward", 5 * time.Second, 2 * time.Second, 2 * time.Second},
		{"a later deadline keeps the wait", 5 * time.Second, 9 * time.Second, 5 * time.Second},
		{"a step that waits only for events gets the deadline", 0, 9 * time.Second, 9 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (targetStep{wait: tc.wait}).lookAgainBy(tc.by).wait; got != tc.want {
				t.Errorf("wait %s, want %s", got, tc.want)
			}
		})
	}
}

func TestSetMeasuring(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before sbv1.TargetStatus
	}{
		{"a preparing target starts measuring", sbv1.TargetStatus{Name: "t1", State: sbv1.TargetPreparing, Message: "2 of 2 clients ready"}},
		{"a running target is refreshed", sbv1.TargetStatus{Name: "t1", State: sbv1.TargetRunning, Message: "measuring", MeasurementStartTime: at(-time.Hour)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.before.DeepCopy()
			setMeasuring(st, t0.Add(3*time.Second))
			if st.State != sbv1.TargetRunning || st.Message != "measuring" || !st.MeasurementStartTime.Time.Equal(t0.Add(3*time.Second)) {
				t.Errorf("status %+v", st)
			}
			if tc.before.MeasurementStartTime != nil && tc.before.MeasurementStartTime.Time.Equal(st.MeasurementStartTime.Time) {
				t.Errorf("start not replaced")
			}
		})
	}
}

func TestSinceProvisioningStartIsPreciseWhenThisProcessRecordedIt(t *testing.T) {
	b := newBenchmark()
	p := newPass(b, clocktesting.NewFakeClock(t0))
	st := &sbv1.TargetStatus{Name: "t1"}
	run := &targetRun{spec: &b.Spec.Targets[0], status: st}
	if got := p.sinceProvisioningStart(run, t0); got != 0 {
		t.Errorf("no provisioning start gives %s, want 0", got)
	}
	precise := t0.Add(-2*time.Second + 700*time.Millisecond) // 09:59:58.700
	// As read back from the API server: whole seconds.
	st.ProvisioningStartTime = &metav1.Time{Time: precise.Truncate(time.Second)}
	if got := p.sinceProvisioningStart(run, t0); got != 2*time.Second {
		t.Errorf("from status alone: %s, want 2s", got)
	}
	p.provisioningStarts["t1"] = precise
	if got := p.sinceProvisioningStart(run, t0); got != 1300*time.Millisecond {
		t.Errorf("with this process's record: %s, want 1.3s", got)
	}
	// A record of another second belongs to an attempt status never kept.
	p.provisioningStarts["t1"] = precise.Add(-5 * time.Second)
	if got := p.sinceProvisioningStart(run, t0); got != 2*time.Second {
		t.Errorf("with a record status does not match: %s, want 2s (status)", got)
	}
}
