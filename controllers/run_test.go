package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/fakecluster"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// twoTargetBenchmark is 2 targets x 2 clients x 3 cells: the shape the
// integration tests drive end to end.
func twoTargetBenchmark(ns, name string) *sbv1.StorageBenchmark {
	return &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{
				{Name: "fast", StorageClassName: ptr.To("fast"), Size: ptr.To(mustQuantity("1Gi"))},
				{Name: "slow", StorageClassName: ptr.To("slow"), Size: ptr.To(mustQuantity("1Gi")), AccessMode: corev1.ReadWriteMany},
			},
			Baseline: "slow",
			Clients:  sbv1.Clients{Count: 2},
			Dataset:  sbv1.Dataset{SizePerClient: "64Mi"},
			Workloads: []sbv1.WorkloadGroup{{
				Name: "w", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 70, 0},
				QueueDepths: []int32{8}, DurationSeconds: 1, RampSeconds: ptr.To[int32](0),
			}},
		},
	}
}

func createBenchmark(t *testing.T, b *sbv1.StorageBenchmark) {
	t.Helper()
	ensureStorageClass(t, "fast")
	ensureStorageClass(t, "slow")
	if err := k8sClient.Create(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

// runTarget plays the cluster for one target: bind, start pods, wait for the
// start, step through the timetable and finish every pod with its log.
func runTarget(t *testing.T, ns, bench, target string, jobs int) []*corev1.Pod {
	t.Helper()
	b := getBenchmark(t, ns, bench)
	found := targetJobs(t, ns, target, b.Generation, jobs)
	bindClaims(t, ns, target)
	pods := startPods(t, found)
	p := targetPlan(t, ns, bench, target, b.Generation)
	start := waitForStartAndRunThrough(t, ns, bench, target, p)
	for i, pod := range pods {
		finishPod(t, pod, clientLog(t, p, int32(i), start))
	}
	return pods
}

func conditionIs(b *sbv1.StorageBenchmark, kind string, status metav1.ConditionStatus) bool {
	c := meta.FindStatusCondition(b.Status.Conditions, kind)
	return c != nil && c.Status == status && c.ObservedGeneration == b.Generation
}

func waitForCompleted(t *testing.T, ns, name string) *sbv1.StorageBenchmark {
	t.Helper()
	var got *sbv1.StorageBenchmark
	eventually(t, 30*time.Second, "Completed", func() error {
		got = getBenchmark(t, ns, name)
		if !conditionIs(got, sbv1.ConditionCompleted, metav1.ConditionTrue) {
			return fmt.Errorf("conditions %+v, targets %+v", got.Status.Conditions, got.Status.Targets)
		}
		return nil
	})
	return got
}

func TestRunOfTwoTargetsTwoClientsThreeCellsMergesExactly(t *testing.T) {
	ns := newNamespace(t)
	b := twoTargetBenchmark(ns, "exact")
	b.Spec.Thresholds = []sbv1.Threshold{
		{Name: "p99", Workload: "w", MaxLatency: &sbv1.LatencyLimit{Percentile: sbv1.PercentileP99, Microseconds: 1_000_000}},
		{Name: "vs-slow", Workload: "w", MaxRegression: &sbv1.Regression{Metric: sbv1.RegressionIOPS, Percent: 5}, Severity: sbv1.SeverityWarn},
	}
	createBenchmark(t, b)

	// Targets run one after another: the second has no clients until the
	// first is done.
	runTarget(t, ns, "exact", "fast", 2) // ReadWriteOnce: one Job per client
	runTarget(t, ns, "exact", "slow", 1) // ReadWriteMany: one Indexed Job
	got := waitForCompleted(t, ns, "exact")

	if !conditionIs(got, sbv1.ConditionReady, metav1.ConditionTrue) || meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionReconciling) != nil ||
		meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionStalled) != nil {
		t.Fatalf("a successful run is Ready, not Reconciling or Stalled: %+v", got.Status.Conditions)
	}
	if got.Status.Progress == nil || got.Status.Progress.Summary != "6/6" || got.Status.TargetNames != "fast,slow" {
		t.Fatalf("progress %+v, targets %q; want 6/6 of fast,slow", got.Status.Progress, got.Status.TargetNames)
	}
	// Both targets got the same samples: equal IOPS, so no regression and
	// a verdict of Passed; fast (first in spec order) ranks first.
	if got.Status.Verdict != sbv1.VerdictPassed || len(got.Status.Violations) != 0 || !conditionIs(got, sbv1.ConditionThresholdsMet, metav1.ConditionTrue) {
		t.Fatalf("verdict %s, violations %+v, conditions %+v", got.Status.Verdict, got.Status.Violations, got.Status.Conditions)
	}
	cmp := got.Status.Comparison
	if cmp == nil || cmp.Baseline != "slow" || len(cmp.Cells) != 3 || cmp.Cells[0].Best != "fast" || len(cmp.Targets) != 2 {
		t.Fatalf("comparison %+v", cmp)
	}
	if got.Status.Recommendation == nil || got.Status.Recommendation.Target != "fast" {
		t.Fatalf("recommendation %+v", got.Status.Recommendation)
	}
	// The whole comparison is in the run's comparison ConfigMap.
	outcomeCM := &corev1.ConfigMap{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: got.Status.ComparisonConfigMap}, outcomeCM); err != nil {
		t.Fatalf("comparison configmap %q: %v", got.Status.ComparisonConfigMap, err)
	}
	stored, err := results.DecodeOutcome(outcomeCM.Data, outcomeCM.BinaryData)
	if err != nil || len(stored.Comparison.Cells) != 3 || len(stored.Comparison.Cells[0].VsBaseline) != 1 || stored.Comparison.Cells[0].VsBaseline[0].IOPSRatio != "1" {
		t.Fatalf("stored outcome %+v (%v)", stored, err)
	}
	for _, ts := range got.Status.Targets {
		if ts.State != sbv1.TargetSucceeded || len(ts.Cells) != 3 || ts.ResultsConfigMap == "" || ts.VolumesBoundMilliseconds == nil ||
			ts.ClientsReadyMilliseconds == nil || ts.StartSkewMicroseconds == nil || *ts.StartSkewMicroseconds != 1 || ts.Backend != "io_uring" {
			t.Fatalf("target status %+v", ts)
		}
		for i, cell := range ts.Cells {
			// Cells 0 and 1 read, 1 and 2 write (100, 70 and 0 % reads).
			iops, p99 := fakecluster.ExpectedTotals(2, i, i < 2, i > 0)
			if cell.IOPS != results.Decimal(iops, 1) || cell.P99Microseconds != results.Decimal(float64(p99)/1000, 2) {
				t.Errorf("%s %s: got %+v, want IOPS %v and p99 %d ns of reads and writes merged from the histograms", ts.Name, cell.Name, cell, iops, p99)
			}
		}
		if ts.Environment == nil || ts.Environment.StorageClassName != ts.Name || ts.Environment.Provisioner != "example.com/test" || ts.Environment.Nodes != 1 {
			t.Errorf("%s: environment %+v", ts.Name, ts.Environment)
		}
	}

	// The full results are in one ConfigMap per target, per client too.
	cm := &corev1.ConfigMap{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: got.Status.Targets[0].ResultsConfigMap}, cm); err != nil {
		t.Fatal(err)
	}
	tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Cells) != 3 || len(tr.Cells[0].Result().Clients) != 2 || tr.Cells[0].Result().Read.LatencyHistogram == "" {
		t.Fatalf("results configmap lacks per-client results or histograms: %+v", tr.Cells[0])
	}
	// Each direction apart, merged exactly.
	for i := range tr.Cells {
		rep := tr.Cells[i].Result()
		for d, got := range []*results.DirectionStats{rep.Read, rep.Write} {
			if runs := (d == 0 && i < 2) || (d == 1 && i > 0); !runs {
				if got != nil {
					t.Errorf("cell %d has a direction it does not run", i)
				}
				continue
			}
			iops, p99 := expectedDirection(2, i, d)
			if got == nil || got.IOPS != iops || got.LatencyNs.P99 != p99 {
				t.Errorf("cell %d %s: got %+v, want IOPS %v and p99 %d ns from the merged histograms", i, []string{"read", "write"}[d], got, iops, p99)
			}
		}
	}
	// cleanup: Delete (the default) removed the clients and the claims.
	eventually(t, 10*time.Second, "client jobs and claims deleted", func() error {
		var jobs batchv1.JobList
		var claims corev1.PersistentVolumeClaimList
		if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
			return err
		}
		if err := k8sClient.List(context.Background(), &claims, client.InNamespace(ns)); err != nil {
			return err
		}
		live := 0
		for _, j := range jobs.Items {
			if j.DeletionTimestamp == nil {
				live++
			}
		}
		for _, c := range claims.Items {
			if c.DeletionTimestamp == nil {
				live++
			}
		}
		if live > 0 {
			return fmt.Errorf("%d jobs and claims left", live)
		}
		return nil
	})
}

func TestBrokenThresholdStallsTheCompletedRunWithItsViolations(t *testing.T) {
	ns := newNamespace(t)
	b := twoTargetBenchmark(ns, "gate")
	b.Spec.Targets, b.Spec.Baseline = b.Spec.Targets[:1], ""
	b.Spec.Workloads[0].ReadPercents = []int32{100}
	b.Spec.Thresholds = []sbv1.Threshold{{Name: "too-fast", Workload: "w", MinIOPS: ptr.To[int64](1_000_000)}}
	createBenchmark(t, b)
	runTarget(t, ns, "gate", "fast", 2)
	stalledWith(t, ns, "gate", sbv1.ReasonThresholdsFailed, "too-fast on fast/w-bs4k-r100-qd8-j1: totalIOPS")
	got := getBenchmark(t, ns, "gate")
	if got.Status.Verdict != sbv1.VerdictFailed || len(got.Status.Violations) != 1 || got.Status.Violations[0].Limit != "1000000" ||
		!conditionIs(got, sbv1.ConditionReady, metav1.ConditionFalse) || !conditionIs(got, sbv1.ConditionThresholdsMet, metav1.ConditionFalse) {
		t.Fatalf("verdict %s, violations %+v, conditions %+v", got.Status.Verdict, got.Status.Violations, got.Status.Conditions)
	}
	if got.Status.Recommendation != nil {
		t.Fatalf("no target meets the thresholds, yet %+v is recommended", got.Status.Recommendation)
	}
}

func stalledWith(t *testing.T, ns, name, reason string, contains ...string) {
	t.Helper()
	eventually(t, 30*time.Second, "Stalled "+reason, func() error {
		got := getBenchmark(t, ns, name)
		c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionStalled)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != reason {
			return fmt.Errorf("conditions %+v", got.Status.Conditions)
		}
		for _, want := range contains {
			if !strings.Contains(c.Message, want) {
				return fmt.Errorf("message %q lacks %q", c.Message, want)
			}
		}
		if !conditionIs(got, sbv1.ConditionCompleted, metav1.ConditionTrue) || meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionReconciling) != nil {
			return fmt.Errorf("a failed run is Completed and no longer Reconciling: %+v", got.Status.Conditions)
		}
		return nil
	})
}

func TestFailingClientStallsTheRunNamingThePod(t *testing.T) {
	ns := newNamespace(t)
	createBenchmark(t, twoTargetBenchmark(ns, "failing"))
	jobs := targetJobs(t, ns, "fast", 1, 2)
	bindClaims(t, ns, "fast")
	pods := startPods(t, jobs)
	setPodPhase(t, pods[1], corev1.PodFailed, 1, "client 1 of target fast failed: laying out the data set: no space left on device")
	stalledWith(t, ns, "failing", sbv1.ReasonClientFailed, pods[1].Name, "client 1", "no space left on device")

	got := getBenchmark(t, ns, "failing")
	if got.Status.Targets[1].State != sbv1.TargetFailed || !strings.Contains(got.Status.Targets[1].Message, "not run") {
		t.Fatalf("the target that never ran says so: %+v", got.Status.Targets[1])
	}
	// The other client's Job is stopped; the failed client's Job stays, so
	// its log can still be read.
	eventually(t, 10*time.Second, "the running client's job deleted, the failed one kept", func() error {
		var jobs batchv1.JobList
		if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
			return err
		}
		live := map[string]bool{}
		for _, j := range jobs.Items {
			if j.DeletionTimestamp == nil {
				live[j.Name] = true
			}
		}
		if !live["failing-fast-g1-c1"] || live["failing-fast-g1-c0"] {
			return fmt.Errorf("live jobs %v", live)
		}
		return nil
	})
}

func TestUnreadableLogsStallTheRunWithAClearReason(t *testing.T) {
	for name, log := range map[string]string{
		"garbage":   "\x00\x01 not a report \xff\n{]\n",
		"truncated": "----- BEGIN STORAGEBENCH CLIENT REPORT -----\n{\"schemaVersion\":",
		"oversized": strings.Repeat("x", results.MaxReportBytes+10),
	} {
		t.Run(name, func(t *testing.T) {
			ns := newNamespace(t)
			createBenchmark(t, twoTargetBenchmark(ns, "logs"))
			jobs := targetJobs(t, ns, "fast", 1, 2)
			bindClaims(t, ns, "fast")
			pods := startPods(t, jobs)
			p := targetPlan(t, ns, "logs", "fast", 1)
			start := waitForStartAndRunThrough(t, ns, "logs", "fast", p)
			finishPod(t, pods[0], clientLog(t, p, 0, start))
			finishPod(t, pods[1], log)
			want := map[string]string{"garbage": "no client report", "truncated": "incomplete", "oversized": "larger than the 16777216-byte limit"}[name]
			stalledWith(t, ns, "logs", sbv1.ReasonResultsUnreadable, pods[1].Name, want)
		})
	}
}

func TestManagerRestartMidRunFinishesExactlyOnce(t *testing.T) {
	ns := newNamespace(t)
	b := twoTargetBenchmark(ns, "restart")
	b.Spec.Targets = b.Spec.Targets[:1]
	b.Spec.Baseline = ""
	b.Spec.Cleanup.ClientPods = sbv1.CleanupKeep
	createBenchmark(t, b)
	jobs := targetJobs(t, ns, "fast", 1, 2)
	bindClaims(t, ns, "fast")
	pods := startPods(t, jobs)
	p := targetPlan(t, ns, "restart", "fast", 1)
	start := waitForStartAndRunThrough(t, ns, "restart", "fast", p)

	// The manager dies mid-run and a new one takes over.
	stopManager()
	if err := startManager(); err != nil {
		t.Fatal(err)
	}
	for i, pod := range pods {
		finishPod(t, pod, clientLog(t, p, int32(i), start))
	}
	got := waitForCompleted(t, ns, "restart")
	if !conditionIs(got, sbv1.ConditionReady, metav1.ConditionTrue) {
		t.Fatalf("conditions %+v", got.Status.Conditions)
	}
	// Exactly once: the same two Jobs (by UID) ran the whole run, the start
	// was not published again, and one results ConfigMap holds the results.
	after := targetJobs(t, ns, "fast", 1, 2)
	uids := map[string]bool{string(jobs[0].UID): true, string(jobs[1].UID): true}
	for _, j := range after {
		if !uids[string(j.UID)] {
			t.Fatalf("job %s was created again after the restart", j.Name)
		}
	}
	cm := &corev1.ConfigMap{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "restart-start"}, cm); err != nil {
		t.Fatal(err)
	}
	if record, err := plan.DecodeStartRecord(cm.Data["fast"]); err != nil || !record.Start.Equal(start.Start) {
		t.Fatalf("start republished: %s (%v)", cm.Data["fast"], err)
	}
	var cms corev1.ConfigMapList
	if err := k8sClient.List(context.Background(), &cms, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/component": "results"}); err != nil {
		t.Fatal(err)
	}
	if len(cms.Items) != 1 {
		t.Fatalf("want one results configmap, got %d", len(cms.Items))
	}
	if len(got.Status.Targets[0].Cells) != 3 {
		t.Fatalf("results lost across the restart: %+v", got.Status.Targets[0])
	}
}

func TestSpecChangeCancelsTheRunAndStartsANewOne(t *testing.T) {
	ns := newNamespace(t)
	createBenchmark(t, twoTargetBenchmark(ns, "change"))
	targetJobs(t, ns, "fast", 1, 2)

	got := getBenchmark(t, ns, "change")
	patch := client.MergeFrom(got.DeepCopy())
	got.Spec.Workloads[0].DurationSeconds = 2
	if err := k8sClient.Patch(context.Background(), got, patch); err != nil {
		t.Fatal(err)
	}
	targetJobs(t, ns, "fast", 2, 2)
	eventually(t, 10*time.Second, "old generation's jobs deleted", func() error {
		var jobs batchv1.JobList
		if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(ns), client.MatchingLabels{"storagebench.io/generation": "1"}); err != nil {
			return err
		}
		for _, j := range jobs.Items {
			if j.DeletionTimestamp == nil {
				return fmt.Errorf("job %s of generation 1 still there", j.Name)
			}
		}
		return nil
	})
	// The old jobs' deletion and the new run's status are two writes: the
	// status may follow a moment later.
	eventually(t, 10*time.Second, "status on the new run", func() error {
		got = getBenchmark(t, ns, "change")
		if got.Status.ObservedGeneration != 2 || !conditionIs(got, sbv1.ConditionReconciling, metav1.ConditionTrue) {
			return fmt.Errorf("status not on the new run: generation %d, %+v", got.Status.ObservedGeneration, got.Status.Conditions)
		}
		return nil
	})
	// The claims of unchanged targets are kept for the new run.
	var claims corev1.PersistentVolumeClaimList
	if err := k8sClient.List(context.Background(), &claims, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(claims.Items) != 2 {
		t.Fatalf("want the 2 claims of target fast kept, got %d", len(claims.Items))
	}
}

func TestExistingClaimTargetsUseTheUsersClaim(t *testing.T) {
	ns := newNamespace(t)
	ctx := context.Background()
	claim := func(name string, mode corev1.PersistentVolumeAccessMode) {
		c := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{mode},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: mustQuantity("1Gi")}},
			},
		}
		if err := k8sClient.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	claim("shared-nfs", corev1.ReadWriteMany)
	claim("single-disk", corev1.ReadWriteOnce)
	for name, tc := range map[string]struct {
		claim  string
		stalls string
	}{
		"uses-shared": {claim: "shared-nfs"},
		"refuses-rwo": {claim: "single-disk", stalls: `claim "single-disk" is shared by 2 clients but does not allow ReadWriteMany`},
	} {
		b := twoTargetBenchmark(ns, name)
		b.Spec.Targets = []sbv1.Target{{Name: "mine", ExistingClaimName: ptr.To(tc.claim), AccessMode: corev1.ReadWriteMany}}
		b.Spec.Baseline = ""
		createBenchmark(t, b)
		if tc.stalls != "" {
			stalledWith(t, ns, name, sbv1.ReasonInvalidSpec, tc.stalls)
			continue
		}
		jobs := targetJobs(t, ns, "mine", 1, 1)
		got := jobs[0].Spec.Template.Spec.Volumes[2].PersistentVolumeClaim.ClaimName
		if got != tc.claim || *jobs[0].Spec.Completions != 2 {
			t.Fatalf("the clients should share the user's claim %s: claim %s, %d completions", tc.claim, got, *jobs[0].Spec.Completions)
		}
	}
}

func TestParallelTargetsRunAtTheSameTime(t *testing.T) {
	ns := newNamespace(t)
	b := twoTargetBenchmark(ns, "parallel")
	b.Spec.TargetExecution = sbv1.TargetsParallel
	createBenchmark(t, b)
	// Both targets get their clients at once, and the run completes when
	// both have results.
	fastJobs := targetJobs(t, ns, "fast", 1, 2)
	slowJobs := targetJobs(t, ns, "slow", 1, 1)
	bindClaims(t, ns, "fast")
	bindClaims(t, ns, "slow")
	fastPods, slowPods := startPods(t, fastJobs), startPods(t, slowJobs)
	fastPlan, slowPlan := targetPlan(t, ns, "parallel", "fast", 1), targetPlan(t, ns, "parallel", "slow", 1)
	fastStart := waitForStartAndRunThrough(t, ns, "parallel", "fast", fastPlan)
	slowStart := waitForStartAndRunThrough(t, ns, "parallel", "slow", slowPlan)
	for i, pod := range fastPods {
		finishPod(t, pod, clientLog(t, fastPlan, int32(i), fastStart))
	}
	for i, pod := range slowPods {
		finishPod(t, pod, clientLog(t, slowPlan, int32(i), slowStart))
	}
	got := waitForCompleted(t, ns, "parallel")
	if got.Status.Verdict != sbv1.VerdictPassed || len(got.Status.Comparison.Cells) != 3 {
		t.Fatalf("verdict %s, comparison %+v", got.Status.Verdict, got.Status.Comparison)
	}
}
