package controllers

import (
	"context"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// twoTargetsOneHandedOver is a run of targets t1 and t2, one after the
// other: t1's clients have all finished and written their reports.
func twoTargetsOneHandedOver(t2 ...func(b *sbv1.StorageBenchmark) []client.Object) (*sbv1.StorageBenchmark, []client.Object) {
	b := measured(withTargets(classTarget("t1", "fast"), classTarget("t2", "fast")))
	objs := objects(finished()(b)[len(runObjects(b)):],
		runObjects(b)[:4], one(startConfigMap(b, map[string]plan.StartRecord{"t1": startedAt(b, measuredStart)})))
	for _, more := range t2 {
		objs = append(objs, more(b)...)
	}
	return b, objs
}

// position is the index of the first write matching pattern, -1 if none.
func position(calls []string, pattern string) int {
	for i, call := range calls {
		if matches(pattern, call) {
			return i
		}
	}
	return -1
}

func TestSequentialTargetsStartTheNextOneBeforeMergingTheOneBefore(t *testing.T) {
	b, objs := twoTargetsOneHandedOver()
	h := newHarness(t, b, objs)
	h.logs.logs = reports(b)
	wait, allDone, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot())
	if err != nil || allDone || wait == 0 {
		t.Fatalf("runTargets: wait %s, all done %v, err %v", wait, allDone, err)
	}
	next := max(position(h.calls, "create PersistentVolumeClaim/bench-t2-*"), position(h.calls, "create Job/bench-t2-*"))
	merged := position(h.calls, "create ConfigMap/bench-t1-results")
	cleanedUp := position(h.calls, "delete Job/bench-t1-*")
	if next < 0 || merged < 0 || cleanedUp < 0 || next > merged || next > cleanedUp {
		t.Errorf("t2's claims and Jobs must be created before t1's results are stored and its clients deleted; writes:\n  %v", h.calls)
	}
	if st := targetStatus(b, "t1"); st.State != sbv1.TargetSucceeded || st.CollectionMilliseconds == nil || *st.CollectionMilliseconds != 9000 {
		t.Errorf("t1: %s, collection %v ms; want Succeeded, 9000 ms (its end to the merge, on a clock that stands still)", st.State, st.CollectionMilliseconds)
	}
	if st := targetStatus(b, "t2"); st.State != sbv1.TargetProvisioning {
		t.Errorf("t2: %s, want Provisioning", st.State)
	}
}

func TestAFailureOfTheNextTargetStillStoresTheResultsHandedOver(t *testing.T) {
	b, objs := twoTargetsOneHandedOver(func(b *sbv1.StorageBenchmark) []client.Object {
		return jobsOf(b, "t2", jobFailed("BackoffLimitExceeded", "Job has reached the specified backoff limit"))
	})
	h := newHarness(t, b, objs)
	h.logs.logs = reports(b)
	if _, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot()); err != nil {
		t.Fatal(err)
	}
	if position(h.calls, "create ConfigMap/bench-t1-results") < 0 || targetStatus(b, "t1").State != sbv1.TargetSucceeded {
		t.Errorf("t1's results were not stored (t1 %s); writes: %v", targetStatus(b, "t1").State, h.calls)
	}
	if st := targetStatus(b, "t2"); st.State != sbv1.TargetFailed || !meta.IsStatusConditionTrue(b.Status.Conditions, sbv1.ConditionStalled) {
		t.Errorf("t2 %s (%s), conditions %v: want the run failed on t2", st.State, st.Message, b.Status.Conditions)
	}
}

func TestAnAPIErrorOnTheNextTargetStillStoresTheResultsHandedOver(t *testing.T) {
	b, objs := twoTargetsOneHandedOver()
	refused := errors.New("quota exceeded")
	h := newHarness(t, b, objs, failing("create", "PersistentVolumeClaim", "", refused))
	h.logs.logs = reports(b)
	_, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot())
	if !errors.Is(err, refused) {
		t.Errorf("err %v, want the claim's create error, to retry", err)
	}
	if position(h.calls, "create ConfigMap/bench-t1-results") < 0 || targetStatus(b, "t1").State != sbv1.TargetSucceeded {
		t.Errorf("t1's results were not stored (t1 %s); writes: %v", targetStatus(b, "t1").State, h.calls)
	}
}
