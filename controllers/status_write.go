package controllers

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// progressWriteInterval is how often a pass whose only news is progress
// (how many claims are bound or clients ready, how many clients have handed
// over results, how many cell runs are done) writes it. Children change in
// bursts: 64 client pods become ready one by one, and at 16 targets x 64
// clients two thirds of all status writes were such counts, each one a
// write to etcd and an event with the whole object to every watcher
// (docs/controller-scale.md). A person watching `kubectl get` loses
// nothing at this pace; any other change is written at once.
const progressWriteInterval = 2 * time.Second

// writeStatus stores what the pass decided. It writes nothing when nothing
// changed as stored (a time equal to the second, an empty list instead of
// none). A change of progress alone that has no events to go with it waits
// until progressWriteInterval after the last write: then wait says when to
// look again, so that the count is written even if nothing else happens.
// lost means a newer write won (or the benchmark is gone): what the pass
// decided was not stored.
func (r *StorageBenchmarkReconciler) writeStatus(ctx context.Context, key types.NamespacedName, before *sbv1.StorageBenchmark, p *pass) (wait time.Duration, lost bool, err error) {
	after := p.bench
	if equality.Semantic.DeepEqual(before.Status, after.Status) {
		return 0, false, nil
	}
	// Compared as stored: a time kept to the nanosecond in memory (a
	// target's measurement start) would otherwise make every count a
	// change of more than progress, written at once (at 16 targets x 64
	// clients, every "waiting for N client(s)" of every pass).
	change, err := diffStatus(before, after)
	if err != nil || change.none() {
		return 0, false, err
	}
	if len(p.events) == 0 && change.progressOnly() {
		if since := p.now.Sub(r.written.at(key)); since >= 0 && since < progressWriteInterval {
			return progressWriteInterval - since, false, nil
		}
	}
	// The patch carries the resourceVersion the pass started from: a pass
	// that read a stale copy must not overwrite what a newer pass stored,
	// lists included.
	patch, err := change.patch()
	if err != nil {
		return 0, false, err
	}
	if err := r.Status().Patch(ctx, after, patch); err != nil {
		r.written.set(key, "", time.Time{})
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return 0, true, nil
		}
		return 0, false, fmt.Errorf("writing status of %s: %w", key, err)
	}
	r.written.set(key, after.ResourceVersion, p.now)
	return 0, false, nil
}

// soonest is result, looked at again no later than after.
func soonest(result ctrl.Result, after time.Duration) ctrl.Result {
	if result.RequeueAfter == 0 || after < result.RequeueAfter {
		result.RequeueAfter = after
	}
	return result
}
