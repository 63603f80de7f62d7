package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// createOwned creates a child the benchmark controls. An object that already
// exists under its deterministic name is the one a previous pass (or a
// previous controller process) created: not an error.
func (r *StorageBenchmarkReconciler) createOwned(ctx context.Context, b *sbv1.StorageBenchmark, obj client.Object) (created bool, err error) {
	if err := controllerutil.SetControllerReference(b, obj, r.Scheme); err != nil {
		return false, err
	}
	if err := r.Create(ctx, obj); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		return false, fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
	}
	return true, nil
}

// deleteChild deletes a child and its dependents in the background; gone
// already is fine.
func (r *StorageBenchmarkReconciler) deleteChild(ctx context.Context, obj client.Object) error {
	err := r.Delete(ctx, obj, client.PropagationPolicy("Background"))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}
