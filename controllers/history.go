package controllers

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// readHistory reads the earlier completed runs of the schedule that created
// b from the same template, oldest first, as many as its drift thresholds
// compare with; runs that failed to run (no target with results) do not
// count. It returns none for a benchmark without such thresholds or not
// created by a schedule (those thresholds then warn NoHistory). An earlier
// target whose results are gone or unreadable is left out: the past cannot
// fail today's run, it can only leave a cell unjudged.
func (r *StorageBenchmarkReconciler) readHistory(ctx context.Context, b *sbv1.StorageBenchmark) ([]results.EarlierRun, error) {
	wanted := 0
	for i := range b.Spec.Thresholds {
		wanted = max(wanted, b.Spec.Thresholds[i].MaxRegression.HistoryRuns())
	}
	owner := metav1.GetControllerOf(b)
	if wanted == 0 || owner == nil || owner.Kind != "StorageBenchmarkSchedule" || b.Labels[sbv1.LabelSchedule] == "" {
		return nil, nil
	}
	var list sbv1.StorageBenchmarkList
	if err := r.List(ctx, &list, client.InNamespace(b.Namespace), client.MatchingLabels{sbv1.LabelSchedule: b.Labels[sbv1.LabelSchedule]}); err != nil {
		return nil, fmt.Errorf("listing the earlier runs of schedule %s: %w", b.Labels[sbv1.LabelSchedule], err)
	}
	own, template := b.ScheduledTime(), b.Annotations[sbv1.AnnotationTemplateHash]
	var earlier []*sbv1.StorageBenchmark
	for i := range list.Items {
		e := &list.Items[i]
		if c := metav1.GetControllerOf(e); c != nil && c.UID == owner.UID && e.UID != b.UID && e.DeletionTimestamp.IsZero() &&
			e.Annotations[sbv1.AnnotationTemplateHash] == template && e.ScheduledTime().Before(own) &&
			runOutcomeOf(e) != runActive && hasResults(e) {
			earlier = append(earlier, e)
		}
	}
	sort.Slice(earlier, func(i, j int) bool { return earlier[i].ScheduledTime().After(earlier[j].ScheduledTime()) })
	if len(earlier) > wanted {
		earlier = earlier[:wanted]
	}
	history := make([]results.EarlierRun, 0, len(earlier))
	for _, e := range earlier {
		run, err := r.earlierRun(ctx, e)
		if err != nil {
			return nil, err
		}
		history = append(history, run)
	}
	results.SortHistory(history)
	return history, nil
}

// earlierRun reads one earlier run's stored results.
func (r *StorageBenchmarkReconciler) earlierRun(ctx context.Context, e *sbv1.StorageBenchmark) (results.EarlierRun, error) {
	run := results.EarlierRun{Name: e.Name, Time: e.ScheduledTime(), Targets: map[string]*results.TargetResult{}}
	for _, t := range e.Status.Targets {
		if t.State != sbv1.TargetSucceeded || t.ResultsConfigMap == "" {
			continue
		}
		cm := &corev1.ConfigMap{}
		// From the API server: the cache keeps no data of results ConfigMaps (CacheOptions).
		err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: e.Namespace, Name: t.ResultsConfigMap}, cm)
		if apierrors.IsNotFound(err) {
			continue
		} else if err != nil {
			return run, fmt.Errorf("reading the results of earlier run %s, target %s: %w", e.Name, t.Name, err)
		}
		tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
		if err != nil {
			ctrl.LoggerFrom(ctx).Info("Earlier results unreadable, left out of the history", "run", e.Name, "target", t.Name, "configMap", cm.Name, "err", err.Error())
			continue
		}
		run.Targets[t.Name] = tr
	}
	return run, nil
}

// hasResults reports whether a run stored results for some target.
func hasResults(b *sbv1.StorageBenchmark) bool {
	for _, t := range b.Status.Targets {
		if t.State == sbv1.TargetSucceeded && t.ResultsConfigMap != "" {
			return true
		}
	}
	return false
}
