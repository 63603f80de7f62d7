// Package controllers runs StorageBenchmarks: it provisions volumes, starts
// synchronized client pods, collects and merges their results and writes the
// outcome into status. Reconcile reads the world, runs named phases on a
// snapshot and writes status once; each phase lives in its own file.
package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// StorageBenchmarkReconciler reconciles StorageBenchmark objects.
type StorageBenchmarkReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder recorder.EventRecorder
	// Clock is injectable so tests can control timeouts and start times.
	Clock clock.Clock
}

// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarks,verbs=get;list;watch
// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch

// Reconcile moves one benchmark's run forward and records where it is.
func (r *StorageBenchmarkReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	bench := &sbv1.StorageBenchmark{}
	if err := r.Get(ctx, req.NamespacedName, bench); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !bench.DeletionTimestamp.IsZero() {
		// Everything the run created is owned by the benchmark: the garbage
		// collector removes it, nothing else to do.
		return ctrl.Result{}, nil
	}

	before := bench.DeepCopy()
	pass := &pass{bench: bench, now: r.Clock.Now()}
	result, runErr := r.advance(ctx, pass)

	if err := r.Status().Patch(ctx, bench, client.MergeFrom(before)); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return ctrl.Result{RequeueAfter: shortRequeue}, nil
		}
		return ctrl.Result{}, fmt.Errorf("writing status of %s: %w", req.NamespacedName, err)
	}
	// Events go out only once the status they explain is stored.
	for _, e := range pass.events {
		r.Recorder.Eventf(bench, nil, e.kind, e.reason, e.action, "%s", e.message)
	}
	if runErr != nil {
		log.FromContext(ctx).Error(runErr, "Run step failed, will retry")
	}
	return result, runErr
}

// SetupWithManager registers the reconciler and what it watches.
func (r *StorageBenchmarkReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&sbv1.StorageBenchmark{}).
		Named("storagebenchmark").
		Complete(r)
}
