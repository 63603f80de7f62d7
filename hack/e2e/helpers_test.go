//go:build e2e

// Package e2e runs StorageBenchmarks on a real cluster: the local cluster
// of hack/local-cluster.sh with its defaults (two nodes, real kubelets and
// containerd, storage classes with known IOPS caps provisioned by
// local-path-provisioner, the GlusterFS class), with the operator installed
// by its Helm chart. `make e2e` sets it all up; KUBECONFIG must point at
// it. Tests that need two nodes or the GlusterFS class fail naming what is
// missing on a cluster started with fewer.
package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/testenv"
	"github.com/storagebench/storagebench/results"
)

var k8s client.Client

// managerNamespace is where `make e2e` installs the operator.
var managerNamespace = envOr("STORAGEBENCH_E2E_MANAGER_NAMESPACE", "storagebench-system")

func TestMain(m *testing.M) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e tests need a cluster (run make e2e):", err)
		os.Exit(1)
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = sbv1.AddToScheme(scheme)
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// benchNamespace makes a namespace that enforces the restricted Pod
// Security Standard, as a careful user's benchmark namespace would.
func benchNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest",
	}}}
	if err := k8s.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if os.Getenv("STORAGEBENCH_E2E_KEEP") == "" {
			_ = k8s.Delete(context.Background(), ns)
		}
	})
	return ns.Name
}

// classCap reads a local storage class's IOPS cap (its ground truth).
func classCap(t *testing.T, class string) int64 {
	t.Helper()
	sc := &storagev1.StorageClass{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: class}, sc); err != nil {
		t.Fatalf("storage class %s: %v (start the cluster with hack/local-cluster.sh up)", class, err)
	}
	v, err := strconv.ParseInt(sc.Annotations["storagebench.dev/iops-cap"], 10, 64)
	if err != nil {
		t.Fatalf("class %s has no storagebench.dev/iops-cap annotation", class)
	}
	return v
}

func target(name, class string) sbv1.Target {
	return sbv1.Target{Name: name, StorageClassName: ptr.To(class), Size: ptr.To(resource.MustParse("200Mi"))}
}

// randomCells is 4 KiB random reads and writes, the cells whose IOPS the
// class caps bound.
func randomCells(seconds int32) sbv1.WorkloadGroup {
	return sbv1.WorkloadGroup{
		Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 0},
		QueueDepths: []int32{16}, DurationSeconds: seconds, RampSeconds: ptr.To[int32](2),
	}
}

func create(t *testing.T, b *sbv1.StorageBenchmark) {
	t.Helper()
	if err := k8s.Create(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, ns, name string) *sbv1.StorageBenchmark {
	t.Helper()
	b := &sbv1.StorageBenchmark{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, b); err != nil {
		t.Fatal(err)
	}
	return b
}

// waitFor polls until check passes.
func waitFor(t *testing.T, timeout time.Duration, what string, check func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, time.Second, what, check)
}

func condition(b *sbv1.StorageBenchmark, kind string) *metav1.Condition {
	c := meta.FindStatusCondition(b.Status.Conditions, kind)
	if c == nil || c.ObservedGeneration != b.Generation {
		return nil
	}
	return c
}

// waitCompleted waits for the run to end and fails the test if it failed
// to run (a thresholds verdict is the caller's to judge).
func waitCompleted(t *testing.T, ns, name string, timeout time.Duration) *sbv1.StorageBenchmark {
	t.Helper()
	var b *sbv1.StorageBenchmark
	waitFor(t, timeout, name+" Completed", func() error {
		b = get(t, ns, name)
		if c := condition(b, sbv1.ConditionCompleted); c != nil && c.Status == metav1.ConditionTrue {
			return nil
		}
		p := ""
		if b.Status.Progress != nil {
			p = b.Status.Progress.Summary + " " + b.Status.Progress.CurrentTarget
		}
		return fmt.Errorf("progress %s", p)
	})
	if b.Status.Verdict == "" {
		t.Fatalf("%s completed without results: %s", name, describeConditions(b))
	}
	return b
}

func describeConditions(b *sbv1.StorageBenchmark) string {
	var parts []string
	for _, c := range b.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	for _, ts := range b.Status.Targets {
		parts = append(parts, fmt.Sprintf("target %s %s %s", ts.Name, ts.State, ts.Message))
	}
	return strings.Join(parts, "; ")
}

// targetResult reads a target's full results from its ConfigMap.
func targetResult(t *testing.T, b *sbv1.StorageBenchmark, name string) *results.TargetResult {
	t.Helper()
	for _, ts := range b.Status.Targets {
		if ts.Name != name {
			continue
		}
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: b.Namespace, Name: ts.ResultsConfigMap}, cm); err != nil {
			t.Fatal(err)
		}
		tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	t.Fatalf("no target %s in status", name)
	return nil
}

// cellSummary is a target's cell as status sums it up (reads and writes
// together).
func cellSummary(t *testing.T, b *sbv1.StorageBenchmark, target, cell string) *sbv1.CellSummary {
	t.Helper()
	for _, ts := range b.Status.Targets {
		if ts.Name == target {
			for i := range ts.Cells {
				if ts.Cells[i].Name == cell {
					return &ts.Cells[i]
				}
			}
		}
	}
	t.Fatalf("no cell %s for target %s", cell, target)
	return nil
}

// iops is a cell's total IOPS.
func iops(t *testing.T, c *sbv1.CellSummary) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(c.IOPS, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// storedOutcome reads a finished run's whole outcome from its ConfigMap.
func storedOutcome(t *testing.T, b *sbv1.StorageBenchmark) *results.StoredOutcome {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: b.Namespace, Name: b.Status.ComparisonConfigMap}, cm); err != nil {
		t.Fatalf("comparison configmap %q: %v", b.Status.ComparisonConfigMap, err)
	}
	o, err := results.DecodeOutcome(cm.Data, cm.BinaryData)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// clientResources: a BestEffort pod gets cpu.shares 2 on this node and
// cannot keep its queue full while the machine is busy; the chart's default
// (500m) would leave clients of benchmarks run side by side unschedulable on
// its 2 cores.
func clientResources() *sbv1.ClientResources {
	return &sbv1.ClientResources{Requests: &sbv1.ResourceAmounts{CPU: ptr.To(resource.MustParse("100m")), Memory: ptr.To(resource.MustParse("64Mi"))}}
}
