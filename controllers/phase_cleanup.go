package controllers

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// cleanupTarget applies spec.cleanup once a target's results are stored.
// It runs on every pass over a finished target, so a restart between the
// results and the deletions still gets there.
func (r *StorageBenchmarkReconciler) cleanupTarget(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	// The search's state between rounds is in the results now.
	if cm := s.configMaps[searchConfigMapName(b, t.spec)]; cm != nil && cm.DeletionTimestamp == nil {
		if err := r.deleteChildren(ctx, []client.Object{cm}); err != nil {
			return targetStep{}, err
		}
		delete(s.configMaps, cm.Name)
	}
	delete(p.searches, t.spec.Name)
	if b.Spec.Cleanup.ClientPods != sbv1.CleanupKeep {
		var jobs []client.Object
		for _, j := range clientJobs(b, t.spec) {
			if job := s.jobs[j.name]; job != nil && job.DeletionTimestamp == nil {
				jobs = append(jobs, job)
				delete(s.jobs, j.name)
			}
		}
		if err := r.deleteChildren(ctx, jobs); err != nil {
			return targetStep{}, err
		}
	}
	if b.Spec.Cleanup.Volumes != sbv1.CleanupKeep {
		var claims []client.Object
		for _, name := range ownedClaimNames(b, t.spec) {
			if claim := s.claims[name]; claim != nil && claim.DeletionTimestamp == nil {
				claims = append(claims, claim)
				delete(s.claims, name)
			}
		}
		if err := r.deleteChildren(ctx, claims); err != nil {
			return targetStep{}, err
		}
		if len(claims) > 0 {
			p.normal(sbv1.EventVolumesDeleted, sbv1.ActionCleanup, fmt.Sprintf("target %s: deleted %d claim(s) (cleanup.volumes: Delete)", t.spec.Name, len(claims)))
		}
	}
	return targetStep{done: true}, nil
}
