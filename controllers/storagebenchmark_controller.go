// Package controllers runs StorageBenchmarks: it provisions volumes, starts
// synchronized client pods, collects and merges their results and writes the
// outcome into status. Reconcile reads the world, runs named phases on a
// snapshot and writes status once; each phase lives in its own file.
package controllers

import (
	"context"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/benchmetrics"
	"github.com/storagebench/storagebench/internal/plan"
)

// StorageBenchmarkReconciler reconciles StorageBenchmark objects.
type StorageBenchmarkReconciler struct {
	// Client reads the benchmark's own children from the manager's cache.
	client.Client
	// APIReader reads what the cache does not hold: the user's claims,
	// storage classes, volumes and nodes.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  recorder.EventRecorder
	// Logs reads client pods' logs, where their reports are.
	Logs LogReader
	// ClientPods configures the client pods.
	ClientPods ClientPodConfig
	// Clock is injectable so tests can control time.
	Clock clock.Clock
	// references are the checked references of running generations.
	references *references
	// generations keeps plans and finished targets' results of runs in
	// progress.
	generations *generations
	// written is the version of each benchmark this process last wrote.
	written written
	// workers is the most benchmarks reconciled at once.
	workers int
}

// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarks,verbs=get;list;watch
// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarks/finalizers,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete

// Reconcile moves one benchmark's run forward and records where it is.
func (r *StorageBenchmarkReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	bench, err := r.readBenchmark(ctx, req.NamespacedName)
	if err != nil {
		if apierrors.IsNotFound(err) {
			r.references.forget(req.NamespacedName)
			r.generations.forget(req.NamespacedName)
			r.written.set(req.NamespacedName, "", time.Time{})
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !bench.DeletionTimestamp.IsZero() {
		// Everything the run created is owned by the benchmark: the garbage
		// collector removes it, nothing else to do.
		r.references.forget(req.NamespacedName)
		r.generations.forget(req.NamespacedName)
		return ctrl.Result{}, nil
	}

	before := bench.DeepCopy()
	p := newPass(bench, r.Clock)
	p.plans = func(t *sbv1.Target) *plan.Plan { return r.generations.plan(bench, t) }
	generation := r.generations.of(bench)
	p.targetResults = generation.results
	p.provisioningStarts = generation.provisioningStarts
	p.searches = generation.searches
	p.reportsRead = generation.reportsRead
	result, runErr := r.advance(ctx, p)
	boundMessages(&bench.Status)
	if ended(bench) {
		// Nothing more is planned or merged for this generation.
		r.generations.forget(req.NamespacedName)
	}

	// A pass that decided nothing new writes nothing: a status PATCH costs
	// the API server and etcd a write and every watcher an event.
	wait, lost, err := r.writeStatus(ctx, req.NamespacedName, before, p)
	switch {
	case err != nil:
		return ctrl.Result{}, err
	case lost:
		return ctrl.Result{RequeueAfter: conflictRequeue}, nil
	case wait > 0:
		result = soonest(result, wait)
	}
	if ended(bench) && !ended(before) {
		benchmetrics.CountCompleted(bench)
	}
	// Events go out only once the status they explain is stored.
	for _, e := range p.events {
		r.Recorder.Eventf(bench, nil, e.kind, e.reason, e.action, "%s", truncate(e.message, maxMessage))
	}
	// A returned error is logged by controller-runtime and retried with
	// backoff: logging it here too would log it twice.
	return result, runErr
}

// Options configure the controller when it is set up.
type Options struct {
	// Logs reads client pod logs, where their reports are.
	Logs LogReader
	// ClientPods configures the client pods.
	ClientPods ClientPodConfig
	// Clock is the controller's clock (tests use a fake one).
	Clock clock.Clock
	// MaxConcurrentReconciles is how many benchmarks are reconciled at once
	// (0: DefaultMaxConcurrentReconciles). One benchmark is never
	// reconciled by two workers at once: the work queue hands a benchmark
	// to one worker at a time.
	MaxConcurrentReconciles int
}

// DefaultMaxConcurrentReconciles lets a few benchmarks move on while one
// merges a large target's reports (seconds at the documented maxima) or
// waits on the API server; a pass is short otherwise, so a cluster with
// many benchmarks needs few workers.
const DefaultMaxConcurrentReconciles = 4

// Setup builds the reconciler from a manager's clients and registers it.
func Setup(mgr ctrl.Manager, opts Options) error {
	r := &StorageBenchmarkReconciler{
		Client:     mgr.GetClient(),
		APIReader:  mgr.GetAPIReader(),
		Scheme:     mgr.GetScheme(),
		Recorder:   mgr.GetEventRecorder("storagebench"),
		Logs:       opts.Logs,
		ClientPods: opts.ClientPods,
		Clock:      opts.Clock,
		workers:    opts.MaxConcurrentReconciles,
	}
	return r.SetupWithManager(mgr)
}

// SetupWithManager registers the reconciler and what it watches: its
// children, and the client pods (owned by its Jobs) whose readiness and
// completion drive the run.
func (r *StorageBenchmarkReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.references == nil {
		r.references = newReferences()
	}
	if r.generations == nil {
		r.generations = newGenerations()
	}
	podsToBenchmark := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
		owner := obj.GetAnnotations()[benchmarkAnnotation]
		if owner == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: owner}}}
	})
	workers := r.workers
	if workers <= 0 {
		workers = DefaultMaxConcurrentReconciles
	}
	owner := handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &sbv1.StorageBenchmark{}, handler.OnlyControllerOwner())
	// Bursts are told apart in real time, whatever the run's clock says.
	bursts := newDebouncer(clock.RealClock{})
	return ctrl.NewControllerManagedBy(mgr).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
		For(&sbv1.StorageBenchmark{}).
		Watches(&batchv1.Job{}, bursts.delayed(owner)).
		Watches(&corev1.PersistentVolumeClaim{}, bursts.delayed(owner)).
		Watches(&corev1.ConfigMap{}, bursts.delayed(owner)).
		Watches(&corev1.Pod{}, bursts.delayed(podsToBenchmark)).
		Named("storagebenchmark").
		Complete(r)
}
