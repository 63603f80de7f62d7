package controllers

import (
	"context"

	"fmt"
	batchv1 "k8s.io/api/batch/v1"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// failRun ends the run at the first failure: the failing target is marked,
// targets that had not run are marked as skipped, and the conditions name
// the cause. Clients still running are stopped by the next pass
// (stopFailedRun), once this status is stored: deleting them first could
// erase the evidence if the status write were lost.
func (r *StorageBenchmarkReconciler) failRun(p *pass, s *snapshot, failed *targetRun, f *runFailure) {
	b := p.bench
	failed.status.State = sbv1.TargetFailed
	failed.status.Message = truncate(f.message, 1024)
	for i := range b.Status.Targets {
		st := &b.Status.Targets[i]
		if st.State != sbv1.TargetSucceeded && st.State != sbv1.TargetFailed {
			st.State = sbv1.TargetFailed
			st.Message = "not run: the run failed on target " + failed.spec.Name
		}
	}
	now := metav1.NewTime(p.now)
	b.Status.CompletionTime = &now
	b.Status.Progress = progressOf(b, s, p.now)
	p.conditions().failed(f.reason, f.message)
	p.warning(f.reason, "Fail", f.message)
}

// stopFailedRun deletes the client Jobs a failed run still has running.
// Finished and failed Jobs stay until the benchmark is deleted, so their
// logs can be read.
func (r *StorageBenchmarkReconciler) stopFailedRun(ctx context.Context, b *sbv1.StorageBenchmark) error {
	s, err := r.observe(ctx, b)
	if err != nil {
		return err
	}
	for _, job := range s.jobs {
		if job.DeletionTimestamp == nil && jobCondition(job, batchv1.JobComplete) == nil && jobCondition(job, batchv1.JobFailed) == nil {
			if err := r.deleteChild(ctx, job); err != nil {
				return err
			}
		}
	}
	return nil
}

// finishRun completes a run whose targets all have results.
func (r *StorageBenchmarkReconciler) finishRun(p *pass) {
	b := p.bench
	now := metav1.NewTime(p.now)
	b.Status.CompletionTime = &now
	var warnings []sbv1.Warning
	for i := range b.Spec.Targets {
		if tr := p.targetResults[b.Spec.Targets[i].Name]; tr != nil {
			warnings = append(warnings, tr.Warnings...)
		}
	}
	b.Status.Warnings = boundWarnings(warnings)
	c := p.conditions()
	c.remove(sbv1.ConditionReconciling)
	c.remove(sbv1.ConditionStalled)
	took := p.now.Sub(b.Status.StartTime.Time).Round(time.Second)
	message := fmt.Sprintf("all %d targets measured in %s", len(b.Spec.Targets), took)
	c.set(sbv1.ConditionCompleted, metav1.ConditionTrue, sbv1.ReasonSucceeded, message)
	c.set(sbv1.ConditionReady, metav1.ConditionTrue, sbv1.ReasonSucceeded, message)
	p.normal(sbv1.ReasonSucceeded, "Complete", message)
}

// maxStatusWarnings is status.warnings' bound.
const maxStatusWarnings = 32

func boundWarnings(w []sbv1.Warning) []sbv1.Warning {
	if len(w) <= maxStatusWarnings {
		return w
	}
	kept := append([]sbv1.Warning(nil), w[:maxStatusWarnings-1]...)
	return append(kept, sbv1.Warning{Reason: "MoreWarnings", Message: fmt.Sprintf("%d more warnings in the results ConfigMaps", len(w)-len(kept))})
}
