package controllers

import (
	"context"
	"strings"

	"fmt"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// failRun ends the run at the first failure: the failing target is marked,
// targets that had not run are marked as skipped, and the conditions name
// the cause. Clients still running are stopped by the next pass
// (stopFailedRun), once this status is stored: deleting them first could
// erase the evidence if the status write were lost.
func (r *StorageBenchmarkReconciler) failRun(p *pass, s *snapshot, failed *targetRun, f *runFailure) {
	failRunStatus(p.bench, s, failed.status, f, p.now)
	p.warning(f.reason, sbv1.ActionFail, f.message)
}

// failRunStatus is failRun's record in status: failed is the failing
// target's entry (one of b.Status.Targets).
func failRunStatus(b *sbv1.StorageBenchmark, s *snapshot, failed *sbv1.TargetStatus, f *runFailure, now time.Time) {
	failed.State = sbv1.TargetFailed
	failed.Message = truncate(f.message, 1024)
	for i := range b.Status.Targets {
		st := &b.Status.Targets[i]
		if st.State != sbv1.TargetSucceeded && st.State != sbv1.TargetFailed {
			st.State = sbv1.TargetFailed
			st.Message = "not run: the run failed on target " + failed.Name
			if st.ProvisioningStartTime != nil {
				// Started beside the failing target (Parallel), or
				// provisioned while the one before it handed over: its
				// claims and clients exist, kept like the failing
				// target's.
				st.Message = "stopped: the run failed on target " + failed.Name
			}
		}
	}
	completed := metav1.NewTime(now)
	b.Status.CompletionTime = &completed
	b.Status.Progress = progressOf(b, s, now, planOf(b))
	conditionSetter{status: &b.Status, generation: b.Generation}.failed(f.reason, f.message)
}

// stopFailedRun deletes the client Jobs a failed run still has running.
// A Job with a failed pod is left alone: with backoffLimit 0 the Job
// controller fails it and stops its other pods itself, and keeping it keeps
// the failed pod's log readable until the benchmark is deleted.
func (r *StorageBenchmarkReconciler) stopFailedRun(ctx context.Context, b *sbv1.StorageBenchmark) error {
	s, err := r.observe(ctx, b)
	if err != nil {
		return err
	}
	failedPodOf := map[string]bool{}
	for _, pod := range s.pods {
		if owner := metav1.GetControllerOf(pod); owner != nil && pod.Status.Phase == corev1.PodFailed {
			failedPodOf[owner.Name] = true
		}
	}
	for _, job := range s.jobs {
		if job.DeletionTimestamp == nil && !failedPodOf[job.Name] &&
			jobCondition(job, batchv1.JobComplete) == nil && jobCondition(job, batchv1.JobFailed) == nil {
			if err := r.deleteChild(ctx, job); err != nil {
				return err
			}
		}
	}
	return nil
}

// finishRun completes a run whose targets all have results: it compares
// the targets, judges the thresholds, recommends a target, stores the whole
// outcome in the run's comparison ConfigMap and its summary in status, and
// sets the conditions GitOps tools read. It reports false when a target's
// stored results are not visible yet (the cache lags), to be retried.
func (r *StorageBenchmarkReconciler) finishRun(ctx context.Context, p *pass, s *snapshot) (bool, error) {
	b := p.bench
	if err := r.readStoredResults(ctx, p, s); err != nil {
		return false, err
	}
	all, ok, unreadable := loadResults(p, s)
	if !ok && unreadable == nil {
		// Not in the cache: lagging, or deleted while status says the
		// target succeeded. The API server tells which.
		unreadable, err := r.fetchMissingResults(ctx, p, s)
		if err != nil || unreadable == nil {
			return false, err
		}
		r.failRun(p, s, r.targetRun(p, unreadable.target), unreadable.failure)
		return true, nil
	}
	if unreadable != nil {
		// Retrying cannot make stored results readable: the run fails as
		// collected fails it when status lags such a ConfigMap.
		r.failRun(p, s, r.targetRun(p, unreadable.target), unreadable.failure)
		return true, nil
	}
	if !ok {
		return false, nil
	}
	spec := &b.Spec
	history, err := r.readHistory(ctx, b)
	if err != nil {
		return false, err
	}
	outcome := results.ConcludeWithHistory(spec, all, history)
	other, unavailable, err := r.readCompareTo(ctx, b)
	if err != nil {
		return false, err
	}
	if other != nil {
		outcome.CompareTo = results.CompareRuns(spec, all, other.targets, other.source)
	} else if unavailable != "" {
		outcome.Warnings = append(outcome.Warnings, sbv1.Warning{Reason: WarnCompareToUnavailable, Message: truncate(unavailable+": no comparison with it in this run", 512)})
	}
	if err := r.storeOutcome(ctx, b, s, &outcome); err != nil {
		return false, err
	}
	ev := outcome.Evaluation()
	applyOutcome(&b.Status, &outcome, comparisonConfigMapName(b))

	now := metav1.NewTime(p.now)
	b.Status.CompletionTime = &now
	c := p.conditions()
	c.remove(sbv1.ConditionReconciling)
	measured := fmt.Sprintf("%d target(s) measured", len(spec.Targets))
	// A status without a start time (written by hand, or by an older
	// controller) has no duration to give, and must not panic.
	if b.Status.StartTime != nil {
		measured += fmt.Sprintf(" in %s", p.now.Sub(b.Status.StartTime.Time).Round(time.Second))
	}
	c.set(sbv1.ConditionCompleted, metav1.ConditionTrue, sbv1.ReasonSucceeded, measured+"; verdict "+string(ev.Verdict))
	verdictReason, verdictMessage := verdictCondition(spec, ev)
	switch ev.Verdict {
	case sbv1.VerdictPassed:
		c.set(sbv1.ConditionThresholdsMet, metav1.ConditionTrue, verdictReason, verdictMessage)
		c.set(sbv1.ConditionReady, metav1.ConditionTrue, verdictReason, measured+"; "+verdictMessage)
		c.remove(sbv1.ConditionStalled)
		p.normal(verdictReason, sbv1.ActionComplete, measured+"; "+verdictMessage)
	default:
		c.set(sbv1.ConditionThresholdsMet, metav1.ConditionFalse, verdictReason, verdictMessage)
		c.set(sbv1.ConditionReady, metav1.ConditionFalse, verdictReason, verdictMessage)
		c.set(sbv1.ConditionStalled, metav1.ConditionTrue, verdictReason, verdictMessage)
		p.warning(verdictReason, sbv1.ActionComplete, measured+"; "+verdictMessage)
	}
	return true, nil
}

// storeOutcome writes the run's whole outcome into its comparison
// ConfigMap, unless a previous pass did.
func (r *StorageBenchmarkReconciler) storeOutcome(ctx context.Context, b *sbv1.StorageBenchmark, s *snapshot, o *results.Outcome) error {
	name := comparisonConfigMapName(b)
	if s.configMaps[name] != nil {
		return nil
	}
	data, binary, err := results.EncodeOutcome(&results.StoredOutcome{
		SchemaVersion: results.OutcomeSchema, Benchmark: b.Name, Generation: b.Generation, Outcome: *o,
	})
	if err != nil {
		return err
	}
	labels := benchmarkLabels(b, componentComparison)
	labels[labelGeneration] = generationLabel(b.Generation)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.Namespace, Labels: labels},
		Data:       data, BinaryData: binary,
	}
	if _, err := r.createOwned(ctx, b, cm); err != nil {
		return err
	}
	s.configMaps[name] = cm
	return nil
}

// applyOutcome puts the outcome's bounded summary into status.
func applyOutcome(st *sbv1.StorageBenchmarkStatus, o *results.Outcome, configMap string) {
	st.Comparison = results.StatusComparison(o.Comparison)
	st.Capacity = results.StatusCapacity(o.Comparison)
	if st.Comparison != nil {
		st.Comparison.CompareTo = results.StatusRunComparison(o.CompareTo)
	}
	st.Verdict = o.Verdict
	st.Violations = boundViolations(o.Violations)
	st.Recommendation = o.Recommendation
	st.Warnings = boundWarnings(o.Warnings)
	st.ComparisonConfigMap = configMap
}

// verdictCondition explains the verdict in a condition's reason and message.
func verdictCondition(spec *sbv1.StorageBenchmarkSpec, ev results.Evaluation) (string, string) {
	warned := 0
	for _, v := range ev.Violations {
		if v.Severity == sbv1.SeverityWarn {
			warned++
		}
	}
	switch ev.Verdict {
	case sbv1.VerdictFailed:
		var parts []string
		for _, v := range ev.Violations {
			if v.Severity == sbv1.SeverityFail && len(parts) < 5 {
				parts = append(parts, fmt.Sprintf("%s on %s/%s: %s %s (limit %s)", v.Threshold, v.Target, v.Cell, v.Metric, v.Measured, v.Limit))
			}
		}
		return sbv1.ReasonThresholdsFailed, fmt.Sprintf("%d threshold violation(s): %s", len(ev.Violations)-warned, strings.Join(parts, "; "))
	case sbv1.VerdictInconclusive:
		return sbv1.ReasonResultsIncomplete, "thresholds could not be judged: " + strings.Join(ev.Unevaluated, "; ")
	}
	if len(spec.Thresholds) == 0 {
		return sbv1.ReasonNoThresholds, "no thresholds to meet"
	}
	msg := fmt.Sprintf("all %d thresholds met", len(spec.Thresholds))
	if warned > 0 {
		msg += fmt.Sprintf(" (%d warning violation(s))", warned)
	}
	return sbv1.ReasonThresholdsPassed, msg
}

// unreadableResults names the target whose stored results do not decode.
type unreadableResults struct {
	target  int
	failure *runFailure
}

// loadResults gathers every target's stored results. It reports false
// while one is not in the snapshot (the cache lags, or it is gone:
// finishRun asks the API server), and which target's stored results cannot
// be read.
func loadResults(p *pass, s *snapshot) (map[string]*results.TargetResult, bool, *unreadableResults) {
	b := p.bench
	all := map[string]*results.TargetResult{}
	for i := range b.Spec.Targets {
		t := &b.Spec.Targets[i]
		if tr := p.targetResults[t.Name]; tr != nil {
			all[t.Name] = tr
			continue
		}
		cm := s.configMaps[resultsConfigMapName(b, t)]
		if cm == nil {
			return nil, false, nil
		}
		tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
		if err != nil {
			return nil, false, &unreadableResults{i, &runFailure{sbv1.ReasonResultsUnreadable,
				fmt.Sprintf("target %s: configmap %s: %v", t.Name, cm.Name, err)}}
		}
		all[t.Name] = tr
		// Kept for the passes after this one, should it not finish the
		// run: they would read the ConfigMap from the API server again.
		p.targetResults[t.Name] = tr
	}
	return all, true, nil
}

// readStoredResults reads from the API server the results ConfigMaps of
// the targets whose results the pass does not hold (after a restart of the
// manager): the cache keeps only their metadata (CacheOptions). One gone
// or replaced since the cache saw it leaves the snapshot, for
// fetchMissingResults to tell.
func (r *StorageBenchmarkReconciler) readStoredResults(ctx context.Context, p *pass, s *snapshot) error {
	b := p.bench
	for i := range b.Spec.Targets {
		t := &b.Spec.Targets[i]
		name := resultsConfigMapName(b, t)
		if p.targetResults[t.Name] != nil || s.configMaps[name] == nil {
			continue
		}
		cm, err := r.currentResults(ctx, b, name)
		if err != nil {
			return err
		}
		if cm == nil {
			delete(s.configMaps, name)
			continue
		}
		s.configMaps[name] = cm
	}
	return nil
}

// fetchMissingResults asks the API server for the results ConfigMaps the
// snapshot lacks: found, the cache only lags and the pass is retried; gone
// (or of an older generation), the run fails naming the target, since
// nothing can bring them back.
func (r *StorageBenchmarkReconciler) fetchMissingResults(ctx context.Context, p *pass, s *snapshot) (*unreadableResults, error) {
	b := p.bench
	for i := range b.Spec.Targets {
		t := &b.Spec.Targets[i]
		name := resultsConfigMapName(b, t)
		if p.targetResults[t.Name] != nil || s.configMaps[name] != nil {
			continue
		}
		cm := &corev1.ConfigMap{}
		err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: b.Namespace, Name: name}, cm)
		switch {
		case apierrors.IsNotFound(err) || (err == nil && cm.Labels[labelGeneration] != generationLabel(b.Generation)):
			return &unreadableResults{i, &runFailure{sbv1.ReasonResultsUnreadable,
				fmt.Sprintf("target %s: its results configmap %s is gone", t.Name, name)}}, nil
		case err != nil:
			return nil, fmt.Errorf("reading results configmap %s: %w", name, err)
		}
	}
	return nil, nil
}

// maxStatusViolations is status.violations' bound.
const maxStatusViolations = 64

func boundViolations(v []sbv1.Violation) []sbv1.Violation {
	if len(v) <= maxStatusViolations {
		return v
	}
	return v[:maxStatusViolations]
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
