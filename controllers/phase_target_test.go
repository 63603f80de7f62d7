package controllers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestRunTarget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bench  *sbv1.StorageBenchmark
		objs   func(b *sbv1.StorageBenchmark) []client.Object
		faults []fault
		outcome
		state   sbv1.TargetState
		message string
	}{{
		name:  "a pending claim makes the pass look again at the bind deadline, not at the prepare deadline",
		bench: newBenchmark(withTarget("t1", provisioning(-100*time.Second))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), claimsOf(b, "t1", corev1.ClaimPending), jobsOf(b, "t1"),
				podsOf(b, "t1", unschedulable("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims")))
		},
		outcome: outcome{wait: 501 * time.Second},
		state:   sbv1.TargetProvisioning,
		message: "0 of 1 clients ready; waiting for bench-t1-g1-c0-0-abcde (not scheduled: 0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []client.Object
			if tc.objs != nil {
				objs = tc.objs(tc.bench)
			}
			h := newHarness(t, tc.bench, objs, tc.faults...)
			s := h.snapshot()
			p := h.pass()
			step, err := h.r.runTarget(context.Background(), p, s, h.target(p, "t1"))
			h.expectStep(step, err, tc.outcome)
			st := targetStatus(tc.bench, "t1")
			if st.State != tc.state || st.Message != tc.message {
				t.Errorf("target %s %q, want %s %q", st.State, st.Message, tc.state, tc.message)
			}
		})
	}
}
