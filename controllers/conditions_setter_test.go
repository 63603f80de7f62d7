package controllers

// The envtest file conditions_test.go checks conditions through the API;
// this one checks the setter itself.

import (
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestConditionSetter(t *testing.T) {
	// done is the conditions a passed run of generation 1 left.
	done := func() *sbv1.StorageBenchmarkStatus {
		st := &sbv1.StorageBenchmarkStatus{}
		c := conditionSetter{status: st, generation: 1}
		c.set(sbv1.ConditionCompleted, metav1.ConditionTrue, sbv1.ReasonSucceeded, "done")
		c.set(sbv1.ConditionReady, metav1.ConditionTrue, sbv1.ReasonThresholdsPassed, "ok")
		c.set(sbv1.ConditionThresholdsMet, metav1.ConditionTrue, sbv1.ReasonThresholdsPassed, "ok")
		return st
	}
	stalled := func() *sbv1.StorageBenchmarkStatus {
		st := done()
		conditionSetter{status: st, generation: 1}.set(sbv1.ConditionStalled, metav1.ConditionTrue, sbv1.ReasonThresholdsFailed, "p99")
		return st
	}
	for _, tc := range []struct {
		name       string
		status     *sbv1.StorageBenchmarkStatus
		generation int64
		apply      func(c conditionSetter)
		want       []string
	}{{
		name:       "running marks a run in progress: Reconciling, not Completed, not Ready",
		status:     &sbv1.StorageBenchmarkStatus{},
		generation: 1,
		apply:      func(c conditionSetter) { c.running(sbv1.ReasonRunStarted, "started") },
		want:       []string{"Reconciling=True/RunStarted", "Completed=False/RunStarted", "Ready=False/RunStarted"},
	}, {
		name:       "running a new generation drops the old run's Stalled and ThresholdsMet",
		status:     stalled(),
		generation: 2,
		apply:      func(c conditionSetter) { c.running(sbv1.ReasonRunStarted, "started") },
		want:       []string{"Reconciling=True/RunStarted", "Completed=False/RunStarted", "Ready=False/RunStarted"},
	}, {
		name:       "failed ends the run: Stalled and Completed, not Ready, no longer Reconciling",
		status:     &sbv1.StorageBenchmarkStatus{},
		generation: 3,
		apply: func(c conditionSetter) {
			c.running(sbv1.ReasonRunStarted, "started")
			c.failed(sbv1.ReasonClientFailed, "pod p failed")
		},
		want: []string{"Stalled=True/ClientFailed", "Completed=True/ClientFailed", "Ready=False/ClientFailed"},
	}, {
		name:       "set restamps a condition with the generation it now describes",
		status:     done(),
		generation: 2,
		apply: func(c conditionSetter) {
			c.set(sbv1.ConditionCompleted, metav1.ConditionTrue, sbv1.ReasonSucceeded, "done")
			c.set(sbv1.ConditionReady, metav1.ConditionTrue, sbv1.ReasonThresholdsPassed, "ok")
			c.set(sbv1.ConditionThresholdsMet, metav1.ConditionTrue, sbv1.ReasonThresholdsPassed, "ok")
		},
		want: []string{"Completed=True/Succeeded", "Ready=True/ThresholdsPassed", "ThresholdsMet=True/ThresholdsPassed"},
	}, {
		name:       "remove of an absent condition changes nothing",
		status:     done(),
		generation: 1,
		apply:      func(c conditionSetter) { c.remove(sbv1.ConditionReconciling) },
		want:       []string{"Completed=True/Succeeded", "Ready=True/ThresholdsPassed", "ThresholdsMet=True/ThresholdsPassed"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b := &sbv1.StorageBenchmark{Status: *tc.status}
			b.Generation = tc.generation
			tc.apply(conditionSetter{status: &b.Status, generation: tc.generation})
			expectConditions(t, b, tc.want...)
		})
	}
}

func TestConditionSetterBoundsTheMessage(t *testing.T) {
	st := &sbv1.StorageBenchmarkStatus{}
	conditionSetter{status: st, generation: 1}.set(sbv1.ConditionStalled, metav1.ConditionTrue, sbv1.ReasonClientFailed, strings.Repeat("x", 40000))
	if msg := st.Conditions[0].Message; len(msg) != maxConditionMessage || !strings.HasSuffix(msg, "...") {
		t.Errorf("message of %d bytes, want %d ending in ...", len(msg), maxConditionMessage)
	}
}

func TestBoundMessagesCutsTargetMessagesToTheAPIsBound(t *testing.T) {
	waiting := strings.Repeat("bench-t1-g1-c0-0-abcde (not scheduled: 0/2 nodes are available), ", 64)
	st := &sbv1.StorageBenchmarkStatus{Targets: []sbv1.TargetStatus{{Name: "t1", Message: waiting}, {Name: "t2", Message: "measuring"}}}
	boundMessages(st)
	if got := st.Targets[0].Message; len(got) != maxMessage || !strings.HasSuffix(got, "...") {
		t.Errorf("a %d-byte message became %d bytes", len(waiting), len(got))
	}
	if st.Targets[1].Message != "measuring" {
		t.Errorf("a short message changed: %q", st.Targets[1].Message)
	}
	if got := truncate(strings.Repeat("é", 600), 1024); !utf8.ValidString(got) || len(got) > 1024 {
		t.Errorf("truncate cut a character: %q", got[len(got)-6:])
	}
}
