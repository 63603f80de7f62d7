package controllers

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// FinishedStatus fills b's status as the controller does for a finished
// run with these results (targets' summaries, the outcome's summary), with
// every condition at its longest message: the worst case of the status
// budget, for the envtest that writes it through a real API server.
func FinishedStatus(b *sbv1.StorageBenchmark, byTarget map[string]*results.TargetResult, now time.Time) {
	p := newPass(b, clocktesting.NewFakeClock(now))
	r := &StorageBenchmarkReconciler{}
	for i := range b.Spec.Targets {
		t := r.targetRun(p, i)
		t.status.ProvisioningStartTime = ptrTime(now)
		t.status.MeasurementStartTime = ptrTime(now)
		t.status.VolumesBoundMilliseconds, t.status.ClientsReadyMilliseconds = ptrInt(1<<40), ptrInt(1<<40)
		applyTargetResult(p, t, byTarget[t.spec.Name])
	}
	outcome := results.Conclude(&b.Spec, byTarget)
	applyOutcome(&b.Status, &outcome, comparisonConfigMapName(b))
	b.Status.Progress = progressOf(b, &snapshot{}, now, planOf(b))
	b.Status.StartTime, b.Status.CompletionTime = ptrTime(now), ptrTime(now)
	c := p.conditions()
	long := strings.Repeat("m", 2*maxConditionMessage)
	for _, kind := range []string{sbv1.ConditionReconciling, sbv1.ConditionCompleted, sbv1.ConditionReady, sbv1.ConditionStalled, sbv1.ConditionThresholdsMet} {
		c.set(kind, "True", sbv1.ReasonThresholdsFailed, long)
	}
}

func ptrTime(t time.Time) *metav1.Time { m := metav1.NewTime(t); return &m }
func ptrInt(v int64) *int64            { return &v }
