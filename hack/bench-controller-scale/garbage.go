package main

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// collectGarbage deletes the pods whose Job is gone, as a cluster's
// garbage collector does (envtest runs none). Without it every earlier
// measurement's client pods stayed, and each new manager listed and cached
// them all: the peak heap grew from row to row with nothing the row did.
// It runs between measurements, outside what they count.
func (b *bench) collectGarbage(ctx context.Context) error {
	var jobs batchv1.JobList
	if err := b.env.Client.List(ctx, &jobs); err != nil {
		return fmt.Errorf("listing jobs: %w", err)
	}
	live := map[types.UID]bool{}
	for i := range jobs.Items {
		live[jobs.Items[i].UID] = true
	}
	var pods corev1.PodList
	if err := b.env.Client.List(ctx, &pods); err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	for i := range pods.Items {
		owner := metav1.GetControllerOf(&pods.Items[i])
		if owner == nil || owner.Kind != "Job" || live[owner.UID] {
			continue
		}
		if err := b.env.Client.Delete(ctx, &pods.Items[i], client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting pod %s/%s of a deleted job: %w", pods.Items[i].Namespace, pods.Items[i].Name, err)
		}
	}
	return nil
}
