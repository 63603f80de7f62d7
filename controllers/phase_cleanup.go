package controllers

import (
	"context"
	"fmt"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// cleanupTarget applies spec.cleanup once a target's results are stored.
// It runs on every pass over a finished target, so a restart between the
// results and the deletions still gets there.
func (r *StorageBenchmarkReconciler) cleanupTarget(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	if b.Spec.Cleanup.ClientPods != sbv1.CleanupKeep {
		for _, j := range clientJobs(b, t.spec) {
			if job := s.jobs[j.name]; job != nil && job.DeletionTimestamp == nil {
				if err := r.deleteChild(ctx, job); err != nil {
					return targetStep{}, err
				}
				delete(s.jobs, j.name)
			}
		}
	}
	if b.Spec.Cleanup.Volumes != sbv1.CleanupKeep {
		deleted := 0
		for _, name := range ownedClaimNames(b, t.spec) {
			if claim := s.claims[name]; claim != nil && claim.DeletionTimestamp == nil {
				if err := r.deleteChild(ctx, claim); err != nil {
					return targetStep{}, err
				}
				delete(s.claims, name)
				deleted++
			}
		}
		if deleted > 0 {
			p.normal(sbv1.EventVolumesDeleted, sbv1.ActionCleanup, fmt.Sprintf("target %s: deleted %d claim(s) (cleanup.volumes: Delete)", t.spec.Name, deleted))
		}
	}
	return targetStep{done: true}, nil
}
