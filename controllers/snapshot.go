package controllers

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// snapshot is every child of one benchmark, read once per pass. Decisions
// are taken from it, never from status alone, so a restarted controller
// picks a run up where the objects say it is.
type snapshot struct {
	claims     map[string]*corev1.PersistentVolumeClaim
	jobs       map[string]*batchv1.Job
	pods       []*corev1.Pod
	configMaps map[string]*corev1.ConfigMap
	// access holds the names of the client identity's objects that exist
	// (ServiceAccount, Role, RoleBinding), by kind.
	access map[string]bool
}

// observe lists the benchmark's children (the cache holds only labelled
// objects) and keeps those it controls: a benchmark deleted and created
// again under the same name must not adopt its predecessor's leftovers.
func (r *StorageBenchmarkReconciler) observe(ctx context.Context, b *sbv1.StorageBenchmark) (*snapshot, error) {
	// The snapshot's objects are the cache's own, not copies: a pass reads
	// them and copies the one it changes (the start ConfigMap). Copying
	// every pod, claim and Job of a benchmark on every pass cost more than
	// anything else the controller did at the documented maxima.
	opts := []client.ListOption{client.InNamespace(b.Namespace), client.MatchingLabels{labelBenchmark: labelValue(b.Name)}, client.UnsafeDisableDeepCopy}
	s := &snapshot{claims: map[string]*corev1.PersistentVolumeClaim{}, jobs: map[string]*batchv1.Job{}, configMaps: map[string]*corev1.ConfigMap{}, access: map[string]bool{}}

	var claims corev1.PersistentVolumeClaimList
	if err := r.List(ctx, &claims, opts...); err != nil {
		return nil, fmt.Errorf("listing claims: %w", err)
	}
	for i := range claims.Items {
		if controlledBy(&claims.Items[i], b.UID) {
			s.claims[claims.Items[i].Name] = &claims.Items[i]
		}
	}
	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, opts...); err != nil {
		return nil, fmt.Errorf("listing jobs: %w", err)
	}
	jobUIDs := map[types.UID]bool{}
	for i := range jobs.Items {
		if controlledBy(&jobs.Items[i], b.UID) {
			s.jobs[jobs.Items[i].Name] = &jobs.Items[i]
			jobUIDs[jobs.Items[i].UID] = true
		}
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, opts...); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	for i := range pods.Items {
		if owner := metav1.GetControllerOf(&pods.Items[i]); owner != nil && jobUIDs[owner.UID] {
			s.pods = append(s.pods, &pods.Items[i])
		}
	}
	var cms corev1.ConfigMapList
	if err := r.List(ctx, &cms, opts...); err != nil {
		return nil, fmt.Errorf("listing configmaps: %w", err)
	}
	for i := range cms.Items {
		if controlledBy(&cms.Items[i], b.UID) {
			s.configMaps[cms.Items[i].Name] = &cms.Items[i]
		}
	}
	if err := r.observeAccess(ctx, b, s, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// observeAccess records which of the client identity's objects exist.
func (r *StorageBenchmarkReconciler) observeAccess(ctx context.Context, b *sbv1.StorageBenchmark, s *snapshot, opts []client.ListOption) error {
	lists := map[string]client.ObjectList{
		"ServiceAccount": &corev1.ServiceAccountList{}, "Role": &rbacv1.RoleList{}, "RoleBinding": &rbacv1.RoleBindingList{},
	}
	for kind, list := range lists {
		if err := r.List(ctx, list, opts...); err != nil {
			return fmt.Errorf("listing %ss: %w", kind, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return err
		}
		for _, item := range items {
			if obj, ok := item.(metav1.Object); ok && controlledBy(obj, b.UID) {
				s.access[kind+"/"+obj.GetName()] = true
			}
		}
	}
	return nil
}

func controlledBy(obj metav1.Object, uid types.UID) bool {
	owner := metav1.GetControllerOf(obj)
	return owner != nil && owner.UID == uid
}

// targetPods are the current generation's client pods of a target.
func (s *snapshot) targetPods(b *sbv1.StorageBenchmark, t *sbv1.Target) []*corev1.Pod {
	var out []*corev1.Pod
	gen := generationLabel(b.Generation)
	for _, p := range s.pods {
		if p.Labels[labelTarget] == t.Name && p.Labels[labelGeneration] == gen {
			out = append(out, p)
		}
	}
	return out
}
