package controllers_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// oneTargetRun is a one-target, one-cell benchmark played to completion
// with n clients.
func oneTargetRun(t *testing.T, ns, name string, clients int32, compareTo *sbv1.CompareTo) *sbv1.StorageBenchmark {
	t.Helper()
	b := twoTargetBenchmark(ns, name)
	b.Spec.Targets, b.Spec.Baseline = b.Spec.Targets[:1], ""
	b.Spec.Clients.Count = clients
	b.Spec.Workloads[0].ReadPercents = []int32{100}
	b.Spec.CompareTo = compareTo
	createBenchmark(t, b)
	runTarget(t, ns, name, "fast", int(clients))
	return waitForCompleted(t, ns, name)
}

func TestCompareToRelatesTheRunToAnotherBenchmark(t *testing.T) {
	ns := newNamespace(t)
	before := oneTargetRun(t, ns, "q3", 2, nil)
	// The same cell with one client: less IOPS than the two of q3.
	now := oneTargetRun(t, ns, "q4", 1, &sbv1.CompareTo{Benchmark: "q3"})
	if !conditionIs(now, sbv1.ConditionReady, metav1.ConditionTrue) || now.Status.Comparison == nil || now.Status.Comparison.CompareTo == nil {
		t.Fatalf("conditions %+v, comparison %+v", now.Status.Conditions, now.Status.Comparison)
	}
	sum := now.Status.Comparison.CompareTo
	then, nowIOPS := before.Status.Targets[0].Cells[0].IOPS, now.Status.Targets[0].Cells[0].IOPS
	if len(sum.Targets) != 1 || sum.Targets[0].MatchedCells != 1 || sum.UnmatchedCells != 0 || sum.Source == "" {
		t.Fatalf("compareTo summary %+v", sum)
	}
	// The full comparison is stored with the outcome.
	cm := &corev1.ConfigMap{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: now.Status.ComparisonConfigMap}, cm); err != nil {
		t.Fatal(err)
	}
	outcome, err := results.DecodeOutcome(cm.Data, cm.BinaryData)
	if err != nil {
		t.Fatal(err)
	}
	if rc := outcome.CompareTo; rc == nil || len(rc.Cells) != 1 || rc.Cells[0].Delta.IOPSRatio != sum.Targets[0].GeomeanIOPSRatio {
		t.Fatalf("stored comparison %+v, summary %+v", outcome.CompareTo, sum)
	}
	t.Logf("q4 %s IOPS vs q3 %s: ratio %s (%s)", nowIOPS, then, sum.Targets[0].GeomeanIOPSRatio, sum.Source)
}

// staging applies a run exported elsewhere (`report -o json`) as a
// ConfigMap: the recorded run of results/testdata, its first target
// renamed fast.
func staging(t *testing.T, ns string, data []byte) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "staging"}, Data: map[string]string{"run-result.json": string(data)}}
	if err := k8sClient.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
}

func TestCompareToAnExportedRunInAConfigMap(t *testing.T) {
	ns := newNamespace(t)
	data, err := os.ReadFile(filepath.Join("..", "results", "testdata", "run-result-repeated-priced.json"))
	if err != nil {
		t.Fatal(err)
	}
	rr, err := results.DecodeRunResult("run-result-repeated-priced.json", data)
	if err != nil {
		t.Fatal(err)
	}
	rr.Spec.Targets[0].Name, rr.Targets[0].Target = "fast", "fast"
	if rr.Spec.Baseline == "standard" {
		rr.Spec.Baseline = "fast"
	}
	renamed, err := json.Marshal(rr)
	if err != nil {
		t.Fatal(err)
	}
	staging(t, ns, renamed)
	now := oneTargetRun(t, ns, "prod", 2, &sbv1.CompareTo{ConfigMap: "staging"})
	sum := now.Status.Comparison.CompareTo
	// The export's cells are other cells: nothing matches and every pair
	// is listed (this run's one cell, the export's 4 cells on 2 targets).
	if sum == nil || len(sum.Targets) != 1 || sum.Targets[0].MatchedCells != 0 || sum.UnmatchedCells != 9 {
		t.Fatalf("compareTo summary %+v", sum)
	}
}

func TestCompareToAnUnreadableExportIsRefusedNamingWhere(t *testing.T) {
	ns := newNamespace(t)
	staging(t, ns, []byte(`{"schemaVersion": "storagebench.io/run-result/v1", "benchmark": "x", "generation": 1, "targets": [{"target": "fast"}]}`))
	b := twoTargetBenchmark(ns, "prod")
	b.Spec.CompareTo = &sbv1.CompareTo{ConfigMap: "staging"}
	createBenchmark(t, b)
	stalledWith(t, ns, "prod", sbv1.ReasonInvalidSpec, "spec.compareTo: configmap staging key run-result.json", "targets[0]")
}

func TestCompareToAMissingBenchmarkIsRefusedUpFront(t *testing.T) {
	ns := newNamespace(t)
	b := twoTargetBenchmark(ns, "orphan")
	b.Spec.CompareTo = &sbv1.CompareTo{Benchmark: "never-ran"}
	createBenchmark(t, b)
	stalledWith(t, ns, "orphan", sbv1.ReasonInvalidSpec, `spec.compareTo.benchmark: benchmark "never-ran" not found`)
}
