package controllers

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// validate checks what admission cannot: rules over the expanded matrix and
// the objects the spec refers to, once per generation. An invalid spec ends
// the run at once (Completed and Stalled), because no retry can fix it; the
// user has to change the spec, which starts a new generation. It reports
// whether the pass is done. A failed read is not a verdict on the spec: it
// is returned, and the pass is retried with backoff.
func (r *StorageBenchmarkReconciler) validate(ctx context.Context, p *pass) (done bool, err error) {
	if r.references.checked(p.bench) {
		return false, nil
	}
	problems := p.bench.Spec.Validate().ToAggregate()
	var msgs []string
	if problems != nil {
		msgs = append(msgs, problems.Error())
	}
	refs, classes, err := r.checkReferences(ctx, p.bench)
	if err != nil {
		return true, err
	}
	msgs = append(msgs, refs...)
	compareTo, err := r.compareToProblems(ctx, p.bench)
	if err != nil {
		return true, err
	}
	msgs = append(msgs, compareTo...)
	if len(msgs) == 0 {
		r.references.remember(p.bench, classes)
		return false, nil
	}
	message := strings.Join(msgs, "; ")
	p.conditions().failed(sbv1.ReasonInvalidSpec, message)
	p.warning(sbv1.ReasonInvalidSpec, sbv1.ActionValidate, message)
	return true, nil
}

// checkReferences looks up the storage classes and claims the targets name,
// uncached: the cache holds only the benchmarks' own objects, and reading a
// class through it would start a cluster-wide watch the RBAC does not grant.
// It returns what is wrong with them and the classes read.
func (r *StorageBenchmarkReconciler) checkReferences(ctx context.Context, b *sbv1.StorageBenchmark) ([]string, map[string]*storagev1.StorageClass, error) {
	var problems []string
	classes := map[string]*storagev1.StorageClass{}
	for i, t := range b.Spec.Targets {
		path := fmt.Sprintf("spec.targets[%d]", i)
		switch {
		case t.StorageClassName != nil:
			if _, read := classes[*t.StorageClassName]; read {
				continue
			}
			class := &storagev1.StorageClass{}
			err := r.APIReader.Get(ctx, types.NamespacedName{Name: *t.StorageClassName}, class)
			if apierrors.IsNotFound(err) {
				problems = append(problems, fmt.Sprintf("%s.storageClassName: storage class %q not found", path, *t.StorageClassName))
				continue
			} else if err != nil {
				return nil, nil, fmt.Errorf("reading storage class %q: %w", *t.StorageClassName, err)
			}
			classes[class.Name] = class
		case t.ExistingClaimName != nil:
			claim := &corev1.PersistentVolumeClaim{}
			err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: b.Namespace, Name: *t.ExistingClaimName}, claim)
			if apierrors.IsNotFound(err) {
				problems = append(problems, fmt.Sprintf("%s.existingClaimName: claim %q not found in namespace %s", path, *t.ExistingClaimName, b.Namespace))
				continue
			} else if err != nil {
				return nil, nil, fmt.Errorf("reading claim %q: %w", *t.ExistingClaimName, err)
			}
			problems = append(problems, claimProblems(b, &t, path, claim)...)
		}
	}
	return problems, classes, nil
}

// claimProblems says why an existing claim cannot serve a target.
func claimProblems(b *sbv1.StorageBenchmark, t *sbv1.Target, path string, claim *corev1.PersistentVolumeClaim) []string {
	var problems []string
	if b.Spec.Clients.Count > 1 && !hasAccessMode(claim, corev1.ReadWriteMany) {
		problems = append(problems, fmt.Sprintf("%s.existingClaimName: claim %q is shared by %d clients but does not allow ReadWriteMany (its access modes: %v)",
			path, claim.Name, b.Spec.Clients.Count, claim.Spec.AccessModes))
	}
	wantBlock := t.VolumeMode == corev1.PersistentVolumeBlock
	isBlock := claim.Spec.VolumeMode != nil && *claim.Spec.VolumeMode == corev1.PersistentVolumeBlock
	if wantBlock != isBlock {
		problems = append(problems, fmt.Sprintf("%s.volumeMode: %s, but claim %q has volume mode %s", path, t.VolumeMode, claim.Name, volumeModeOf(claim)))
	}
	return problems
}

func hasAccessMode(claim *corev1.PersistentVolumeClaim, mode corev1.PersistentVolumeAccessMode) bool {
	for _, m := range claim.Spec.AccessModes {
		if m == mode {
			return true
		}
	}
	return false
}

func volumeModeOf(claim *corev1.PersistentVolumeClaim) corev1.PersistentVolumeMode {
	if claim.Spec.VolumeMode == nil {
		return corev1.PersistentVolumeFilesystem
	}
	return *claim.Spec.VolumeMode
}
