package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/fakecluster"
	"github.com/storagebench/storagebench/internal/testenv"
)

const storageClass = "bench"

// bench is the envtest environment all measurements share.
type bench struct {
	env     *testenv.Env
	workers int
	timeout time.Duration
	seq     int
	// profiles is where manager processes write their profiles, if set.
	profiles string
}

func startBench(workers int, timeout time.Duration) (*bench, error) {
	env, err := testenv.Start()
	if err != nil {
		return nil, err
	}
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: storageClass}, Provisioner: "example.com/bench",
		Parameters: map[string]string{"type": "pd-ssd", "replication-type": "none"}}
	if err := env.Client.Create(context.Background(), class); err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &bench{env: env, workers: workers, timeout: timeout}, nil
}

func (b *bench) stop() { _ = b.env.Stop() }

func (b *bench) namespace() (string, error) {
	b.seq++
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d-%d", os.Getpid(), b.seq)}}
	return ns.Name, b.env.Client.Create(context.Background(), ns)
}

// row is one measurement.
type row struct {
	what           string
	wall, ctrlTime time.Duration
	turns          *turnWaits    // for one benchmark only
	cpu            time.Duration // the manager process's CPU
	reconciles     float64
	queueWait      time.Duration
	api            apiCounts
	objectBytes    int
	statusBytes    int
	managedBytes   int
	configMapBytes int
	allocatedBytes uint64
	peakHeapBytes  uint64
}

// measureShape runs one benchmark of the shape with a fresh manager.
func (b *bench) measureShape(ctx context.Context, s shape) (*row, error) {
	ns, err := b.namespace()
	if err != nil {
		return nil, err
	}
	bm, err := benchmarkFor(ns, "scale", storageClass, s)
	if err != nil {
		return nil, err
	}
	r := &row{what: s.String()}
	if err := b.measure(ctx, r, []*sbv1.StorageBenchmark{bm}); err != nil {
		return nil, err
	}
	if err := b.objectSizes(ctx, r, bm); err != nil {
		return nil, err
	}
	return r, b.collectGarbage(ctx)
}

// measureMany creates n small benchmarks at once and drives them together.
func (b *bench) measureMany(ctx context.Context, n int) (*row, error) {
	ns, err := b.namespace()
	if err != nil {
		return nil, err
	}
	var list []*sbv1.StorageBenchmark
	for i := 0; i < n; i++ {
		bm, err := benchmarkFor(ns, fmt.Sprintf("small-%02d", i), storageClass, shape{1, 1, 1})
		if err != nil {
			return nil, err
		}
		list = append(list, bm)
	}
	r := &row{what: fmt.Sprintf("%d x 1x1x1", n)}
	if err := b.measure(ctx, r, list); err != nil {
		return nil, err
	}
	return r, b.collectGarbage(ctx)
}

// measure starts a manager process, warms it up, creates the benchmarks,
// drives them to Completed and takes the manager's figures for the span.
func (b *bench) measure(ctx context.Context, r *row, list []*sbv1.StorageBenchmark) error {
	dir, err := os.MkdirTemp("", "bench-controller-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	profile := ""
	if b.profiles != "" {
		profile = filepath.Join(b.profiles, strings.ReplaceAll(r.what, " ", ""))
	}
	m, err := startManagerProcess(b.env, dir, b.workers, profile)
	if err != nil {
		return err
	}
	defer m.stop()
	h := &harness{cluster: &fakecluster.Cluster{Client: b.env.Client, Logs: fileLogs{dir: dir}}, manager: m}
	// A warm-up run first: a new manager starts its informers on its first
	// passes, which every measurement would otherwise include.
	if err := b.warmUp(ctx, h); err != nil {
		return fmt.Errorf("warming up: %w", err)
	}
	h.busy, h.turns = 0, turnWaits{}
	before, err := m.stats()
	if err != nil {
		return err
	}

	began := time.Now()
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i, bm := range list {
		if err := b.env.Client.Create(ctx, bm); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.drive(ctx, bm, b.timeout)
		}()
	}
	wg.Wait()
	r.wall = time.Since(began)
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("%w (manager log: %s/manager.log)", err, dir)
		}
	}
	after, err := m.stats()
	if err != nil {
		return err
	}
	r.reconciles = after.Reconciles - before.Reconciles
	r.queueWait = time.Duration((after.QueueWaitSeconds - before.QueueWaitSeconds) * float64(time.Second))
	r.cpu = time.Duration((after.CPUSeconds - before.CPUSeconds) * float64(time.Second))
	r.allocatedBytes = after.TotalAlloc - before.TotalAlloc
	r.peakHeapBytes = after.PeakHeap
	r.api = apiCounts{byRequest: map[string]int{}, statusPatches: after.StatusPatches - before.StatusPatches,
		statusPatchBytes: after.StatusPatchBytes - before.StatusPatchBytes, statusConflicts: after.StatusConflicts - before.StatusConflicts}
	for k, v := range after.Requests {
		if d := v - before.Requests[k]; d > 0 {
			r.api.byRequest[k] = d
			r.api.total += d
		}
	}
	// With several benchmarks driven at once the harness's actions overlap;
	// the controller's time is only meaningful for one.
	if len(list) == 1 {
		r.ctrlTime = r.wall - h.busy
		r.turns = &h.turns
	}
	return nil
}

func (b *bench) warmUp(ctx context.Context, h *harness) error {
	ns, err := b.namespace()
	if err != nil {
		return err
	}
	bm, err := benchmarkFor(ns, "warm-up", storageClass, shape{1, 1, 1})
	if err != nil {
		return err
	}
	if err := b.env.Client.Create(ctx, bm); err != nil {
		return err
	}
	return h.drive(ctx, bm, b.timeout)
}

// objectSizes records the final benchmark object (managedFields included)
// and its ConfigMaps, as etcd stores them.
func (b *bench) objectSizes(ctx context.Context, r *row, bm *sbv1.StorageBenchmark) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(sbv1.GroupVersion.WithKind("StorageBenchmark"))
	if err := b.env.Client.Get(ctx, client.ObjectKeyFromObject(bm), u); err != nil {
		return err
	}
	r.objectBytes = jsonSize(u.Object)
	r.statusBytes = jsonSize(u.Object["status"])
	r.managedBytes = jsonSize(u.GetManagedFields())
	var cms corev1.ConfigMapList
	if err := b.env.Client.List(ctx, &cms, client.InNamespace(bm.Namespace)); err != nil {
		return err
	}
	for i := range cms.Items {
		r.configMapBytes += jsonSize(&cms.Items[i])
	}
	return nil
}

func jsonSize(v any) int {
	data, _ := json.Marshal(v)
	return len(data)
}

// controllerMetrics reads the reconciler's reconcile count and the total
// time requests waited in its work queue from controller-runtime's metrics
// (in the manager process).
func controllerMetrics() (reconciles, queueWaitSeconds float64) {
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return 0, 0
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch {
			case f.GetName() == "controller_runtime_reconcile_total" && labels["controller"] == "storagebenchmark":
				reconciles += m.GetCounter().GetValue()
			case f.GetName() == "workqueue_queue_duration_seconds" && labels["name"] == "storagebenchmark":
				queueWaitSeconds += m.GetHistogram().GetSampleSum()
			}
		}
	}
	return reconciles, queueWaitSeconds
}
