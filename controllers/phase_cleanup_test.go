package controllers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// beingDeleted marks objects as deleted and held by a finalizer.
func beingDeleted(objs []client.Object) []client.Object {
	for _, o := range objs {
		o.SetDeletionTimestamp(at(-time.Second))
		o.SetFinalizers([]string{"example.com/hold"})
	}
	return objs
}

func TestCleanupTarget(t *testing.T) {
	cleanup := func(volumes, pods sbv1.CleanupPolicy) benchOption {
		return withSpec(func(s *sbv1.StorageBenchmarkSpec) { s.Cleanup = sbv1.Cleanup{Volumes: volumes, ClientPods: pods} })
	}
	children := func(b *sbv1.StorageBenchmark) []client.Object {
		return objects(jobsOf(b, "t1", jobComplete()), claimsOf(b, "t1", corev1.ClaimBound))
	}
	allDeleted := []string{
		"delete Job/bench-t1-g1-c0", "delete Job/bench-t1-g1-c1",
		"delete PersistentVolumeClaim/bench-t1-*-0", "delete PersistentVolumeClaim/bench-t1-*-1",
	}
	runPhase(t, (*StorageBenchmarkReconciler).cleanupTarget, []phaseRow{{
		name:    "Delete removes the target's Jobs and claims, announcing the claims",
		bench:   newBenchmark(withClients(2)),
		objs:    children,
		outcome: outcome{done: true, calls: allDeleted, events: []string{"Normal VolumesDeleted/Cleanup"}},
		state:   sbv1.TargetPending,
		check: func(t *testing.T, h *harness) {
			if msg := h.p.events[0].message; msg != "target t1: deleted 2 claim(s) (cleanup.volumes: Delete)" {
				t.Errorf("event message %q", msg)
			}
		},
	}, {
		name:    "Keep for both leaves every child in place",
		bench:   newBenchmark(withClients(2), cleanup(sbv1.CleanupKeep, sbv1.CleanupKeep)),
		objs:    children,
		outcome: outcome{done: true},
		state:   sbv1.TargetPending,
	}, {
		name:    "Keep for client pods with Delete for volumes removes only the claims",
		bench:   newBenchmark(withClients(2), cleanup(sbv1.CleanupDelete, sbv1.CleanupKeep)),
		objs:    children,
		outcome: outcome{done: true, calls: allDeleted[2:], events: []string{"Normal VolumesDeleted/Cleanup"}},
		state:   sbv1.TargetPending,
	}, {
		name:    "children already being deleted are not deleted again, nor announced",
		bench:   newBenchmark(withClients(2)),
		objs:    func(b *sbv1.StorageBenchmark) []client.Object { return beingDeleted(children(b)) },
		outcome: outcome{done: true},
		state:   sbv1.TargetPending,
	}, {
		name:  "the user's existing claim is never deleted",
		bench: newBenchmark(withClients(2), withTargets(claimTarget("t1", "data"))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(jobsOf(b, "t1"), one(userClaim("data", corev1.ReadWriteMany, "")))
		},
		outcome: outcome{done: true, calls: []string{"delete Job/bench-t1-g1"}},
		state:   sbv1.TargetPending,
	}, {
		name:  "only this target's children are deleted",
		bench: newBenchmark(withTargets(classTarget("t1", "fast"), classTarget("t2", "slow"))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(jobsOf(b, "t1"), claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t2"), claimsOf(b, "t2", corev1.ClaimBound))
		},
		outcome: outcome{done: true, calls: []string{"delete Job/bench-t1-g1-c0", "delete PersistentVolumeClaim/bench-t1-*-0"},
			events: []string{"Normal VolumesDeleted/Cleanup"}},
		state: sbv1.TargetPending,
	}, {
		name:   "a Job delete error is returned wrapped, before any claim is touched (the other Job is deleted beside it)",
		bench:  newBenchmark(withClients(2)),
		objs:   children,
		faults: []fault{failing("delete", "Job", "bench-t1-g1-c0", errInternal)},
		outcome: outcome{err: "deleting *v1.Job bench-t1-g1-c0", errIs: apierrors.IsInternalError,
			calls: allDeleted[:2]},
		state: sbv1.TargetPending,
	}, {
		name:   "a claim delete error is returned wrapped and announces nothing",
		bench:  newBenchmark(withClients(2)),
		objs:   children,
		faults: []fault{failing("delete", "PersistentVolumeClaim", "", errTimeout)},
		outcome: outcome{err: "deleting *v1.PersistentVolumeClaim bench-t1-", errIs: apierrors.IsTimeout,
			calls: allDeleted},
		state: sbv1.TargetPending,
	}, {
		name:    "a child gone already (NotFound) is deleted as far as cleanup goes",
		bench:   newBenchmark(withClients(2)),
		objs:    children,
		faults:  []fault{failing("delete", "PersistentVolumeClaim", "", notFound("PersistentVolumeClaim", "x"))},
		outcome: outcome{done: true, calls: allDeleted, events: []string{"Normal VolumesDeleted/Cleanup"}},
		state:   sbv1.TargetPending,
	}})
}
