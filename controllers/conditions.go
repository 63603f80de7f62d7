package controllers

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// maxConditionMessage bounds a condition's message (the API allows 32 KiB):
// eight conditions of that would take most of status's budget. A message
// names the first causes; the full lists are in the comparison ConfigMap.
const maxConditionMessage = 1024

// conditionSetter writes conditions stamped with the generation they
// describe, so `kubectl wait` and kstatus never read a stale one as current.
type conditionSetter struct {
	status     *sbv1.StorageBenchmarkStatus
	generation int64
}

func (c conditionSetter) set(conditionType string, status metav1.ConditionStatus, reason, message string) {
	meta.SetStatusCondition(&c.status.Conditions, metav1.Condition{
		Type:               conditionType,
		Status:             status,
		Reason:             reason,
		Message:            truncate(message, maxConditionMessage),
		ObservedGeneration: c.generation,
	})
}

// remove drops a condition: Reconciling and Stalled are "abnormal-true"
// conditions that kstatus expects to be absent rather than False.
func (c conditionSetter) remove(conditionType string) {
	meta.RemoveStatusCondition(&c.status.Conditions, conditionType)
}

// running marks a run in progress. ThresholdsMet is the previous run's
// verdict: it goes, as docs/gitops.md promises, or `kubectl wait` on it
// would answer for a run that has measured nothing yet.
func (c conditionSetter) running(reason, message string) {
	c.set(sbv1.ConditionReconciling, metav1.ConditionTrue, reason, message)
	c.remove(sbv1.ConditionStalled)
	c.remove(sbv1.ConditionThresholdsMet)
	c.set(sbv1.ConditionCompleted, metav1.ConditionFalse, reason, message)
	c.set(sbv1.ConditionReady, metav1.ConditionFalse, reason, message)
}

// failed marks a run that ended without usable results: it is complete
// (nothing more will happen for this generation) and stalled.
func (c conditionSetter) failed(reason, message string) {
	c.remove(sbv1.ConditionReconciling)
	c.set(sbv1.ConditionStalled, metav1.ConditionTrue, reason, message)
	c.set(sbv1.ConditionCompleted, metav1.ConditionTrue, reason, message)
	c.set(sbv1.ConditionReady, metav1.ConditionFalse, reason, message)
}

func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:max-3] + "..."
}
