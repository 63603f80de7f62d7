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
)

// Seed 001's combined run in the controller: a reader on one target and a
// rate-capped writer joined to it on another, side by side. The start
// waits until both targets' clients are ready and is one record for both;
// each target measures only its own group's cells.
func TestLinkedTargetsStartTogether(t *testing.T) {
	ns := newNamespace(t)
	b := twoTargetBenchmark(ns, "linked")
	b.Spec.TargetExecution = sbv1.TargetsParallel
	b.Spec.Baseline = ""
	b.Spec.Workloads = []sbv1.WorkloadGroup{
		{Name: "reader", Targets: []string{"fast"}, BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
			QueueDepths: []int32{8}, DurationSeconds: 1, RampSeconds: ptr.To[int32](0)},
		{Name: "writer", Targets: []string{"slow"}, ConcurrentWith: "reader", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{0},
			QueueDepths: []int32{1}, RateIOPS: ptr.To[int32](500), DurationSeconds: 1, RampSeconds: ptr.To[int32](0)},
	}
	createBenchmark(t, b)
	fastJobs, slowJobs := targetJobs(t, ns, "fast", 1, 2), targetJobs(t, ns, "slow", 1, 1)
	bindClaims(t, ns, "fast")
	bindClaims(t, ns, "slow")
	fastPods := startPods(t, fastJobs)
	// fast's clients are ready, slow's are not: nothing is published.
	eventually(t, 20*time.Second, "fast waiting for slow's clients", func() error {
		got := getBenchmark(t, ns, "linked")
		if len(got.Status.Targets) == 0 || !strings.Contains(got.Status.Targets[0].Message, "waiting for the clients of target slow") {
			return fmt.Errorf("status %+v", got.Status.Targets)
		}
		return nil
	})
	cm := &corev1.ConfigMap{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "linked-start"}, cm); err != nil {
		t.Fatal(err)
	}
	if len(cm.Data) != 0 {
		t.Fatalf("a start was published before every linked target's clients were ready: %v", cm.Data)
	}
	slowPods := startPods(t, slowJobs)
	fastPlan, slowPlan := targetPlan(t, ns, "linked", "fast", 1), targetPlan(t, ns, "linked", "slow", 1)
	if len(fastPlan.Slots) != 1 || fastPlan.Slots[0].Cells[0].Workload != "reader" || len(slowPlan.Slots) != 1 || slowPlan.Slots[0].Cells[0].Workload != "writer" ||
		fastPlan.Slots[0].OffsetMilliseconds != slowPlan.Slots[0].OffsetMilliseconds {
		t.Fatalf("plans: fast %+v, slow %+v; want the reader on fast and the writer on slow in one slot", fastPlan.Slots, slowPlan.Slots)
	}
	fastStart := waitForStartAndRunThrough(t, ns, "linked", "fast", fastPlan)
	slowStart := waitForStartAndRunThrough(t, ns, "linked", "slow", slowPlan)
	if !fastStart.Start.Equal(slowStart.Start) {
		t.Fatalf("starts %v and %v: linked targets start at one instant", fastStart.Start, slowStart.Start)
	}
	for i, pod := range fastPods {
		finishPod(t, pod, clientLog(t, fastPlan, int32(i), fastStart))
	}
	for i, pod := range slowPods {
		finishPod(t, pod, clientLog(t, slowPlan, int32(i), slowStart))
	}
	got := waitForCompleted(t, ns, "linked")
	for _, ts := range got.Status.Targets {
		if ts.ClientsReadyMilliseconds == nil || ts.StartLeadMilliseconds == nil || ts.State != sbv1.TargetSucceeded {
			t.Errorf("target %s: state %s, clients ready %v, lead %v", ts.Name, ts.State, ts.ClientsReadyMilliseconds, ts.StartLeadMilliseconds)
		}
	}
}
