package benchmetrics

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// measured is a real run's results (two targets, four cells).
func measured(t *testing.T) *results.RunResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "results", "testdata", "run-result-repeated-priced.json"))
	if err != nil {
		t.Fatal(err)
	}
	rr, err := results.DecodeRunResult("run-result-repeated-priced.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

var t0 = time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)

// completedRun is a benchmark whose run completed at end with the
// measured targets' results in ConfigMaps.
func completedRun(t *testing.T, rr *results.RunResult, ns, name string, end time.Time, verdict sbv1.Verdict) []client.Object {
	t.Helper()
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(name), Generation: 1},
		Spec:       rr.Spec,
	}
	b.Status.ObservedGeneration = 1
	b.Status.StartTime = ptr.To(metav1.NewTime(end.Add(-90 * time.Second)))
	b.Status.CompletionTime = ptr.To(metav1.NewTime(end))
	b.Status.Verdict = verdict
	b.Status.Conditions = []metav1.Condition{{Type: sbv1.ConditionCompleted, Status: metav1.ConditionTrue, ObservedGeneration: 1, Reason: "Succeeded", LastTransitionTime: metav1.NewTime(end)}}
	objs := []client.Object{b}
	for _, tr := range rr.Targets {
		data, binary, err := results.EncodeStored(tr)
		if err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-" + tr.Target, UID: types.UID(name + "-" + tr.Target)}, Data: data, BinaryData: binary}
		b.Status.Targets = append(b.Status.Targets, sbv1.TargetStatus{Name: tr.Target, State: sbv1.TargetSucceeded, ResultsConfigMap: cm.Name,
			VolumesBoundMilliseconds: ptr.To[int64](800), ClientsReadyMilliseconds: ptr.To[int64](4100)})
		objs = append(objs, cm)
	}
	return objs
}

func ofSchedule(s *sbv1.StorageBenchmarkSchedule, scheduled time.Time, objs []client.Object) []client.Object {
	b := objs[0].(*sbv1.StorageBenchmark)
	b.Labels = map[string]string{sbv1.LabelSchedule: s.Name}
	b.Annotations = map[string]string{sbv1.AnnotationScheduledTime: scheduled.Format(time.RFC3339)}
	b.OwnerReferences = []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: kindSchedule, Name: s.Name, UID: s.UID, Controller: ptr.To(true)}}
	return objs
}

// cluster holds a plain benchmark, a schedule with an older and a newer
// completed run and a running one, and a benchmark still running.
func cluster(t *testing.T) client.Client {
	t.Helper()
	rr := measured(t)
	s := &sbv1.StorageBenchmarkSchedule{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "nightly", UID: "nightly", Generation: 1},
		Spec:       sbv1.StorageBenchmarkScheduleSpec{Schedule: "0 3 * * *", Template: sbv1.StorageBenchmarkTemplate{Spec: rr.Spec}},
	}
	s.Status.NextScheduleTime = ptr.To(metav1.NewTime(t0.Add(48 * time.Hour)))
	s.Status.Runs = []sbv1.ScheduledRun{{Name: "nightly-3", ScheduledTime: metav1.NewTime(t0.Add(24 * time.Hour))}, {Name: "nightly-2", ScheduledTime: metav1.NewTime(t0)}}
	s.Status.Conditions = []metav1.Condition{{Type: sbv1.ConditionDrifted, Status: metav1.ConditionTrue, ObservedGeneration: 1, Reason: "Drifted", LastTransitionTime: metav1.NewTime(t0)}}
	objs := []client.Object{s}
	objs = append(objs, withSearch(completedRun(t, withSearchGroup(rr), "ops", "compare", t0, sbv1.VerdictPassed))...)
	objs = append(objs, ofSchedule(s, t0.Add(-24*time.Hour), completedRun(t, rr, "ops", "nightly-1", t0.Add(-23*time.Hour), sbv1.VerdictPassed))...)
	objs = append(objs, ofSchedule(s, t0, completedRun(t, rr, "ops", "nightly-2", t0.Add(time.Hour), sbv1.VerdictFailed))...)
	running := ofSchedule(s, t0.Add(24*time.Hour), completedRun(t, rr, "ops", "nightly-3", t0.Add(25*time.Hour), ""))
	running[0].(*sbv1.StorageBenchmark).Status.Conditions = nil
	objs = append(objs, running...)
	scheme := k8sruntime.NewScheme()
	if err := sbv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
}

// scrapeTime is when the tests scrape: 30 hours after the schedule's
// newest run (t0 + 24h), so one more 03:00 has passed without a run.
var scrapeTime = t0.Add(54 * time.Hour)

func newCollector(c client.Client) *Collector {
	col, _ := newCountingCollector(c)
	return col
}

// newCountingCollector reads through a cache that, as the manager's,
// holds no ConfigMap data; it counts the collector's reads of the data.
func newCountingCollector(c client.Client) (*Collector, *countingReader) {
	data := &countingReader{Reader: c}
	col := New(metadataOnlyReader{c}, data)
	col.now = func() time.Time { return scrapeTime }
	return col, data
}

// metadataOnlyReader returns ConfigMaps without their data.
type metadataOnlyReader struct{ client.Reader }

func (r metadataOnlyReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := r.Reader.Get(ctx, key, obj, opts...)
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		cm.Data, cm.BinaryData = nil, nil
	}
	return err
}

type countingReader struct {
	client.Reader
	gets int
	err  error // what every read returns, when set
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.gets++
	if r.err != nil {
		return r.err
	}
	return r.Reader.Get(ctx, key, obj, opts...)
}

func gather(t *testing.T, c client.Client) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(newCollector(c)); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// series renders each series as name{label=value,...} (labels sorted by
// name, as Gather sorts them) and its value.
func series(families []*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.Metric {
			var labels []string
			for _, l := range m.Label {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			out[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetGauge().GetValue()
		}
	}
	return out
}

func seriesKey(name string, labels map[string]string) string {
	var parts []string
	for k, v := range labels {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}

func TestTheLatestCompletedRunsAreExported(t *testing.T) {
	rr := measured(t)
	got := series(gather(t, cluster(t)))

	// Every cell and direction of both targets, with the results'
	// numbers, for the plain benchmark and for the schedule.
	for owner, kind := range map[string]string{"compare": kindBenchmark, "nightly": kindSchedule} {
		for _, tr := range rr.Targets {
			for _, cell := range tr.Cells {
				rep := cell.Result()
				for dir, stats := range map[string]*results.DirectionStats{"read": rep.Read, "write": rep.Write} {
					labels := map[string]string{"benchmark": owner, "cell": cell.Cell.Name, "direction": dir, "kind": kind, "namespace": "ops", "target": tr.Target, "workload": cell.Cell.Workload}
					key := seriesKey("storagebench_cell_iops", labels)
					v, ok := got[key]
					if stats == nil || stats.IOs == 0 {
						if ok {
							t.Errorf("%s: a direction without IOs is exported", key)
						}
						continue
					}
					if !ok || v != stats.IOPS {
						t.Errorf("storagebench_cell_iops{%s} = %v (exported %v), want %v", key, v, ok, stats.IOPS)
					}
					labels["percentile"] = "99"
					if p99 := got[seriesKey("storagebench_cell_latency_seconds", labels)]; p99 != float64(stats.LatencyNs.P99)/1e9 {
						t.Errorf("p99 of %s = %v s, want %v ns", key, p99, stats.LatencyNs.P99)
					}
				}
			}
		}
	}
	// The schedule's newest completed run is nightly-2 (Failed); the
	// running nightly-3 and the older nightly-1 are not exported.
	if v := got["storagebench_run_verdict{benchmark=nightly,kind=StorageBenchmarkSchedule,namespace=ops,verdict=Failed}"]; v != 1 {
		t.Errorf("schedule verdict Failed = %v, want 1 (nightly-2's)", v)
	}
	if v := got["storagebench_run_completion_timestamp_seconds{benchmark=nightly,kind=StorageBenchmarkSchedule,namespace=ops}"]; v != float64(t0.Add(time.Hour).Unix()) {
		t.Errorf("schedule completion = %v, want nightly-2's %v", v, t0.Add(time.Hour).Unix())
	}
	for k, v := range map[string]float64{
		"storagebench_run_duration_seconds{benchmark=compare,kind=StorageBenchmark,namespace=ops}":                        90,
		"storagebench_target_volumes_bound_seconds{benchmark=compare,kind=StorageBenchmark,namespace=ops,target=premium}": 0.8,
		"storagebench_schedule_drifted{namespace=ops,schedule=nightly}":                                                   1,
		"storagebench_schedule_runs_behind{namespace=ops,schedule=nightly}":                                               1,
		"storagebench_schedule_last_run_timestamp_seconds{namespace=ops,schedule=nightly}":                                float64(t0.Add(24 * time.Hour).Unix()),
	} {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if n := len(got); n > 2*SeriesPerBenchmark+5 {
		t.Errorf("%d series, more than the documented bound for two benchmarks", n)
	}
}

func TestResultsAreReadFromTheAPIServerOncePerVersion(t *testing.T) {
	col, data := newCountingCollector(cluster(t))
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(col); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := reg.Gather(); err != nil {
			t.Fatal(err)
		}
	}
	// Two exported runs (compare and nightly-2) of two targets each.
	if data.gets != 4 {
		t.Errorf("results ConfigMaps read %d times from the API server in three scrapes, want 4 (once each)", data.gets)
	}
}

func TestAFailedReadOfResultsFailsTheScrape(t *testing.T) {
	col, data := newCountingCollector(cluster(t))
	data.err = errors.New("the API server timed out")
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(col); err != nil {
		t.Fatal(err)
	}
	_, err := reg.Gather()
	if err == nil || !strings.Contains(err.Error(), "the API server timed out") || !strings.Contains(err.Error(), "reading the results of ops/compare, target") {
		t.Errorf("scrape error %v, want the failed read named", err)
	}
}

func TestADeletedBenchmarksSeriesDisappear(t *testing.T) {
	c := cluster(t)
	if err := c.Delete(context.Background(), &sbv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "compare"}}); err != nil {
		t.Fatal(err)
	}
	for k := range series(gather(t, c)) {
		if strings.Contains(k, "benchmark=compare") {
			t.Fatalf("series of the deleted benchmark still exported: %s", k)
		}
	}
}

// scrape is what the manager's registry serves: the collector over the
// test cluster and the runs counter, one run counted.
func scrape(t *testing.T) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := Register(reg, newCollector(cluster(t))); err != nil {
		t.Fatal(err)
	}
	RunsCompleted.WithLabelValues("ops", "Passed").Inc()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// TestPromtoolAcceptsTheExposition runs `promtool check metrics` (names,
// units, help, label conventions) on what a scrape returns. promtool is
// built from its Go module (make promtool); the test skips without it
// unless STORAGEBENCH_REQUIRE_PROMTOOL is set, as CI does.
func TestPromtoolAcceptsTheExposition(t *testing.T) {
	promtool := os.Getenv("PROMTOOL")
	if promtool == "" {
		if os.Getenv("STORAGEBENCH_REQUIRE_PROMTOOL") != "" {
			t.Fatal("PROMTOOL is not set and STORAGEBENCH_REQUIRE_PROMTOOL is: run `make test`, which builds promtool")
		}
		t.Skip("PROMTOOL not set (make test sets it)")
	}
	families := scrape(t)
	var text bytes.Buffer
	enc := expfmt.NewEncoder(&text, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = &text
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
	if len(families) != len(allDescs)+1 {
		t.Errorf("%d metric families, want every one the collector describes (%d) and the runs counter", len(families), len(allDescs))
	}
}

// TestTheMetricsListIsCurrent keeps testdata/metrics.txt, every exported
// metric with its labels, equal to what a scrape returns: the check of the
// shipped dashboard and alert rules (hack/tools/promtool) reads it to
// refuse a query on a metric or label the manager does not export.
func TestTheMetricsListIsCurrent(t *testing.T) {
	families := scrape(t)
	var want strings.Builder
	want.WriteString("# Every metric the manager exports and its labels (internal/benchmetrics; TestTheMetricsListIsCurrent).\n")
	for _, f := range families {
		labels := map[string]bool{}
		for _, m := range f.Metric {
			for _, l := range m.Label {
				labels[l.GetName()] = true
			}
		}
		names := make([]string, 0, len(labels))
		for l := range labels {
			names = append(names, l)
		}
		sort.Strings(names)
		want.WriteString(f.GetName() + " " + strings.Join(names, ",") + "\n")
	}
	got, err := os.ReadFile(filepath.Join("testdata", "metrics.txt"))
	if err != nil || string(got) != want.String() {
		t.Fatalf("testdata/metrics.txt is not current (%v); it should read:\n%s", err, want.String())
	}
}

// withSearchGroup adds a capacity search group to a run's spec.
func withSearchGroup(rr *results.RunResult) *results.RunResult {
	copied := *rr
	copied.Spec = *rr.Spec.DeepCopy()
	copied.Spec.Workloads = append(copied.Spec.Workloads, sbv1.WorkloadGroup{
		Name: "knee", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100}, LatencyTarget: &sbv1.LatencyTarget{Microseconds: 2000},
	})
	return &copied
}

// withSearch gives the run's two targets the search's answers in status:
// one found, one not reachable, and one of a search the spec lacks.
func withSearch(objs []client.Object) []client.Object {
	b := objs[0].(*sbv1.StorageBenchmark)
	b.Status.Targets[0].Searches = []sbv1.SearchSummary{{Search: "knee-bs4k-r100", Outcome: "Found", CapacityIOPS: "15000.5", LatencyMicroseconds: "1850.25", Steps: 8}}
	b.Status.Targets[1].Searches = []sbv1.SearchSummary{{Search: "knee-bs4k-r100", Outcome: "NotReachable", CapacityIOPS: "0", Steps: 2},
		{Search: "gone-bs4k-r100", Outcome: "Found", CapacityIOPS: "1"}}
	return objs
}

func TestACapacitySearchIsExportedFromStatus(t *testing.T) {
	objs := withSearch(completedRun(t, withSearchGroup(measured(t)), "ops", "capacity", t0, sbv1.VerdictPassed))
	b := objs[0].(*sbv1.StorageBenchmark)
	scheme := k8sruntime.NewScheme()
	if err := sbv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	got := series(gather(t, fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()))
	id := map[string]string{"namespace": "ops", "benchmark": "capacity", "kind": "StorageBenchmark", "workload": "knee", "search": "knee-bs4k-r100"}
	with := func(target string) map[string]string {
		labels := map[string]string{"target": target}
		for k, v := range id {
			labels[k] = v
		}
		return labels
	}
	first, second := b.Status.Targets[0].Name, b.Status.Targets[1].Name
	if v, ok := got[seriesKey("storagebench_search_capacity_iops", with(first))]; !ok || v != 15000.5 {
		t.Errorf("capacity of %s: %v (exported %v)", first, v, ok)
	}
	if v, ok := got[seriesKey("storagebench_search_latency_seconds", with(first))]; !ok || v != 0.00185025 {
		t.Errorf("latency of %s: %v (exported %v)", first, v, ok)
	}
	if v, ok := got[seriesKey("storagebench_search_capacity_iops", with(second))]; !ok || v != 0 {
		t.Errorf("capacity of %s (not reachable): %v (exported %v)", second, v, ok)
	}
	if _, ok := got[seriesKey("storagebench_search_latency_seconds", with(second))]; ok {
		t.Errorf("a bound met at no load has no latency to export")
	}
	for key := range got {
		if strings.Contains(key, "gone-bs4k-r100") {
			t.Errorf("a search the spec does not have is exported: %s", key)
		}
	}
}
