package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/controllers"
	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/results"
)

// statusBudget is a quarter of etcd's default request limit (1.5 MiB): the
// whole object, managedFields included, must stay under it
// (docs/status-budget.md).
const statusBudget = 1536 << 10 / 4

// longName is a valid name of exactly n characters, distinct per i.
func longName(prefix string, i, n int) string {
	s := fmt.Sprintf("%s%02d", prefix, i)
	return s + strings.Repeat("x", n-len(s))
}

// worstCaseBenchmark is a spec at the documented maxima (16 targets, 64
// clients, 64 cells, 32 thresholds) with the longest valid names.
func worstCaseBenchmark(ns string) *sbv1.StorageBenchmark {
	b := &sbv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: strings.Repeat("b", 253), Finalizers: []string{"test.storagebench.io/hold"}}}
	s := &b.Spec
	for i := 0; i < sbv1.MaxTargets; i++ {
		s.Targets = append(s.Targets, sbv1.Target{
			Name: longName("t", i, 32), StorageClassName: ptr.To(longName("class", i, 253)), Size: ptr.To(resource.MustParse("1000Gi")),
			Price: &sbv1.Price{Amount: "12345678901234567.89", Currency: "USD", Period: "Month"},
		})
	}
	s.Baseline = s.Targets[0].Name
	s.Clients = sbv1.Clients{Count: sbv1.MaxClients, NodeSelector: map[string]string{}}
	for i := 0; i < 16; i++ {
		s.Clients.NodeSelector[longName("example.com/label", i, 63)] = longName("v", i, 63)
	}
	// 8 groups of 8 cells (64) and 8 search groups of 2 searches (16).
	for g := 0; g < 16; g++ {
		w := sbv1.WorkloadGroup{
			Name: longName("w", g, 24), BlockSizes: []sbv1.BlockSize{"63Mi", "64Mi"}, ReadPercents: []int32{100, 0, 50, 25},
			QueueDepths: []int32{4096}, NumJobs: []int32{64}, DurationSeconds: 86400, RampSeconds: ptr.To[int32](86400),
		}
		if g >= 8 {
			w.ReadPercents = []int32{100}
			w.LatencyTarget = &sbv1.LatencyTarget{Percentile: sbv1.PercentileP999, Microseconds: 60_000_000, MaxSteps: 24}
		}
		s.Workloads = append(s.Workloads, w)
	}
	s.Dataset = sbv1.Dataset{SizePerClient: "1Ti"}
	s.CompareTo = &sbv1.CompareTo{ConfigMap: strings.Repeat("c", 253), Key: strings.Repeat("k", 253)}
	for i := 0; i < 32; i++ {
		s.Thresholds = append(s.Thresholds, sbv1.Threshold{
			Name: longName("threshold", i, 63), Workload: s.Workloads[i%8].Name,
			MaxLatency: &sbv1.LatencyLimit{Percentile: sbv1.PercentileP999, Microseconds: 1},
		})
	}
	return b
}

// worstCaseResults are a target's results with the longest numbers, 64
// clients on 64 nodes with the longest names, a class with the most
// parameters and the most warnings.
func worstCaseResults(b *sbv1.StorageBenchmark, t *sbv1.Target) *results.TargetResult {
	h := hist.New()
	for v := int64(1); v < 1<<40; v = v*3 + 7 {
		h.Record(v)
	}
	encoded := h.Encode()
	direction := func() *results.DirectionStats {
		d := &results.DirectionStats{IOs: h.Count(), Bytes: h.Count() << 26, IOPS: 12345678.9, BytesPerSecond: 9.87654321e12, LatencyHistogram: encoded, CompletionLatencyHistogram: encoded}
		d.LatencyNs = results.LatencyNs{Min: h.Min(), Mean: h.Mean(), P50: h.Percentile(50), P90: h.Percentile(90), P99: h.Percentile(99), P999: h.Percentile(99.9), Max: h.Max()}
		return d
	}
	tr := &results.TargetResult{SchemaVersion: results.TargetResultSchema, Benchmark: b.Name, Generation: b.Generation, Target: t.Name, Clients: b.Spec.Clients.Count,
		Backends: []string{strings.Repeat("io_uring (auto: io_uring available [single_issuer,defer_taskrun,taskrun_flag,fixed_files,fixed_buffers,registered_ring,spin_wait]) ", 2)}, EngineVersion: strings.Repeat("v", 128),
		StartSkewMicroseconds: 1 << 40}
	env := &sbv1.Environment{StorageClassName: *t.StorageClassName, Provisioner: strings.Repeat("p", 253), Driver: strings.Repeat("d", 253),
		EngineVersion: strings.Repeat("v", 128), Parameters: map[string]string{}, VolumeAttributes: map[string]string{}}
	for i := 0; i < 32; i++ {
		env.Parameters[longName("parameter", i, 63)] = strings.Repeat("x", 256)
		env.VolumeAttributes[longName("attribute", i, 63)] = strings.Repeat("x", 256)
	}
	for i := int32(0); i < b.Spec.Clients.Count; i++ {
		env.Nodes = append(env.Nodes, sbv1.NodeFingerprint{Name: longName("node", int(i), 253), Zone: strings.Repeat("z", 128),
			InstanceType: strings.Repeat("i", 128), KernelVersion: strings.Repeat("k", 128), Clients: 1})
	}
	tr.Environment = env
	for _, cell := range b.Spec.Cells() {
		tr.Cells = append(tr.Cells, results.CellResult{Cell: cell, Repetitions: []results.RepetitionResult{{Repetition: 1, Read: direction(), Write: direction(), StartSkewMicroseconds: 1 << 40}}})
	}
	for _, search := range b.Spec.Searches() {
		step := results.SearchStep{Cell: search.Name + "-s24", StepLoad: sbv1.StepLoad{OfferedIOPS: 1 << 40, QueueDepth: 4096},
			AchievedIOPS: 12345678.9, BytesPerSecond: 9.87654321e12, P50Ns: 1 << 40, P99Ns: 1 << 40, P999Ns: 1 << 40, AtPercentileNs: 59_999_999_999}
		r := results.SearchResult{Search: search.Name, Outcome: results.SearchHoldsAtMaximum, Capacity: &step, Message: strings.Repeat("m", 256)}
		for range 24 {
			r.Steps = append(r.Steps, step)
		}
		tr.Searches = append(tr.Searches, r)
	}
	for i := 0; i < 32; i++ {
		tr.Warnings = append(tr.Warnings, sbv1.Warning{Reason: longName("Reason", i, 64), Target: t.Name, Cell: strings.Repeat("c", 96), Message: strings.Repeat("m", 512)})
	}
	return tr
}

func TestStatusAtTheDocumentedMaximaStaysWithinItsBudget(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	b := worstCaseBenchmark(ns)
	if err := k8sClient.Create(ctx, b); err != nil {
		t.Fatalf("the worst-case spec is refused: %v", err)
	}
	byTarget := map[string]*results.TargetResult{}
	for i := range b.Spec.Targets {
		byTarget[b.Spec.Targets[i].Name] = worstCaseResults(b, &b.Spec.Targets[i])
	}
	// The controller leaves a benchmark that is being deleted alone; the
	// finalizer keeps it there while the test writes its status.
	if err := k8sClient.Delete(ctx, b); err != nil {
		t.Fatal(err)
	}
	defer func() {
		current := &sbv1.StorageBenchmark{}
		if k8sClient.Get(ctx, client.ObjectKeyFromObject(b), current) == nil {
			current.Finalizers = nil
			_ = k8sClient.Update(ctx, current)
		}
	}()
	got := &sbv1.StorageBenchmark{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(b), got); err != nil {
		t.Fatal(err)
	}
	before := got.DeepCopy()
	controllers.FinishedStatus(got, byTarget, time.Now())
	if len(got.Status.Violations) != 64 || len(got.Status.Warnings) != 32 || len(got.Status.Targets[0].Searches) != 16 || len(got.Status.Comparison.Searches) != 16 {
		t.Fatalf("not the worst case: %d violations, %d warnings", len(got.Status.Violations), len(got.Status.Warnings))
	}
	// What a run can add beyond latency violations: regressions carry
	// then and now, and spec.compareTo a summary per target.
	for i := range got.Status.Violations {
		got.Status.Violations[i].ReferenceValue = strings.Repeat("9", 32)
		got.Status.Violations[i].Value = strings.Repeat("9", 32)
	}
	got.Status.Comparison.CompareTo = &sbv1.RunComparisonSummary{Source: strings.Repeat("s", 512), UnmatchedCells: 2048}
	for _, target := range b.Spec.Targets {
		got.Status.Comparison.CompareTo.Targets = append(got.Status.Comparison.CompareTo.Targets, sbv1.RunTargetComparison{
			Target: target.Name, MatchedCells: 64, GeomeanIOPSRatio: strings.Repeat("9", 24), GeomeanLatencyP99Ratio: strings.Repeat("9", 24)})
	}
	if err := k8sClient.Status().Patch(ctx, got, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		t.Fatalf("writing the worst-case status: %v", err)
	}

	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(sbv1.GroupVersion.WithKind("StorageBenchmark"))
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(b), stored); err != nil {
		t.Fatal(err)
	}
	size := func(v any) int { data, _ := json.Marshal(v); return len(data) }
	total, status, spec := size(stored.Object), size(stored.Object["status"]), size(stored.Object["spec"])
	managed := size(stored.GetManagedFields())
	t.Logf("worst case at the documented maxima: object %d bytes (%.0f %% of the %d-byte budget): spec %d, status %d, managedFields %d",
		total, 100*float64(total)/statusBudget, statusBudget, spec, status, managed)
	if total > statusBudget {
		t.Errorf("the object is %d bytes, over the status budget of %d (a quarter of etcd's 1.5 MiB request limit)", total, statusBudget)
	}
	for _, field := range []string{"targets", "comparison", "violations", "warnings", "conditions", "capacity"} {
		t.Logf("  status.%s: %d bytes", field, size(stored.Object["status"].(map[string]any)[field]))
	}
}
