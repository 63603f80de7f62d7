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
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// measured is a target of two clients whose 1-second timetable started 10 s
// before the pass: it ended 9 s ago.
var measuredStart = t0.Add(-10 * time.Second)

func measured(opts ...benchOption) *sbv1.StorageBenchmark {
	return newBenchmark(append([]benchOption{withClients(2), withTarget("t1", func(st *sbv1.TargetStatus) {
		bound(-time.Minute, 1000)(st)
		st.ClientsReadyMilliseconds = ptr.To[int64](20000)
		st.MeasurementStartTime = at(-10 * time.Second)
		st.State = sbv1.TargetRunning
		st.Message = "measuring"
	})}, opts...)...)
}

// finished is the world of a measured target whose clients all exited.
func finished(pod ...podOption) func(b *sbv1.StorageBenchmark) []client.Object {
	return func(b *sbv1.StorageBenchmark) []client.Object {
		return objects(runObjects(b), claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"),
			podsOf(b, "t1", append([]podOption{succeeded()}, pod...)...), one(storageClass("fast")))
	}
}

// reports are both clients' logs.
func reports(b *sbv1.StorageBenchmark) map[string]string {
	return map[string]string{
		"bench-t1-g1-c0-0-abcde": clientLog(b, "t1", 0, measuredStart),
		"bench-t1-g1-c1-0-abcde": clientLog(b, "t1", 1, measuredStart),
	}
}

// stillMeasuring makes a client pod one whose engine runs.
func stillMeasuring(_ int32, pod *corev1.Pod) {
	pod.Status.Phase = corev1.PodRunning
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: engineContainer, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
}

// engineExited makes a client pod one whose engine exited with code while
// the kubelet still shows the pod running.
func engineExited(code int32) podOption {
	return func(_ int32, pod *corev1.Pod) {
		pod.Status.Phase = corev1.PodRunning
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: engineContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}}
	}
}

func TestCollect(t *testing.T) {
	collect := func(r *StorageBenchmarkReconciler, ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
		// As runTarget calls it: after the end of the published timetable;
		// and the merge, as advance runs it, once every client handed over.
		start := t.status.MeasurementStartTime.Time
		step, err := r.collect(ctx, p, s, t, plan.StartRecord{Generation: p.bench.Generation, Start: start, PublishedAt: start.Add(-testLead)})
		if err != nil || step.merge == nil {
			return step, err
		}
		return step.merge()
	}
	cleanedUp := []string{
		"create ConfigMap/bench-t1-results",
		"delete Job/bench-t1-g1-c0", "delete Job/bench-t1-g1-c1",
		"delete PersistentVolumeClaim/bench-t1-*-0", "delete PersistentVolumeClaim/bench-t1-*-1",
	}
	succeededEvents := []string{"Normal ResultsCollected/Collect", "Normal VolumesDeleted/Cleanup"}
	runPhase(t, collect, []phaseRow{{
		name:    "every client's report is merged and stored, the target Succeeded, its clients and claims deleted",
		bench:   measured(),
		objs:    finished(),
		logs:    reports,
		outcome: outcome{done: true, calls: cleanedUp, events: succeededEvents},
		state:   sbv1.TargetSucceeded,
		check: func(t *testing.T, h *harness) {
			st := targetStatus(h.b, "t1")
			if st.ResultsConfigMap != "bench-t1-results" || len(st.Cells) != 1 || st.Backend != "io_uring" || st.StartSkewMicroseconds == nil ||
				*st.VolumesBoundMilliseconds != 1000 || *st.ClientsReadyMilliseconds != 20000 {
				t.Errorf("target status %+v", st)
			}
			env := st.Environment
			if env == nil || env.StorageClassName != "fast" || env.Provisioner != "example.com/fast" || env.Nodes != 1 || env.EngineVersion != "test" {
				t.Errorf("environment summary %+v", env)
			}
			cm := &corev1.ConfigMap{}
			if err := h.r.APIReader.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "bench-t1-results"}, cm); err != nil {
				t.Fatal(err)
			}
			tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
			if err != nil || tr.Timings.VolumesBoundMilliseconds != 1000 || tr.Timings.ClientsReadyMilliseconds != 20000 ||
				cm.Labels[labelGeneration] != "1" || h.p.targetResults["t1"] == nil {
				t.Fatalf("stored %+v (%v), labels %v", tr, err, cm.Labels)
			}
			// The phases after readiness: the lead as published, the
			// collection from the scheduled end (9 s ago) to the merge.
			if tr.Timings.StartLeadMilliseconds != testLead.Milliseconds() || tr.Timings.CollectionMilliseconds != 9000 {
				t.Errorf("stored timings %+v", tr.Timings)
			}
			if st.DataLayoutMilliseconds == nil || *st.DataLayoutMilliseconds != tr.Timings.PrepareMilliseconds ||
				st.StartLeadMilliseconds == nil || *st.StartLeadMilliseconds != testLead.Milliseconds() ||
				st.CollectionMilliseconds == nil || *st.CollectionMilliseconds != 9000 {
				t.Errorf("phase durations in status: layout %v, lead %v, collection %v", st.DataLayoutMilliseconds, st.StartLeadMilliseconds, st.CollectionMilliseconds)
			}
			// The whole fingerprint is in the results ConfigMap.
			full := tr.Environment
			if full == nil || full.Parameters["tier"] != "fast" || len(full.Nodes) != 1 || full.Nodes[0].Name != "node-1" || full.Nodes[0].Clients != 2 {
				t.Errorf("stored environment %+v", full)
			}
		},
	}, {
		name:    "a client still running within collectSeconds is waited for",
		bench:   measured(),
		objs:    finished(onClient(1, stillMeasuring)),
		outcome: outcome{wait: 300*time.Second - 9*time.Second + time.Second},
		state:   sbv1.TargetCollecting,
		message: "waiting for 1 client(s) to hand over results",
	}, {
		name:    "a client whose engine exited 0 is collected before the kubelet turns its pod Succeeded",
		bench:   measured(),
		objs:    finished(onClient(1, engineExited(0))),
		logs:    reports,
		outcome: outcome{done: true, calls: cleanedUp, events: succeededEvents},
		state:   sbv1.TargetSucceeded,
	}, {
		name: "just after the end, the report of a client its pod still shows running is read from its log",
		bench: measured(withTarget("t1", func(st *sbv1.TargetStatus) {
			st.MeasurementStartTime = at(-1500 * time.Millisecond) // the 1 s timetable ended 0.5 s ago
		})),
		objs:    finished(onClient(1, stillMeasuring)),
		logs:    reports,
		outcome: outcome{done: true, calls: cleanedUp, events: succeededEvents},
		state:   sbv1.TargetSucceeded,
	}, {
		name: "just after the end, a log without its whole report yet is looked at again shortly",
		bench: measured(withTarget("t1", func(st *sbv1.TargetStatus) {
			st.MeasurementStartTime = at(-1500 * time.Millisecond)
		})),
		objs: finished(onClient(1, stillMeasuring)),
		logs: func(b *sbv1.StorageBenchmark) map[string]string {
			logs := reports(b)
			whole := logs["bench-t1-g1-c1-0-abcde"]
			logs["bench-t1-g1-c1-0-abcde"] = whole[:len(whole)/2]
			return logs
		},
		// Before the early read's retry, the clients' clock offset allowed
		// for (500 ms) and endMargin are over: the next target may then
		// be provisioned.
		outcome: outcome{wait: 500*time.Millisecond + endMargin - 500*time.Millisecond},
		state:   sbv1.TargetCollecting,
		message: "waiting for 1 client(s) to hand over results",
	}, {
		name: "just after the end, a client shown exited with an error, or whose report has one, is left to its pod's failure",
		bench: measured(withTarget("t1", func(st *sbv1.TargetStatus) {
			st.MeasurementStartTime = at(-1800 * time.Millisecond) // ended 0.8 s ago
		})),
		objs: finished(onClient(1, engineExited(137)), onClient(0, stillMeasuring)),
		logs: func(b *sbv1.StorageBenchmark) map[string]string {
			return map[string]string{
				"bench-t1-g1-c0-0-abcde": clientLogWithError(b, "t1", 0, measuredStart, "cell w: engine failed"),
				"bench-t1-g1-c1-0-abcde": clientLog(b, "t1", 1, measuredStart),
			}
		},
		outcome: outcome{wait: earlyReadRetry},
		state:   sbv1.TargetCollecting,
		message: "waiting for 2 client(s) to hand over results",
	}, {
		name:    "a client whose engine still runs, or exited with an error, is not collected from",
		bench:   measured(),
		objs:    finished(onClient(1, engineExited(1)), onClient(0, stillMeasuring)),
		outcome: outcome{wait: 300*time.Second - 9*time.Second + time.Second},
		state:   sbv1.TargetCollecting,
		message: "waiting for 2 client(s) to hand over results",
	}, {
		name:  "a client whose pod is gone is waited for like a running one, and counted",
		bench: measured(),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"), pods(podsOf(b, "t1", succeeded()), 0))
		},
		outcome: outcome{wait: 292 * time.Second},
		state:   sbv1.TargetCollecting,
		message: "waiting for 1 client(s) to hand over results",
	}, {
		name: "a client whose pod is gone past collectSeconds fails the run, counted as missing",
		bench: measured(withTarget("t1", func(st *sbv1.TargetStatus) {
			st.MeasurementStartTime = at(-302 * time.Second)
		})),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(runObjects(b), claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"),
				pods(podsOf(b, "t1"), 1))
		},
		outcome: outcome{failure: sbv1.ReasonTimedOut, failureHas: []string{
			"(timeouts.collectSeconds): bench-t1-g1-c1-0-abcde, 1 client pod(s) missing"}},
		state:   sbv1.TargetCollecting,
		message: "measuring",
	}, {
		name: "clients still running past collectSeconds fail the run naming them",
		bench: measured(withTarget("t1", func(st *sbv1.TargetStatus) {
			st.MeasurementStartTime = at(-302 * time.Second) // ended 301 s ago
		})),
		objs: finished(onClient(1, stillMeasuring),
			onClient(0, stillMeasuring)),
		outcome: outcome{failure: sbv1.ReasonTimedOut, failureHas: []string{
			"target t1: clients still running 5m0s after the last cell's scheduled end (timeouts.collectSeconds): bench-t1-g1-c0-0-abcde, bench-t1-g1-c1-0-abcde"}},
		state:   sbv1.TargetCollecting,
		message: "measuring",
	}, {
		name:    "a log that cannot be fetched within collectSeconds is returned wrapped, to be read again with backoff",
		bench:   measured(),
		objs:    finished(),
		logs:    reports,
		logErrs: map[string]error{"bench-t1-g1-c1-0-abcde": apierrors.NewServiceUnavailable("the kubelet did not answer")},
		outcome: outcome{err: "target t1: reading the log of pod bench-t1-g1-c1-0-abcde (client 1): the kubelet did not answer", errIs: apierrors.IsServiceUnavailable},
		state:   sbv1.TargetCollecting,
		message: "measuring",
	}, {
		name: "a log that still cannot be fetched after collectSeconds fails the run naming the pod and its client",
		bench: measured(withTarget("t1", func(st *sbv1.TargetStatus) {
			st.MeasurementStartTime = at(-400 * time.Second)
		})),
		objs:    finished(),
		logs:    reports,
		logErrs: map[string]error{"bench-t1-g1-c1-0-abcde": apierrors.NewNotFound(corev1.Resource("pods"), "bench-t1-g1-c1-0-abcde")},
		outcome: outcome{failure: sbv1.ReasonResultsUnreadable, failureHas: []string{
			`target t1: reading the log of pod bench-t1-g1-c1-0-abcde (client 1): pods "bench-t1-g1-c1-0-abcde" not found (for longer than timeouts.collectSeconds)`}},
		state:   sbv1.TargetCollecting,
		message: "measuring",
	}, {
		name:  "a log without a report fails the run naming the pod",
		bench: measured(),
		objs:  finished(),
		logs: func(b *sbv1.StorageBenchmark) map[string]string {
			l := reports(b)
			l["bench-t1-g1-c0-0-abcde"] = "panic: something else\n"
			return l
		},
		outcome: outcome{failure: sbv1.ReasonResultsUnreadable, failureHas: []string{"target t1: pod bench-t1-g1-c0-0-abcde (client 0): ", "no client report"}},
		state:   sbv1.TargetCollecting,
		message: "measuring",
	}, {
		name:  "reports that do not belong to this run's plan fail the run",
		bench: measured(),
		objs:  finished(),
		logs: func(b *sbv1.StorageBenchmark) map[string]string {
			l := reports(b)
			l["bench-t1-g1-c1-0-abcde"] = clientLog(measured(withGeneration(2)), "t1", 1, measuredStart)
			return l
		},
		outcome: outcome{failure: sbv1.ReasonResultsUnreadable, failureHas: []string{"target t1: client 1 reported for generation 2, not 1"}},
		state:   sbv1.TargetCollecting,
		message: "measuring",
	}, {
		name:    "a results ConfigMap that loses to AlreadyExists is no error: the target still succeeds",
		bench:   measured(),
		objs:    finished(),
		logs:    reports,
		faults:  []fault{failing("create", "ConfigMap", "bench-t1-results", alreadyExists("ConfigMap", "bench-t1-results"))},
		outcome: outcome{done: true, calls: cleanedUp, events: succeededEvents},
		state:   sbv1.TargetSucceeded,
	}, {
		name:   "a failed results create is returned wrapped; the target is not Succeeded and nothing is announced",
		bench:  measured(),
		objs:   finished(),
		logs:   reports,
		faults: []fault{failing("create", "ConfigMap", "bench-t1-results", errInternal)},
		outcome: outcome{err: "creating *v1.ConfigMap bench-t1-results", errIs: apierrors.IsInternalError,
			calls: []string{"create ConfigMap/bench-t1-results"}},
		state:   sbv1.TargetCollecting,
		message: "measuring",
		check: func(t *testing.T, h *harness) {
			if h.p.targetResults["t1"] != nil {
				t.Errorf("results recorded on the pass although not stored")
			}
		},
	}, {
		name:    "a fingerprint detail the API does not give is left out, not an error",
		bench:   measured(),
		objs:    finished(),
		logs:    reports,
		faults:  []fault{failing("get", "Node", "node-1", errInternal), failing("get", "StorageClass", "fast", errInternal)},
		outcome: outcome{done: true, calls: cleanedUp, events: succeededEvents},
		state:   sbv1.TargetSucceeded,
		check: func(t *testing.T, h *harness) {
			env := h.p.targetResults["t1"].Environment
			if env.StorageClassName != "fast" || env.Provisioner != "" || len(env.Nodes) != 1 || env.Nodes[0].KernelVersion != "" {
				t.Errorf("environment %+v", env)
			}
		},
	}})
}

func TestCollected(t *testing.T) {
	stored := func(b *sbv1.StorageBenchmark) []client.Object {
		return objects(claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1", jobComplete()),
			one(resultsConfigMap(b, "t1", mergedResult(b, "t1", measuredStart))))
	}
	cleanup := []string{
		"delete Job/bench-t1-g1-c0", "delete Job/bench-t1-g1-c1",
		"delete PersistentVolumeClaim/bench-t1-*-0", "delete PersistentVolumeClaim/bench-t1-*-1",
	}
	succeededStatus := withTarget("t1", func(st *sbv1.TargetStatus) {
		st.State = sbv1.TargetSucceeded
		st.ResultsConfigMap = "bench-t1-results"
	})
	runPhase(t, (*StorageBenchmarkReconciler).collected, []phaseRow{{
		name:    "without stored results a running target is not collected",
		bench:   measured(),
		objs:    finished(),
		state:   sbv1.TargetRunning,
		message: "measuring",
	}, {
		name:  "stored results of another generation are not this run's",
		bench: measured(withGeneration(2)),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return one(resultsConfigMap(measured(), "t1", mergedResult(measured(), "t1", measuredStart)))
		},
		state:   sbv1.TargetRunning,
		message: "measuring",
	}, {
		name:    "stored results refresh a status that lags them, then the cleanup policy applies",
		bench:   measured(),
		objs:    stored,
		outcome: outcome{done: true, calls: cleanup, events: []string{"Normal VolumesDeleted/Cleanup"}},
		state:   sbv1.TargetSucceeded,
		check: func(t *testing.T, h *harness) {
			if st := targetStatus(h.b, "t1"); len(st.Cells) != 1 || st.ResultsConfigMap != "bench-t1-results" || h.p.targetResults["t1"] == nil {
				t.Errorf("status %+v not refreshed from the stored results", st)
			}
		},
	}, {
		name:    "stored results the cache shows and the API server no longer has: look again once the cache has caught up, nothing provisioned",
		bench:   measured(),
		objs:    stored,
		faults:  []fault{failing("get", "ConfigMap", "bench-t1-results", apierrors.NewNotFound(corev1.Resource("configmaps"), "bench-t1-results"))},
		outcome: outcome{wait: shortRequeue},
		state:   sbv1.TargetRunning,
		message: "measuring",
	}, {
		name:    "a reading of stored results that fails is returned, wrapped",
		bench:   measured(),
		objs:    stored,
		faults:  []fault{failing("get", "ConfigMap", "bench-t1-results", errTimeout)},
		outcome: outcome{err: "reading configmap bench-t1-results", errIs: apierrors.IsTimeout},
		state:   sbv1.TargetRunning,
		message: "measuring",
	}, {
		name:  "stored results that do not decode fail the run naming the ConfigMap",
		bench: measured(),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			cm := resultsConfigMap(b, "t1", mergedResult(b, "t1", measuredStart))
			cm.Data[results.StoredKey] = `{"schemaVersion":"something/else"}`
			return one(cm)
		},
		outcome: outcome{failure: sbv1.ReasonResultsUnreadable, failureHas: []string{"target t1: configmap bench-t1-results: stored results have schema"}},
		state:   sbv1.TargetRunning,
		message: "measuring",
	}, {
		name:  "a Succeeded target whose ConfigMap the cache does not show yet is done, and its cleanup still runs",
		bench: measured(succeededStatus),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return objects(claimsOf(b, "t1", corev1.ClaimBound), jobsOf(b, "t1"))
		},
		outcome: outcome{done: true, calls: cleanup, events: []string{"Normal VolumesDeleted/Cleanup"}},
		state:   sbv1.TargetSucceeded,
		message: "measuring",
		check: func(t *testing.T, h *harness) {
			if h.p.targetResults["t1"] != nil {
				t.Errorf("nothing was decoded, so nothing is on the pass")
			}
		},
	}})
}

func TestApplyTargetResult(t *testing.T) {
	result := func(f func(tr *results.TargetResult)) *results.TargetResult {
		tr := mergedResult(newBenchmark(), "t1", measuredStart)
		tr.Environment = &sbv1.Environment{StorageClassName: "fast"}
		if f != nil {
			f(tr)
		}
		return tr
	}
	for _, tc := range []struct {
		name   string
		status func(*sbv1.TargetStatus)
		tr     *results.TargetResult
		// want checks the status entry.
		want func(t *testing.T, st *sbv1.TargetStatus)
	}{{
		name: "a result makes the target Succeeded with its cells, backend, skew, environment and ConfigMap",
		status: func(st *sbv1.TargetStatus) {
			st.State, st.Message = sbv1.TargetCollecting, "waiting for 1 client(s) to hand over results"
		},
		tr: result(func(tr *results.TargetResult) { tr.StartSkewMicroseconds = 42 }),
		want: func(t *testing.T, st *sbv1.TargetStatus) {
			if st.State != sbv1.TargetSucceeded || st.Message != "" || st.ResultsConfigMap != "bench-t1-results" || len(st.Cells) != 1 ||
				st.Backend != "io_uring" || *st.StartSkewMicroseconds != 42 || st.Environment.StorageClassName != "fast" {
				t.Errorf("status %+v", st)
			}
		},
	}, {
		name: "timings status already has are kept",
		status: func(st *sbv1.TargetStatus) {
			st.VolumesBoundMilliseconds, st.ClientsReadyMilliseconds = ptr.To[int64](10), ptr.To[int64](20)
		},
		tr: result(func(tr *results.TargetResult) {
			tr.Timings.VolumesBoundMilliseconds, tr.Timings.ClientsReadyMilliseconds = 1000, 2000
		}),
		want: func(t *testing.T, st *sbv1.TargetStatus) {
			if *st.VolumesBoundMilliseconds != 10 || *st.ClientsReadyMilliseconds != 20 {
				t.Errorf("timings %d, %d", *st.VolumesBoundMilliseconds, *st.ClientsReadyMilliseconds)
			}
		},
	}, {
		name: "timings a restart lost are filled in from the result, as copies",
		tr: result(func(tr *results.TargetResult) {
			tr.Timings.VolumesBoundMilliseconds, tr.Timings.ClientsReadyMilliseconds = 1000, 2000
		}),
		want: func(t *testing.T, st *sbv1.TargetStatus) {
			if st.VolumesBoundMilliseconds == nil || *st.VolumesBoundMilliseconds != 1000 || *st.ClientsReadyMilliseconds != 2000 {
				t.Errorf("timings %v, %v", st.VolumesBoundMilliseconds, st.ClientsReadyMilliseconds)
			}
		},
	}, {
		name: "zero timings in the result are not recorded",
		tr:   result(nil),
		want: func(t *testing.T, st *sbv1.TargetStatus) {
			if st.VolumesBoundMilliseconds != nil || st.ClientsReadyMilliseconds != nil {
				t.Errorf("timings %v, %v", st.VolumesBoundMilliseconds, st.ClientsReadyMilliseconds)
			}
		},
	}, {
		name: "a long backend list is cut to the status bound",
		tr: result(func(tr *results.TargetResult) {
			tr.Backends = []string{strings.Repeat("libaio (io_uring blocked by seccomp) ", 5), "psync"}
		}),
		want: func(t *testing.T, st *sbv1.TargetStatus) {
			if len(st.Backend) != 128 || !strings.HasSuffix(st.Backend, "...") {
				t.Errorf("backend %q (%d)", st.Backend, len(st.Backend))
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBenchmark()
			if tc.status != nil {
				tc.status(targetStatus(b, "t1"))
			}
			h := newHarness(t, b, nil)
			p := h.pass()
			applyTargetResult(p, h.target(p, "t1"), tc.tr)
			tc.want(t, targetStatus(b, "t1"))
			if p.targetResults["t1"] != tc.tr {
				t.Errorf("the result is not kept on the pass")
			}
			// Status must not alias the result: finishRun and the stored
			// copy read it after status is edited.
			if st := targetStatus(b, "t1"); st.VolumesBoundMilliseconds != nil && st.VolumesBoundMilliseconds == &tc.tr.Timings.VolumesBoundMilliseconds {
				t.Errorf("status points into the result")
			}
		})
	}
}
