package controllers

import (
	"unicode/utf8"

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

// truncate cuts s to at most max bytes, ending in "...", on a character
// boundary (the API refuses invalid UTF-8).
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// maxMessage bounds the messages the API bounds: a target's status message
// (status.targets[].message) and an event's note. Messages built from lists
// (the pods still waiting, the claims not bound) grow with the clients; one
// over the bound would make the API server refuse the whole status write, or
// drop the event.
const maxMessage = 1024

// boundMessages cuts every target message to the API's bound.
func boundMessages(st *sbv1.StorageBenchmarkStatus) {
	for i := range st.Targets {
		st.Targets[i].Message = truncate(st.Targets[i].Message, maxMessage)
	}
}
