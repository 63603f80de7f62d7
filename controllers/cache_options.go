package controllers

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions keeps the manager's cache to the objects benchmarks create
// (they carry labelBenchmark), so its memory does not grow with the
// cluster's pods, claims and ConfigMaps; of the ConfigMaps that hold a
// finished run's results it keeps only the metadata (dropStoredResultsData).
func CacheOptions(base cache.Options) cache.Options {
	ours, _ := labels.NewRequirement(labelBenchmark, selection.Exists, nil)
	selector := labels.NewSelector().Add(*ours)
	if base.ByObject == nil {
		base.ByObject = map[client.Object]cache.ByObject{}
	}
	for _, obj := range []client.Object{&corev1.Pod{}, &batchv1.Job{}, &corev1.PersistentVolumeClaim{},
		&corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{}} {
		base.ByObject[obj] = cache.ByObject{Label: selector}
	}
	base.ByObject[&corev1.ConfigMap{}] = cache.ByObject{Label: selector, Transform: dropStoredResultsData}
	return base
}

// dropStoredResultsData empties the data of results and comparison
// ConfigMaps before the cache keeps them. They hold a finished run's whole
// results (about 11 MB for a run at the documented maxima) and are never
// changed once written; kept whole, every benchmark left in the cluster
// stayed in the manager's heap at twice that size (hack/bench-cache-memory:
// ten such runs, +214 MiB; without their data +2.5 MiB), against a memory
// limit of 512 MiB. The few reads of their data go to the API server
// (collected, readStoredResults, earlierRun, the metrics collector); the
// cached objects still tell that they exist, their generation and their
// version. Other ConfigMaps (plan, start, a search's steps) are kept whole:
// passes read and update them.
func dropStoredResultsData(obj any) (any, error) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return obj, nil
	}
	switch cm.Labels[labelComponent] {
	case componentResults, componentComparison:
		cm.Data, cm.BinaryData = nil, nil
	}
	return cm, nil
}
