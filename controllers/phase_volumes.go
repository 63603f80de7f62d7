package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// ensureVolumes creates the target's claims and records how long binding
// took. Claims of WaitForFirstConsumer classes bind only once a client pod
// is scheduled, so clients are started without waiting for binding; the
// timeout still holds.
func (r *StorageBenchmarkReconciler) ensureVolumes(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	claims := buildClaims(b, t.spec)
	var unbound []string
	var missing []client.Object
	for _, want := range claims {
		got := s.claims[want.Name]
		if got == nil {
			missing = append(missing, want)
			unbound = append(unbound, want.Name+" (just created)")
			continue
		}
		if got.Status.Phase != corev1.ClaimBound {
			unbound = append(unbound, fmt.Sprintf("%s (%s)", got.Name, claimWait(got)))
		}
	}
	created, err := r.createAllOwned(ctx, b, missing)
	if err != nil {
		return targetStep{}, err
	}
	for i, claim := range missing {
		if created[i] {
			p.normal(sbv1.EventVolumeRequested, sbv1.ActionProvision, fmt.Sprintf("target %s: requested claim %s (%s, %s)", t.spec.Name, claim.GetName(), *t.spec.StorageClassName, t.spec.Size.String()))
		}
	}
	if len(unbound) == 0 {
		if t.status.VolumesBoundMilliseconds == nil {
			ms := p.sinceProvisioningStart(t, p.now).Milliseconds()
			t.status.VolumesBoundMilliseconds = &ms
			if len(claims) > 0 {
				p.normal(sbv1.EventVolumesBound, sbv1.ActionProvision, fmt.Sprintf("target %s: %d claim(s) bound after %d ms", t.spec.Name, len(claims), ms))
			}
		}
		return targetStep{}, nil
	}
	limit := time.Duration(b.Spec.Timeouts.VolumeBindSeconds) * time.Second
	elapsed := p.sinceProvisioningStart(t, p.now)
	if elapsed > limit {
		return targetStep{failure: &runFailure{sbv1.ReasonVolumeNotBound, fmt.Sprintf(
			"target %s: claim(s) not bound after %s (timeouts.volumeBindSeconds): %s", t.spec.Name, limit, strings.Join(unbound, ", "))}}, nil
	}
	t.status.Message = "waiting for claims to bind: " + strings.Join(unbound, ", ")
	// A claim that never binds changes nothing a watch would see: without a
	// wait the timeout would only be noticed on some later event.
	return targetStep{wait: limit - elapsed + time.Second}, nil
}

func phaseOf(c *corev1.PersistentVolumeClaim) string {
	if c.Status.Phase == "" {
		return "Pending"
	}
	return string(c.Status.Phase)
}

// Annotations Kubernetes puts on a claim on its way to a volume: the node
// the scheduler chose for its first consumer (WaitForFirstConsumer) and the
// dynamic provisioner the PV controller handed it to.
const (
	annSelectedNode       = "volume.kubernetes.io/selected-node"
	annStorageProvisioner = "volume.kubernetes.io/storage-provisioner"
)

// claimWait is a claim's phase and, while it is pending, what it waits for,
// read from the claim itself (no event list): a provisioner that is down or
// failing leaves the claim with its provisioner named and no volume.
func claimWait(c *corev1.PersistentVolumeClaim) string {
	phase := phaseOf(c)
	if phase != string(corev1.ClaimPending) {
		return phase
	}
	provisioner, node := c.Annotations[annStorageProvisioner], c.Annotations[annSelectedNode]
	switch {
	case provisioner != "" && node != "":
		return fmt.Sprintf("%s, waiting for provisioner %s to create its volume on node %s", phase, provisioner, node)
	case provisioner != "":
		return fmt.Sprintf("%s, waiting for provisioner %s to create its volume", phase, provisioner)
	case node != "":
		return fmt.Sprintf("%s, node %s chosen, no provisioner has taken it", phase, node)
	}
	return phase
}
