package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestEnsureVolumes(t *testing.T) {
	rwx := classTarget("t1", "fast")
	rwx.AccessMode = corev1.ReadWriteMany
	for _, tc := range []struct {
		name   string
		bench  *sbv1.StorageBenchmark
		objs   func(b *sbv1.StorageBenchmark) []client.Object
		faults []fault
		outcome
		// messageHas are substrings of the target's status message ("" as
		// the only entry: the message stays empty).
		messageHas []string
		// boundMs is the binding time recorded (nil: none).
		boundMs *int64
	}{{
		name:  "a missing claim is created with an event, and the pass waits for it to bind",
		bench: newBenchmark(withTarget("t1", provisioning(0))),
		outcome: outcome{
			wait:   600*time.Second + time.Second,
			calls:  []string{"create PersistentVolumeClaim/bench-t1-*-0"},
			events: []string{"Normal VolumeRequested/Provision"},
		},
		messageHas: []string{"waiting for claims to bind: bench-t1-", "-0 (just created)"},
	}, {
		name:  "two clients on ReadWriteOnce get a claim each",
		bench: newBenchmark(withClients(2), withTarget("t1", provisioning(0))),
		outcome: outcome{
			wait:   601 * time.Second,
			calls:  []string{"create PersistentVolumeClaim/bench-t1-*-0", "create PersistentVolumeClaim/bench-t1-*-1"},
			events: []string{"Normal VolumeRequested/Provision", "Normal VolumeRequested/Provision"},
		},
		messageHas: []string{"-0 (just created), bench-t1-", "-1 (just created)"},
	}, {
		name:  "ReadWriteMany clients share one claim",
		bench: newBenchmark(withTargets(rwx), withClients(3), withTarget("t1", provisioning(0))),
		outcome: outcome{
			wait:   601 * time.Second,
			calls:  []string{"create PersistentVolumeClaim/bench-t1-*-shared"},
			events: []string{"Normal VolumeRequested/Provision"},
		},
		messageHas: []string{"-shared (just created)"},
	}, {
		name:       "an existing-claim target creates no claim and counts as bound at once, unannounced",
		bench:      newBenchmark(withTargets(claimTarget("t1", "data")), withTarget("t1", provisioning(-2*time.Second))),
		messageHas: []string{""},
		boundMs:    ptr.To[int64](2000),
	}, {
		name:  "bound claims record how long binding took, with an event",
		bench: newBenchmark(withClients(2), withTarget("t1", provisioning(-1500*time.Millisecond))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return claimsOf(b, "t1", corev1.ClaimBound)
		},
		outcome:    outcome{events: []string{"Normal VolumesBound/Provision"}},
		messageHas: []string{""},
		boundMs:    ptr.To[int64](1500),
	}, {
		name:  "a binding time already recorded is kept and not announced again",
		bench: newBenchmark(withTarget("t1", bound(-time.Minute, 700))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return claimsOf(b, "t1", corev1.ClaimBound)
		},
		messageHas: []string{""},
		boundMs:    ptr.To[int64](700),
	}, {
		name:  "a claim pending within volumeBindSeconds waits until the timeout, naming the claim and its phase",
		bench: newBenchmark(withTarget("t1", provisioning(-100*time.Second))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return claimsOf(b, "t1", corev1.ClaimPending)
		},
		outcome:    outcome{wait: 501 * time.Second},
		messageHas: []string{"waiting for claims to bind: bench-t1-", "-0 (Pending)"},
	}, {
		name:  "a claim no controller has looked at yet reads as Pending",
		bench: newBenchmark(withTarget("t1", provisioning(-100*time.Second))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return claimsOf(b, "t1", "")
		},
		outcome:    outcome{wait: 501 * time.Second},
		messageHas: []string{"-0 (Pending)"},
	}, {
		name:  "of two claims only the unbound one is named, and nothing is recorded as bound",
		bench: newBenchmark(withClients(2), withTarget("t1", provisioning(-100*time.Second))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			claims := claimsOf(b, "t1", corev1.ClaimBound)
			claims[1].(*corev1.PersistentVolumeClaim).Status.Phase = corev1.ClaimLost
			return claims
		},
		outcome:    outcome{wait: 501 * time.Second},
		messageHas: []string{"waiting for claims to bind: bench-t1-", "-1 (Lost)"},
	}, {
		name:  "a pending claim names the provisioner it waits for and the node its consumer was scheduled to",
		bench: newBenchmark(withTarget("t1", provisioning(-100*time.Second))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			claims := claimsOf(b, "t1", corev1.ClaimPending)
			claims[0].SetAnnotations(map[string]string{annStorageProvisioner: "rancher.io/local-path", annSelectedNode: "node-a"})
			return claims
		},
		outcome:    outcome{wait: 501 * time.Second},
		messageHas: []string{"-0 (Pending, waiting for provisioner rancher.io/local-path to create its volume on node node-a)"},
	}, {
		name:  "a claim still pending past volumeBindSeconds fails the run naming the claim",
		bench: newBenchmark(withTarget("t1", provisioning(-601*time.Second))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return claimsOf(b, "t1", corev1.ClaimPending)
		},
		outcome: outcome{failure: sbv1.ReasonVolumeNotBound, failureHas: []string{
			"target t1: claim(s) not bound after 10m0s (timeouts.volumeBindSeconds): bench-t1-", "-0 (Pending)"}},
		messageHas: []string{""},
	}, {
		name:   "a create that loses to AlreadyExists is not an error and announces nothing",
		bench:  newBenchmark(withTarget("t1", provisioning(0))),
		faults: []fault{failing("create", "PersistentVolumeClaim", "", alreadyExists("PersistentVolumeClaim", "x"))},
		outcome: outcome{
			wait:  601 * time.Second,
			calls: []string{"create PersistentVolumeClaim/bench-t1-*-0"},
		},
		messageHas: []string{"-0 (just created)"},
	}, {
		name:   "a failed create is returned wrapped and announces nothing",
		bench:  newBenchmark(withClients(2), withTarget("t1", provisioning(0))),
		faults: []fault{failing("create", "PersistentVolumeClaim", "", errInternal)},
		outcome: outcome{
			err: "creating *v1.PersistentVolumeClaim bench-t1-", errIs: apierrors.IsInternalError,
			calls: []string{"create PersistentVolumeClaim/bench-t1-*-0", "create PersistentVolumeClaim/bench-t1-*-1"},
		},
		messageHas: []string{""},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []client.Object
			if tc.objs != nil {
				objs = tc.objs(tc.bench)
			}
			h := newHarness(t, tc.bench, objs, tc.faults...)
			s := h.snapshot()
			p := h.pass()
			run := h.target(p, "t1")
			step, err := h.r.ensureVolumes(context.Background(), p, s, run)
			h.expectStep(step, err, tc.outcome)
			st := targetStatus(tc.bench, "t1")
			for _, want := range tc.messageHas {
				if (want == "" && st.Message != "") || !strings.Contains(st.Message, want) {
					t.Errorf("message %q, want it to contain %q", st.Message, want)
				}
			}
			switch {
			case tc.boundMs == nil && st.VolumesBoundMilliseconds != nil:
				t.Errorf("volumesBoundMilliseconds %d, want none", *st.VolumesBoundMilliseconds)
			case tc.boundMs != nil && (st.VolumesBoundMilliseconds == nil || *st.VolumesBoundMilliseconds != *tc.boundMs):
				t.Errorf("volumesBoundMilliseconds %v, want %d", st.VolumesBoundMilliseconds, *tc.boundMs)
			}
			if st.State != sbv1.TargetProvisioning {
				t.Errorf("state %s: claims do not move a target on", st.State)
			}
		})
	}
}

func TestClaimWait(t *testing.T) {
	claim := func(phase corev1.PersistentVolumeClaimPhase, ann map[string]string) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{Status: corev1.PersistentVolumeClaimStatus{Phase: phase}}
		c.Annotations = ann
		return c
	}
	for _, tc := range []struct {
		claim *corev1.PersistentVolumeClaim
		want  string
	}{
		{claim(corev1.ClaimBound, map[string]string{annStorageProvisioner: "p"}), "Bound"},
		{claim(corev1.ClaimLost, nil), "Lost"},
		{claim("", nil), "Pending"},
		{claim(corev1.ClaimPending, map[string]string{annStorageProvisioner: "rancher.io/local-path"}),
			"Pending, waiting for provisioner rancher.io/local-path to create its volume"},
		{claim(corev1.ClaimPending, map[string]string{annSelectedNode: "n1"}), "Pending, node n1 chosen, no provisioner has taken it"},
		{claim(corev1.ClaimPending, map[string]string{annStorageProvisioner: "x.io/p", annSelectedNode: "n1"}),
			"Pending, waiting for provisioner x.io/p to create its volume on node n1"},
	} {
		if got := claimWait(tc.claim); got != tc.want {
			t.Errorf("claimWait(%s, %v) = %q, want %q", tc.claim.Status.Phase, tc.claim.Annotations, got, tc.want)
		}
	}
}
