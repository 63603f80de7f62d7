package controllers

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestEnsureClients(t *testing.T) {
	rwx := classTarget("t1", "fast")
	rwx.AccessMode = corev1.ReadWriteMany
	twoClients := func(opts ...benchOption) *sbv1.StorageBenchmark {
		return newBenchmark(append([]benchOption{withClients(2), withTarget("t1", bound(-30*time.Second, 1000))}, opts...)...)
	}
	withJobs := func(pod ...podOption) func(b *sbv1.StorageBenchmark) []client.Object {
		return func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(jobsOf(b, "t1"), podsOf(b, "t1", pod...))
		}
	}
	runPhase(t, (*StorageBenchmarkReconciler).ensureClients, []phaseRow{{
		name:  "missing client Jobs are created, one per client on ReadWriteOnce, each announced",
		bench: twoClients(),
		outcome: outcome{
			calls:  []string{"create Job/bench-t1-g1-c0", "create Job/bench-t1-g1-c1"},
			events: []string{"Normal ClientsCreated/Start", "Normal ClientsCreated/Start"},
		},
		state: sbv1.TargetProvisioning,
	}, {
		name:  "ReadWriteMany clients run in one Indexed Job",
		bench: twoClients(withTargets(rwx)),
		outcome: outcome{
			calls:  []string{"create Job/bench-t1-g1"},
			events: []string{"Normal ClientsCreated/Start"},
		},
		state: sbv1.TargetProvisioning,
		check: func(t *testing.T, h *harness) {
			if msg := h.p.events[0].message; msg != "target t1: job bench-t1-g1 runs clients 0..1" {
				t.Errorf("event message %q", msg)
			}
		},
	}, {
		name:   "a create that loses to AlreadyExists is not an error and announces nothing",
		bench:  twoClients(),
		faults: []fault{failing("create", "Job", "bench-t1-g1-c0", alreadyExists("Job", "bench-t1-g1-c0"))},
		outcome: outcome{
			calls:  []string{"create Job/bench-t1-g1-c0", "create Job/bench-t1-g1-c1"},
			events: []string{"Normal ClientsCreated/Start"},
		},
		state: sbv1.TargetProvisioning,
	}, {
		name:   "a failed create is returned wrapped; the other Jobs are created beside it (in parallel), the retry finds them",
		bench:  twoClients(),
		faults: []fault{failing("create", "Job", "bench-t1-g1-c0", errInternal)},
		outcome: outcome{
			err: "creating *v1.Job bench-t1-g1-c0", errIs: apierrors.IsInternalError,
			calls: []string{"create Job/bench-t1-g1-c0", "create Job/bench-t1-g1-c1"},
		},
		state: sbv1.TargetProvisioning,
	}, {
		name:  "running, ready clients are no failure and cost no API call",
		bench: twoClients(),
		objs:  withJobs(),
		state: sbv1.TargetProvisioning,
	}, {
		name:  "a Job failed by its deadline fails the run as TimedOut",
		bench: twoClients(),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(jobsOf(b, "t1", jobFailed(batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")), podsOf(b, "t1"))
		},
		outcome: outcome{failure: sbv1.ReasonTimedOut, failureHas: []string{
			"target t1: job bench-t1-g1-c0 failed (DeadlineExceeded): Job was active longer than specified deadline"}},
		state: sbv1.TargetProvisioning,
	}, {
		name:  "a failed Job fails the run naming the Job and its failed pod",
		bench: twoClients(),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(jobsOf(b, "t1", jobFailed(batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")),
				podsOf(b, "t1", onClient(1, failed(1, "laying out the data set: no space left on device\n"))))
		},
		outcome: outcome{failure: sbv1.ReasonClientFailed, failureHas: []string{
			"target t1: job bench-t1-g1-c0 failed (BackoffLimitExceeded): Job has reached the specified backoff limit; " +
				"pod bench-t1-g1-c1-0-abcde (client 1 on node-1) failed: exit code 1 (Error): laying out the data set: no space left on device"}},
		state: sbv1.TargetProvisioning,
	}, {
		name:  "a failed pod fails the run naming the pod, its client, its node and what its container said",
		bench: twoClients(),
		objs:  withJobs(onClient(1, failed(2, "clock 900 ms off the controller's"))),
		outcome: outcome{failure: sbv1.ReasonClientFailed, failureHas: []string{
			"target t1: pod bench-t1-g1-c1-0-abcde (client 1 on node-1) failed: exit code 2 (Error): clock 900 ms off the controller's"}},
		state: sbv1.TargetProvisioning,
	}, {
		name:  "an evicted pod without a container status is named with the pod's reason",
		bench: twoClients(),
		objs: withJobs(onClient(0, func(_ int32, pod *corev1.Pod) {
			pod.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: memory."}
		})),
		outcome: outcome{failure: sbv1.ReasonClientFailed, failureHas: []string{
			"pod bench-t1-g1-c0-0-abcde (client 0 on node-1) failed: Evicted The node was low on resource: memory."}},
		state: sbv1.TargetProvisioning,
	}, {
		name:  "a pod deleted during the run fails it",
		bench: twoClients(),
		objs:  withJobs(onClient(0, deleting())),
		outcome: outcome{failure: sbv1.ReasonClientFailed, failureHas: []string{
			"target t1: pod bench-t1-g1-c0-0-abcde (client 0) was deleted during the run"}},
		state: sbv1.TargetProvisioning,
	}, {
		name:  "a running pod deleted by the cleanup after its target's results were stored (the cache behind) is no failure",
		bench: twoClients(),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(jobsOf(b, "t1"), podsOf(b, "t1", deleting()), one(resultsConfigMap(b, "t1", mergedResult(b, "t1", measuredStart))))
		},
		outcome: outcome{wait: shortRequeue},
		state:   sbv1.TargetProvisioning,
	}, {
		name:  "a pod deleted after it succeeded is no failure",
		bench: twoClients(),
		objs:  withJobs(onClient(0, succeeded(), deleting())),
		state: sbv1.TargetProvisioning,
	}, {
		name:  "a failed pod of another generation is not this run's failure",
		bench: twoClients(),
		objs:  withJobs(onClient(1, failed(1, "old run"), ofGeneration(0))),
		state: sbv1.TargetProvisioning,
	}})
}

func TestStartWhenReady(t *testing.T) {
	twoClients := func(st func(*sbv1.TargetStatus)) *sbv1.StorageBenchmark {
		return newBenchmark(withClients(2), withTarget("t1", st))
	}
	withPods := func(opts ...podOption) func(b *sbv1.StorageBenchmark) []client.Object {
		return func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), jobsOf(b, "t1"), podsOf(b, "t1", opts...))
		}
	}
	// The clients' deadline: volumeBindSeconds + prepareSeconds after
	// provisioning started 30 s before the pass, and a second.
	clientsDeadline := 4200*time.Second - 30*time.Second + time.Second
	runPhase(t, (*StorageBenchmarkReconciler).startWhenReady, []phaseRow{{
		name:  "every client ready publishes the start a lead ahead, and the target is Running",
		bench: twoClients(bound(-30*time.Second, 1000)),
		objs:  withPods(),
		outcome: outcome{
			wait:   testLead + time.Second,
			calls:  []string{"update ConfigMap/bench-start"},
			events: []string{"Normal MeasurementScheduled/Start"},
		},
		state: sbv1.TargetRunning, message: "measuring",
		check: func(t *testing.T, h *harness) {
			st := targetStatus(h.b, "t1")
			if st.ClientsReadyMilliseconds == nil || *st.ClientsReadyMilliseconds != 30000 ||
				st.MeasurementStartTime == nil || !st.MeasurementStartTime.Time.Equal(t0.Add(testLead)) {
				t.Errorf("clientsReadyMilliseconds %v, measurementStartTime %v", st.ClientsReadyMilliseconds, st.MeasurementStartTime)
			}
		},
	}, {
		name:    "clients laying out their data keep a bound target Preparing, naming them in order",
		bench:   twoClients(bound(-30*time.Second, 1000)),
		objs:    withPods(notReady()),
		outcome: outcome{wait: clientsDeadline},
		state:   sbv1.TargetPreparing,
		message: "0 of 2 clients ready; waiting for bench-t1-g1-c0-0-abcde (laying out its data set), bench-t1-g1-c1-0-abcde (laying out its data set)",
	}, {
		name:    "before its volumes are bound a target stays Provisioning",
		bench:   twoClients(provisioning(-30 * time.Second)),
		objs:    withPods(onClient(1, unschedulable("0/3 nodes are available: 3 Insufficient cpu."))),
		outcome: outcome{wait: clientsDeadline},
		state:   sbv1.TargetProvisioning,
		message: "1 of 2 clients ready; waiting for bench-t1-g1-c1-0-abcde (not scheduled: 0/3 nodes are available: 3 Insufficient cpu.)",
	}, {
		name:  "spread Required with a client no node can take fails at once, naming the nodes that fit",
		bench: newBenchmark(withClients(2), withSpread(sbv1.SpreadRequired), withTarget("t1", bound(-30*time.Second, 1000))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), jobsOf(b, "t1"), podsOf(b, "t1", onClient(1, unschedulable("0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) were unschedulable."))),
				[]client.Object{node("node-1"), cordoned(node("node-2"))})
		},
		outcome: outcome{failure: sbv1.ReasonClientsUnschedulable, failureHas: []string{
			"target t1: clients.spread Required puts each of the 2 clients on a node of its own, but 1 node(s) can take them (node-1): lower clients.count to 1 or set clients.spread Preferred"}},
		state: sbv1.TargetPreparing, message: "1 of 2 clients ready; waiting for bench-t1-g1-c1-0-abcde (not scheduled: 0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) were unschedulable.)",
	}, {
		name:  "spread Required with enough nodes for every client keeps waiting for the scheduler",
		bench: newBenchmark(withClients(2), withSpread(sbv1.SpreadRequired), withTarget("t1", bound(-30*time.Second, 1000))),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), jobsOf(b, "t1"), podsOf(b, "t1", onClient(1, unschedulable("0/2 nodes are available: 2 Insufficient cpu."))),
				[]client.Object{node("node-1"), node("node-2")})
		},
		outcome: outcome{wait: clientsDeadline},
		state:   sbv1.TargetPreparing,
		message: "1 of 2 clients ready; waiting for bench-t1-g1-c1-0-abcde (not scheduled: 0/2 nodes are available: 2 Insufficient cpu.)",
	}, {
		name:  "a pod still pulling its image is named with the kubelet's reason",
		bench: twoClients(bound(-30*time.Second, 1000)),
		objs: withPods(onClient(0, func(_ int32, pod *corev1.Pod) {
			pod.Status.Phase = corev1.PodPending
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "engine", State: corev1.ContainerState{
				Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "storagebench:test"`}}}}
		})),
		outcome: outcome{wait: clientsDeadline},
		state:   sbv1.TargetPreparing,
		message: `1 of 2 clients ready; waiting for bench-t1-g1-c0-0-abcde (ImagePullBackOff Back-off pulling image "storagebench:test")`,
	}, {
		name:  "a client whose pod the Job controller has not created yet is not ready",
		bench: twoClients(bound(-30*time.Second, 1000)),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), jobsOf(b, "t1"), pods(podsOf(b, "t1"), 0))
		},
		outcome: outcome{wait: clientsDeadline},
		state:   sbv1.TargetPreparing,
		message: "1 of 2 clients ready",
	}, {
		// In a pass ensureClients fails the run on such a pod first; the
		// reason given here is podWaitReason's fallback for a running pod.
		name:    "a ready pod being deleted is not ready",
		bench:   twoClients(bound(-30*time.Second, 1000)),
		objs:    withPods(onClient(1, deleting())),
		outcome: outcome{wait: clientsDeadline},
		state:   sbv1.TargetPreparing,
		message: "1 of 2 clients ready; waiting for bench-t1-g1-c1-0-abcde (laying out its data set)",
	}, {
		name:    "ready pods of another generation do not count",
		bench:   twoClients(bound(-30*time.Second, 1000)),
		objs:    withPods(onClient(1, ofGeneration(0))),
		outcome: outcome{wait: clientsDeadline},
		state:   sbv1.TargetPreparing,
		message: "1 of 2 clients ready",
	}, {
		name:  "clients not ready past volumeBindSeconds + prepareSeconds fail the run naming them",
		bench: twoClients(bound(-4201*time.Second, 1000)),
		objs:  withPods(onClient(0, notReady())),
		outcome: outcome{failure: sbv1.ReasonClientsNotReady, failureHas: []string{
			"target t1: 1 of 2 clients ready after 1h10m0s (timeouts.volumeBindSeconds + prepareSeconds): bench-t1-g1-c0-0-abcde (laying out its data set)"}},
		state:   sbv1.TargetPreparing,
		message: "1 of 2 clients ready; waiting for bench-t1-g1-c0-0-abcde (laying out its data set)",
	}, {
		name:  "a status without a provisioning start waits the whole deadline rather than panicking",
		bench: newBenchmark(withClients(2)),
		objs:  withPods(notReady()),
		outcome: outcome{
			wait: 4201 * time.Second,
		},
		state:   sbv1.TargetPending,
		message: "0 of 2 clients ready; waiting for bench-t1-g1-c0-0-abcde (laying out its data set), bench-t1-g1-c1-0-abcde (laying out its data set)",
		check: func(t *testing.T, h *harness) {
			if st := targetStatus(h.b, "t1"); st.ClientsReadyMilliseconds != nil {
				t.Errorf("clientsReadyMilliseconds %d, want none", *st.ClientsReadyMilliseconds)
			}
		},
	}})
}
