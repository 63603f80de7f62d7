package controllers

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
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
			return false, r.checkOwnership(ctx, b, obj)
		}
		return false, fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
	}
	return true, nil
}

// checkOwnership makes sure an object that already exists under a child's
// name is this benchmark's: a benchmark deleted and created again under the
// same name meets its predecessor's children (their names are the same)
// until the garbage collector has removed them, and must not take them for
// its own. It returns an error to retry until then.
func (r *StorageBenchmarkReconciler) checkOwnership(ctx context.Context, b *sbv1.StorageBenchmark, obj client.Object) error {
	existing, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("%T is not an object", obj)
	}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(obj), existing); err != nil {
		return fmt.Errorf("reading %T %s, which already exists: %w", obj, obj.GetName(), err)
	}
	if !controlledBy(existing, b.UID) {
		return fmt.Errorf("%T %s exists but belongs to another object (an earlier benchmark of this name, until it is garbage collected)", obj, obj.GetName())
	}
	return nil
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

// apiParallelism bounds the requests a pass has in flight when it creates
// or deletes many children at once (a target's claims and Jobs, up to 64
// each): one after another they cost a round trip each, seconds per target
// on a real cluster. It is the most clients a target may have, so all of a
// target's claims (or Jobs) are in flight at once rather than in rounds;
// the API server's priority and fairness decides how many it serves at
// once. Raising it from 16 was part of a change that measured faster
// (docs/controller-scale.md); it was not measured alone.
const apiParallelism = 64

// createAllOwned creates children the benchmark controls, several at a time,
// and reports for each whether it was created (false: it existed already).
// It returns the first error; the others are created or not, as a retry
// finds them.
func (r *StorageBenchmarkReconciler) createAllOwned(ctx context.Context, b *sbv1.StorageBenchmark, objs []client.Object) ([]bool, error) {
	created := make([]bool, len(objs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(apiParallelism)
	for i, obj := range objs {
		g.Go(func() error {
			var err error
			created[i], err = r.createOwned(ctx, b, obj)
			return err
		})
	}
	return created, g.Wait()
}

// deleteChildren deletes children several at a time.
func (r *StorageBenchmarkReconciler) deleteChildren(ctx context.Context, objs []client.Object) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(apiParallelism)
	for _, obj := range objs {
		g.Go(func() error { return r.deleteChild(ctx, obj) })
	}
	return g.Wait()
}
