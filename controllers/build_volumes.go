package controllers

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// claimNames lists the claims a target's clients use, index by client:
// one per client (ReadWriteOnce), the same shared one for all
// (ReadWriteMany), or the user's existing claim.
func claimNames(b *sbv1.StorageBenchmark, t *sbv1.Target) []string {
	names := make([]string, b.Spec.Clients.Count)
	var shared, hash string
	switch {
	case t.ExistingClaimName != nil:
		shared = *t.ExistingClaimName
	case plan.Shared(t):
		shared = sharedClaimName(b, t)
	default:
		hash = volumeHash(t)
	}
	for i := range names {
		names[i] = shared
		if shared == "" {
			names[i] = claimNameOf(b, t, hash, strconv.Itoa(i))
		}
	}
	return names
}

// ownedClaimNames are the claims the controller creates for a target, each
// once: none for an existing claim, one shared claim, or one per client.
func ownedClaimNames(b *sbv1.StorageBenchmark, t *sbv1.Target) []string {
	if t.StorageClassName == nil {
		return nil
	}
	names := claimNames(b, t)
	if plan.Shared(t) {
		return names[:min(len(names), 1)]
	}
	return names
}

// buildClaims returns the claims the controller creates for a target: none
// for an existing claim.
func buildClaims(b *sbv1.StorageBenchmark, t *sbv1.Target) []*corev1.PersistentVolumeClaim {
	var claims []*corev1.PersistentVolumeClaim
	for _, name := range ownedClaimNames(b, t) {
		mode := t.VolumeMode
		if mode == "" {
			mode = corev1.PersistentVolumeFilesystem
		}
		access := t.AccessMode
		if access == "" {
			access = corev1.ReadWriteOnce
		}
		labels := benchmarkLabels(b, componentVolume)
		labels[labelTarget] = t.Name
		claims = append(claims, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.Namespace, Labels: labels},
			Spec: corev1.PersistentVolumeClaimSpec{
				StorageClassName: t.StorageClassName,
				AccessModes:      []corev1.PersistentVolumeAccessMode{access},
				VolumeMode:       &mode,
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: *t.Size}},
			},
		})
	}
	return claims
}
