package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/controllers"
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
}

func startBench(workers int, timeout time.Duration) (*bench, error) {
	log.SetLogger(logrDiscard())
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

// manager is one manager run for one measurement, with its API counter.
type manager struct {
	counter *apiCounter
	harness *harness
	stop    func()
}

// startManager runs the reconciler as the manager command does (cache
// options, no client-side rate limit), with a counting transport, the
// harness's logs and a fake clock.
func (b *bench) startManager() (*manager, error) {
	counter := newAPICounter()
	cfg := rest.CopyConfig(b.env.Config)
	cfg.QPS = -1 // as ctrl.GetConfig: API priority and fairness, no client-side limiter
	cfg.Wrap(counter.wrap)
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 b.env.Scheme,
		Cache:                  controllers.CacheOptions(cache.Options{}),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, err
	}
	h := &harness{cluster: &fakecluster.Cluster{Client: b.env.Client, Logs: fakecluster.NewLogs()}, clock: clocktesting.NewFakeClock(time.Now())}
	pods := controllers.ClientPodConfig{Image: "storagebench:bench", ImagePullPolicy: corev1.PullNever}
	if err := controllers.Setup(mgr, controllers.Options{Logs: h.cluster.Logs, ClientPods: pods, Clock: h.clock, MaxConcurrentReconciles: b.workers}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return &manager{counter: counter, harness: h, stop: func() { cancel(); <-done }}, nil
}

func (b *bench) namespace() (string, error) {
	b.seq++
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d-%d", os.Getpid(), b.seq)}}
	return ns.Name, b.env.Client.Create(context.Background(), ns)
}

// row is one measurement.
type row struct {
	what           string
	wall, ctrlTime time.Duration
	reconciles     float64
	queueWait      time.Duration
	api            apiCounts
	objectBytes    int
	statusBytes    int
	managedBytes   int
	configMapBytes int
	largestCMBytes int
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
	err = b.measure(ctx, r, []*sbv1.StorageBenchmark{bm})
	if err != nil {
		return nil, err
	}
	return r, b.objectSizes(ctx, r, bm)
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
	return r, b.measure(ctx, r, list)
}

// measure creates the benchmarks, drives them to Completed with a fresh
// manager and fills in the row's time, request, reconcile and memory
// figures.
func (b *bench) measure(ctx context.Context, r *row, list []*sbv1.StorageBenchmark) error {
	m, err := b.startManager()
	if err != nil {
		return err
	}
	defer m.stop()
	// A warm-up run first: a new manager starts its informers on its first
	// passes, which every measurement would otherwise include.
	if err := b.warmUp(ctx, m); err != nil {
		return fmt.Errorf("warming up: %w", err)
	}
	m.counter.reset()
	m.harness.busy, m.harness.logAllocs = 0, 0
	reconcilesBefore, waitBefore := controllerMetrics()
	runtime.GC()
	var memBefore runtime.MemStats
	runtime.ReadMemStats(&memBefore)
	peak := newPeakSampler()

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
			errs[i] = m.harness.drive(ctx, bm, b.timeout)
		}()
	}
	wg.Wait()
	r.wall = time.Since(began)
	r.peakHeapBytes = peak.stop()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	var memAfter runtime.MemStats
	runtime.ReadMemStats(&memAfter)
	reconcilesAfter, waitAfter := controllerMetrics()
	r.reconciles = reconcilesAfter - reconcilesBefore
	r.queueWait = time.Duration((waitAfter - waitBefore) * float64(time.Second))
	r.api = m.counter.snapshot()
	r.allocatedBytes = memAfter.TotalAlloc - memBefore.TotalAlloc - m.harness.logAllocs
	// With several benchmarks driven at once the harness's actions overlap;
	// the controller's time is only meaningful for one.
	if len(list) == 1 {
		r.ctrlTime = r.wall - m.harness.busy
	}
	return nil
}

func (b *bench) warmUp(ctx context.Context, m *manager) error {
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
	return m.harness.drive(ctx, bm, b.timeout)
}

// objectSizes records the final benchmark object (managedFields included)
// and its results ConfigMaps, as etcd stores them.
func (b *bench) objectSizes(ctx context.Context, r *row, bm *sbv1.StorageBenchmark) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(sbv1.GroupVersion.WithKind("StorageBenchmark"))
	if err := b.env.Client.Get(ctx, client.ObjectKeyFromObject(bm), u); err != nil {
		return err
	}
	r.objectBytes = jsonSize(u.Object)
	r.statusBytes = jsonSize(u.Object["status"])
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		r.managedBytes = jsonSize(md["managedFields"])
	}
	var cms corev1.ConfigMapList
	if err := b.env.Client.List(ctx, &cms, client.InNamespace(bm.Namespace)); err != nil {
		return err
	}
	for i := range cms.Items {
		n := jsonSize(&cms.Items[i])
		r.configMapBytes += n
		r.largestCMBytes = max(r.largestCMBytes, n)
	}
	return nil
}

func jsonSize(v any) int {
	data, _ := json.Marshal(v)
	return len(data)
}

// controllerMetrics reads the reconciler's reconcile count and the total
// time requests waited in its work queue from controller-runtime's metrics.
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

// peakSampler follows the process's heap while a measurement runs.
type peakSampler struct {
	done chan struct{}
	peak chan uint64
}

func newPeakSampler() *peakSampler {
	p := &peakSampler{done: make(chan struct{}), peak: make(chan uint64)}
	go func() {
		var peak uint64
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-p.done:
				p.peak <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *peakSampler) stop() uint64 {
	close(p.done)
	return <-p.peak
}
