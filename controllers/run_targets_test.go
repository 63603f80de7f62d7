package controllers

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
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
	claims, jobs := position(h.calls, "create PersistentVolumeClaim/bench-t2-*"), position(h.calls, "create Job/bench-t2-*")
	merged := position(h.calls, "create ConfigMap/bench-t1-results")
	cleanedUp := position(h.calls, "delete Job/bench-t1-*")
	if claims < 0 || jobs < 0 || merged < 0 || cleanedUp < 0 || max(claims, jobs) > min(merged, cleanedUp) {
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

// unreadable gives t1's clients logs without a report: their merge fails
// the run.
func unreadable(b *sbv1.StorageBenchmark) map[string]string {
	logs := reports(b)
	for pod := range logs {
		logs[pod] = "the engine printed nothing usable\n"
	}
	return logs
}

func TestParallelTargetsMergeAtOnce(t *testing.T) {
	b, objs := twoTargetsOneHandedOver()
	b.Spec.TargetExecution = sbv1.TargetsParallel
	h := newHarness(t, b, objs)
	h.logs.logs = reports(b)
	if _, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot()); err != nil {
		t.Fatal(err)
	}
	merged, next := position(h.calls, "create ConfigMap/bench-t1-results"), position(h.calls, "create PersistentVolumeClaim/bench-t2-*")
	if merged < 0 || next < 0 || merged > next {
		t.Errorf("in Parallel nothing waits for a merge: t1's results first, then t2's claims; writes:\n  %v", h.calls)
	}
}

func TestTheRunFailsOnTheFirstTargetInSpecOrder(t *testing.T) {
	for execution, t2Message := range map[sbv1.TargetExecution]string{
		// t2 started while t1's merge waited.
		sbv1.TargetsSequential: "stopped: the run failed on target t1",
		// t1's merge ran first, and its failure ended the pass.
		sbv1.TargetsParallel: "not run: the run failed on target t1",
	} {
		t.Run(string(execution), func(t *testing.T) {
			b, objs := twoTargetsOneHandedOver(func(b *sbv1.StorageBenchmark) []client.Object {
				return jobsOf(b, "t2", jobFailed("BackoffLimitExceeded", "Job has reached the specified backoff limit"))
			})
			b.Spec.TargetExecution = execution
			h := newHarness(t, b, objs)
			h.logs.logs = unreadable(b)
			if _, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot()); err != nil {
				t.Fatal(err)
			}
			t1, t2 := targetStatus(b, "t1"), targetStatus(b, "t2")
			if t1.State != sbv1.TargetFailed || !strings.Contains(t1.Message, "t1") || strings.HasPrefix(t1.Message, "stopped") {
				t.Errorf("t1 %s: %q; want Failed with its own cause", t1.State, t1.Message)
			}
			if t2.State != sbv1.TargetFailed || t2.Message != t2Message {
				t.Errorf("t2 %s: %q; want %q", t2.State, t2.Message, t2Message)
			}
			if c := meta.FindStatusCondition(b.Status.Conditions, sbv1.ConditionStalled); c == nil || c.Reason != sbv1.ReasonResultsUnreadable {
				t.Errorf("Stalled %v, want ResultsUnreadable (t1's cause)", c)
			}
		})
	}
}

func TestAMergeFailureEndsTheRunEvenWhenTheNextTargetErrs(t *testing.T) {
	b, objs := twoTargetsOneHandedOver()
	h := newHarness(t, b, objs, failing("create", "PersistentVolumeClaim", "", errors.New("quota exceeded")))
	h.logs.logs = unreadable(b)
	if _, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot()); err != nil {
		t.Errorf("err %v: the run has failed, nothing is left to retry", err)
	}
	if st := targetStatus(b, "t1"); st.State != sbv1.TargetFailed || !meta.IsStatusConditionTrue(b.Status.Conditions, sbv1.ConditionStalled) {
		t.Errorf("t1 %s (%s), conditions %v: want the run failed on t1", st.State, st.Message, b.Status.Conditions)
	}
}

// twoTargetsOneHandingOver is a run of targets t1 and t2, one after the
// other: t1's timetable ended 9 s ago and its clients' engines still run
// (they have not written their reports yet).
func twoTargetsOneHandingOver(t2 ...func(b *sbv1.StorageBenchmark) []client.Object) (*sbv1.StorageBenchmark, []client.Object) {
	b := measured(withTargets(classTarget("t1", "fast"), classTarget("t2", "fast")))
	objs := objects(runObjects(b)[:4], claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"), podsOf(b, "t1", stillMeasuring),
		one(storageClass("fast"), startConfigMap(b, map[string]plan.StartRecord{"t1": startedAt(b, measuredStart)})))
	for _, more := range t2 {
		objs = append(objs, more(b)...)
	}
	return b, objs
}

func TestTheNextTargetIsProvisionedOnceTheTimetableIsOverNotWhenTheClientsHaveHandedOver(t *testing.T) {
	b, objs := twoTargetsOneHandingOver()
	h := newHarness(t, b, objs)
	wait, allDone, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot())
	if err != nil || allDone || wait == 0 {
		t.Fatalf("runTargets: wait %s, all done %v, err %v", wait, allDone, err)
	}
	if position(h.calls, "create PersistentVolumeClaim/bench-t2-*") < 0 || position(h.calls, "create Job/bench-t2-*") < 0 {
		t.Errorf("t2's claims and Jobs must be created while t1's clients hand over; writes: %v", h.calls)
	}
	if position(h.calls, "create ConfigMap/bench-t1-results") >= 0 || position(h.calls, "delete *") >= 0 {
		t.Errorf("t1 has not handed over: nothing of it is stored or deleted; writes: %v", h.calls)
	}
	if st := targetStatus(b, "t1"); st.State != sbv1.TargetCollecting {
		t.Errorf("t1: %s, want Collecting", st.State)
	}
}

func TestTheNextTargetWaitsWhileTheLastCellMayStillRunOnAClientsClock(t *testing.T) {
	b, objs := twoTargetsOneHandingOver()
	// 4 s after the end by the controller's clock (past the early reads'
	// window): a client whose clock is behind by up to
	// clients.maxClockOffsetMilliseconds (here 5 s) may still run its last
	// cell.
	b.Spec.Clients.MaxClockOffsetMilliseconds = 5000
	h := newHarness(t, b, objs)
	end := measuredStart.Add(time.Second)
	h.clock.SetTime(end.Add(4 * time.Second))
	wait, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if position(h.calls, "create PersistentVolumeClaim/*") >= 0 || position(h.calls, "create Job/*") >= 0 {
		t.Errorf("nothing of t2 may be created yet; writes: %v", h.calls)
	}
	if want := 5*time.Second + endMargin - 4*time.Second; wait != want {
		t.Errorf("wait %s, want %s: the pass comes back once the offset allowed is over", wait, want)
	}
}

func TestTheNextTargetsStartWaitsForTheClientsBeforeToHandOver(t *testing.T) {
	t2 := func(b *sbv1.StorageBenchmark) []client.Object {
		return objects(claimsOf(b, "t2", corev1.ClaimBound), jobsOf(b, "t2"), podsOf(b, "t2"))
	}
	startWrite := func(b *sbv1.StorageBenchmark) string { return "update ConfigMap/" + startConfigMapName(b) }
	b, objs := twoTargetsOneHandingOver(t2)
	h := newHarness(t, b, objs)
	if _, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot()); err != nil {
		t.Fatal(err)
	}
	if position(h.calls, startWrite(b)) >= 0 {
		t.Errorf("t2's start was published while t1's clients still run; writes: %v", h.calls)
	}
	st := targetStatus(b, "t2")
	if st.State != sbv1.TargetPreparing || !strings.Contains(st.Message, "waits for target t1's clients") {
		t.Errorf("t2: %s %q; want Preparing, waiting for t1's clients", st.State, st.Message)
	}
	if st.ClientsReadyMilliseconds == nil {
		t.Errorf("t2's readiness is not timed while its start waits")
	}

	// t1's clients exit with their reports: this pass merges t1 and
	// deletes its clients; t2's start waits for a pass after that.
	b, objs = twoTargetsOneHandedOver(t2)
	h = newHarness(t, b, objs)
	h.logs.logs = reports(b)
	if _, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot()); err != nil {
		t.Fatal(err)
	}
	if position(h.calls, startWrite(b)) >= 0 || position(h.calls, "create ConfigMap/bench-t1-results") < 0 {
		t.Errorf("t1 merged, t2 not started in the same pass; writes: %v", h.calls)
	}

	// t1 is done (its results stored, its clients gone): t2 starts.
	b = measured(withTargets(classTarget("t1", "fast"), classTarget("t2", "fast")))
	objs = objects(runObjects(b)[:4], claimsOf(b, "t1", corev1.ClaimBound), t2(b),
		one(storageClass("fast"), startConfigMap(b, map[string]plan.StartRecord{"t1": startedAt(b, measuredStart)}),
			resultsConfigMap(b, "t1", mergedResult(b, "t1", measuredStart))))
	h = newHarness(t, b, objs)
	if _, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot()); err != nil {
		t.Fatal(err)
	}
	if position(h.calls, startWrite(b)) < 0 {
		t.Errorf("t2's start was not published once t1 was done; writes: %v", h.calls)
	}
}

func TestALaterTargetsFailureWaitsForTheClientsHandingOver(t *testing.T) {
	b, objs := twoTargetsOneHandingOver(func(b *sbv1.StorageBenchmark) []client.Object {
		return jobsOf(b, "t2", jobFailed("BackoffLimitExceeded", "Job has reached the specified backoff limit"))
	})
	h := newHarness(t, b, objs)
	wait, _, err := h.r.runTargets(context.Background(), h.pass(), h.snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if meta.IsStatusConditionTrue(b.Status.Conditions, sbv1.ConditionStalled) || targetStatus(b, "t1").State != sbv1.TargetCollecting {
		t.Errorf("t1 %s (%s), conditions %v: the run must not fail while t1's clients hand over", targetStatus(b, "t1").State, targetStatus(b, "t1").Message, b.Status.Conditions)
	}
	if wait == 0 || wait > shortRequeue {
		t.Errorf("wait %s, want at most %s: t2's failure is looked at again", wait, shortRequeue)
	}
}

func TestTheReportsOfClientsThatExitedAreReadWhileTheOthersHandOverAndOnlyOnce(t *testing.T) {
	b := measured(withTargets(classTarget("t1", "fast"), classTarget("t2", "fast")))
	objs := objects(runObjects(b)[:4], claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"),
		podsOf(b, "t1", onClient(0, succeeded()), onClient(1, stillMeasuring)),
		one(storageClass("fast"), startConfigMap(b, map[string]plan.StartRecord{"t1": startedAt(b, measuredStart)})))
	h := newHarness(t, b, objs)
	h.logs.logs = reports(b)
	first := h.pass()
	if _, _, err := h.r.runTargets(context.Background(), first, h.snapshot()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.logs.read, " "); got != "bench-t1-g1-c0-0-abcde/engine" {
		t.Errorf("logs read while client 1 runs: %q, want client 0's (it exited)", got)
	}
	if len(first.reportsRead) != 1 {
		t.Fatalf("%d reports kept, want client 0's", len(first.reportsRead))
	}

	// Client 1 exits: its log is read, client 0's is not read again.
	b, objs = twoTargetsOneHandedOver()
	h = newHarness(t, b, objs)
	h.logs.logs = reports(b)
	second := h.pass()
	second.reportsRead = first.reportsRead
	if _, _, err := h.r.runTargets(context.Background(), second, h.snapshot()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.logs.read, " "); got != "bench-t1-g1-c1-0-abcde/engine" {
		t.Errorf("logs read at the merge: %q, want client 1's only", got)
	}
	if st := targetStatus(b, "t1"); st.State != sbv1.TargetSucceeded || len(second.reportsRead) != 0 {
		t.Errorf("t1 %s (%s), %d reports still kept; want Succeeded, none", st.State, st.Message, len(second.reportsRead))
	}
	if want := mergedResult(b, "t1", measuredStart); !reflect.DeepEqual(results.StatusCells(second.targetResults["t1"]), results.StatusCells(want)) {
		t.Errorf("t1's merge with a report read ahead differs from one of both read at the end")
	}
}

// Several clients' reports read at once (run with -race): each is kept
// once, and none of a client still running.
func TestReportsReadAheadFromSeveralClientsAtOnce(t *testing.T) {
	b := measured(withClients(6))
	objs := objects(runObjects(b), claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"),
		podsOf(b, "t1", succeeded(), onClient(5, stillMeasuring)), one(storageClass("fast")))
	h := newHarness(t, b, objs)
	logs := map[string]string{}
	for c := int32(0); c < 6; c++ {
		logs[fmt.Sprintf("bench-t1-g1-c%d-0-abcde", c)] = clientLog(b, "t1", c, measuredStart)
	}
	h.logs.logs = logs
	p := h.pass()
	h.r.readAhead(context.Background(), p, h.snapshot().targetPods(b, target(b, "t1")))
	if len(p.reportsRead) != 5 || len(h.logs.read) != 5 {
		t.Errorf("%d reports kept from %d logs read, want 5 and 5 (the exited clients')", len(p.reportsRead), len(h.logs.read))
	}
	h.r.readAhead(context.Background(), p, h.snapshot().targetPods(b, target(b, "t1")))
	if len(h.logs.read) != 5 {
		t.Errorf("a second look read %d logs in all, want none more", len(h.logs.read))
	}
}
