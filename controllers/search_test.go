package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/fakecluster"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// cappedAt models storage capped at capIOPS over all clients: a paced step
// below the cap is served at once (100 us), one above it queues (50 ms),
// and an unpaced one runs at the cap, its queue depth waiting its turn.
func cappedAt(capIOPS int64) fakecluster.StepModel {
	return func(cell sbv1.Cell, clients int32) (int64, int64) {
		perClient := capIOPS / int64(clients)
		switch offered := cell.OfferedIOPS(clients); {
		case offered == 0:
			return perClient, int64(cell.QueueDepth) * 1e9 / perClient
		case offered <= capIOPS:
			return int64(cell.RateIOPS) * int64(cell.NumJobs), 100_000
		default:
			return perClient, 50_000_000
		}
	}
}

// TestASearchRunsRoundByRoundAndResumesAfterARestart plays two client pods
// that stay up through the rounds of a Rate search: each round they hand
// over a report in their logs, the controller merges it, decides and
// publishes the next round, until the search is done and the pods exit.
// The manager is restarted between rounds; the search goes on from the
// steps it stored, and finds the cap.
func TestASearchRunsRoundByRoundAndResumesAfterARestart(t *testing.T) {
	ns := newNamespace(t)
	b := twoTargetBenchmark(ns, "search")
	b.Spec.Targets, b.Spec.Baseline = b.Spec.Targets[:1], ""
	b.Spec.Workloads = []sbv1.WorkloadGroup{{
		Name: "knee", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100}, QueueDepths: []int32{32},
		DurationSeconds: 1, RampSeconds: ptr.To[int32](0),
		LatencyTarget: &sbv1.LatencyTarget{Microseconds: 2000, MaxSteps: 8},
	}}
	b.Spec.Thresholds = []sbv1.Threshold{{Workload: "knee", MinIOPSAtLatency: ptr.To[int64](900)}}
	createBenchmark(t, b)
	jobs := targetJobs(t, ns, "fast", 1, 2)
	bindClaims(t, ns, "fast")
	pods := startPods(t, jobs)
	p := targetPlan(t, ns, "search", "fast", 1)
	if len(p.Searches) != 1 || len(p.Slots) != 0 {
		t.Fatalf("plan: %d searches, %d slots", len(p.Searches), len(p.Slots))
	}
	start := waitForStartAndRunThrough(t, ns, "search", "fast", p)

	model := cappedAt(1000)
	logs := make([]string, len(pods))
	handOver := func(round int32, at time.Time, slots []plan.Slot) {
		t.Helper()
		for i, pod := range pods {
			frame, err := fakecluster.RoundLog(p, int32(i), round, at, slots, model)
			if err != nil {
				t.Fatal(err)
			}
			logs[i] += frame
			podLogs.Set(ns, pod.Name, logs[i])
		}
		poke(t, ns, "search")
	}
	handOver(0, start.Start, nil)
	rounds := int32(0)
	for {
		record := waitForRound(t, ns, "search", "fast", rounds+1)
		if record.Done {
			break
		}
		rounds = record.Round
		if len(record.Slots) != 1 || len(record.Slots[0].Cells) != 1 {
			t.Fatalf("round %d: %+v, want one step of the one search", rounds, record.Slots)
		}
		testClock.Step(record.Start.Sub(testClock.Now()) + record.Duration() + time.Second)
		if rounds == 3 {
			// The manager dies between rounds; a new one resumes the search.
			stopManager()
			if err := startManager(); err != nil {
				t.Fatal(err)
			}
		}
		handOver(rounds, record.Start, record.Slots)
	}
	for i, pod := range pods {
		finishPod(t, pod, logs[i])
	}
	got := waitForCompleted(t, ns, "search")
	if rounds < 3 {
		t.Fatalf("the search ended after %d rounds", rounds)
	}
	st := got.Status.Targets[0]
	if len(st.Searches) != 1 || st.Searches[0].Outcome != "Found" || int(st.Searches[0].Steps) != int(rounds) {
		t.Fatalf("status searches %+v after %d rounds", st.Searches, rounds)
	}
	if got.Status.Verdict != sbv1.VerdictPassed {
		t.Fatalf("verdict %s, violations %+v", got.Status.Verdict, got.Status.Violations)
	}
	tr := storedResult(t, ns, st.ResultsConfigMap)
	r := results.FindSearch(tr, "knee-bs4k-r100")
	if r == nil || r.Capacity == nil || r.Capacity.AchievedIOPS < 950 || r.Capacity.AchievedIOPS > 1000 {
		t.Fatalf("search result %+v", r)
	}
	t.Logf("found %.0f IOPS (cap 1000) in %d rounds, the manager restarted after round 3: %s", r.Capacity.AchievedIOPS, rounds, r.Message)
	// Each step was the next the decision function takes from the steps
	// before it: none repeated or lost across the restart.
	for k := range r.Steps {
		load, _ := results.NextSearchStep(&p.Searches[0], 2, r.Steps[:k])
		if load == nil {
			t.Fatalf("step %d ran, but the search was over after the steps before it", k+1)
		}
		if cell := p.Searches[0].Step(k+1, *load, 2); cell.OfferedIOPS(2) != r.Steps[k].OfferedIOPS || cell.Name != r.Steps[k].Cell {
			t.Fatalf("step %d is %s at %+v, the decision after the steps before it was %s at %d IOPS", k+1, r.Steps[k].Cell, r.Steps[k].StepLoad, cell.Name, cell.OfferedIOPS(2))
		}
	}
	var cms corev1.ConfigMapList
	if err := k8sClient.List(context.Background(), &cms, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/component": "search"}); err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		if cm.DeletionTimestamp == nil {
			t.Fatalf("search configmap %s kept after the results were stored", cm.Name)
		}
	}
}

// waitForRound waits until the controller publishes a round (or later) for
// the target.
func waitForRound(t *testing.T, ns, bench, target string, round int32) plan.RoundRecord {
	t.Helper()
	var record plan.RoundRecord
	eventually(t, 30*time.Second, fmt.Sprintf("search round %d", round), func() error {
		cm := &corev1.ConfigMap{}
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: bench + "-start"}, cm); err != nil {
			return err
		}
		value, ok := cm.Data[plan.RoundKey(target)]
		if !ok {
			return fmt.Errorf("no round published; status %+v", getBenchmark(t, ns, bench).Status.Targets)
		}
		r, err := plan.DecodeRoundRecord(value)
		if err != nil {
			return err
		}
		if r.Round < round {
			return fmt.Errorf("round %d published, waiting for %d; status %+v", r.Round, round, getBenchmark(t, ns, bench).Status.Targets)
		}
		record = r
		return nil
	})
	return record
}

// poke changes the benchmark's metadata: a watch event, so the controller
// looks again now rather than at its next requeue.
func poke(t *testing.T, ns, name string) {
	t.Helper()
	b := getBenchmark(t, ns, name)
	patch := client.MergeFrom(b.DeepCopy())
	if b.Annotations == nil {
		b.Annotations = map[string]string{}
	}
	b.Annotations["test/poke"] = time.Now().Format(time.RFC3339Nano)
	if err := k8sClient.Patch(context.Background(), b, patch); err != nil && !strings.Contains(err.Error(), "not found") {
		t.Fatal(err)
	}
}

func storedResult(t *testing.T, ns, name string) *results.TargetResult {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
		t.Fatal(err)
	}
	tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
