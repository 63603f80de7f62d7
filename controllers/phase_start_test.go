package controllers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

func TestStartRecord(t *testing.T) {
	b := newBenchmark(withGeneration(3))
	record := startedAt(b, t0)
	for _, tc := range []struct {
		name string
		cms  map[string]*corev1.ConfigMap
		want bool
	}{
		{name: "no start ConfigMap yet: not published", want: false},
		{name: "a start ConfigMap without the target's key: not published", cms: startCM(b, map[string]string{"other": record.Encode()})},
		{name: "a value that does not decode is not a start", cms: startCM(b, map[string]string{"t1": `{"generation":3`})},
		{name: "a record without publishedAt is not a start", cms: startCM(b, map[string]string{"t1": `{"generation":3,"start":"2026-01-02T10:00:00Z"}`})},
		{name: "a record of another generation is not this run's start", cms: startCM(b, map[string]string{"t1": startedAt(newBenchmark(withGeneration(2)), t0).Encode()})},
		{name: "a record of this generation is the start", cms: startCM(b, map[string]string{"t1": record.Encode()}), want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &snapshot{configMaps: tc.cms}
			got, ok := startRecord(b, s, target(b, "t1"))
			if ok != tc.want {
				t.Fatalf("published %v, want %v", ok, tc.want)
			}
			if ok && (!got.Start.Equal(record.Start) || !got.PublishedAt.Equal(record.PublishedAt) || got.Generation != 3) {
				t.Errorf("record %+v, want %+v", got, record)
			}
		})
	}
}

func startCM(b *sbv1.StorageBenchmark, data map[string]string) map[string]*corev1.ConfigMap {
	cm := startConfigMap(b, nil).(*corev1.ConfigMap)
	cm.Data = data
	return map[string]*corev1.ConfigMap{cm.Name: cm}
}

func TestPublishStart(t *testing.T) {
	ready := func(opts ...benchOption) *sbv1.StorageBenchmark {
		return newBenchmark(append([]benchOption{withClients(2), withTarget("t1", bound(-30*time.Second, 1000))}, opts...)...)
	}
	// world is what ensureRunObjects made, with start as the start
	// ConfigMap (an empty one if nil).
	world := func(start client.Object) func(b *sbv1.StorageBenchmark) []client.Object {
		return func(b *sbv1.StorageBenchmark) []client.Object {
			objs := runObjects(b)
			if start != nil {
				objs[len(objs)-1] = start
			}
			return objs
		}
	}
	published := func(t *testing.T, h *harness) plan.StartRecord {
		t.Helper()
		cm := &corev1.ConfigMap{}
		if err := h.r.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "bench-start"}, cm); err != nil {
			t.Fatal(err)
		}
		r, err := plan.DecodeStartRecord(cm.Data["t1"])
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	measuring := outcome{
		wait:   testLead + time.Second,
		calls:  []string{"update ConfigMap/bench-start"},
		events: []string{"Normal MeasurementScheduled/Start"},
	}
	other := startedAt(newBenchmark(), t0.Add(-time.Hour))
	runPhase(t, (*StorageBenchmarkReconciler).publishStart, []phaseRow{{
		name:  "the start is published a lead ahead under the target's key, other targets' records kept",
		bench: ready(),
		objs: func(b *sbv1.StorageBenchmark) []client.Object {
			return world(startConfigMap(b, map[string]plan.StartRecord{"t0": other}))(b)
		},
		outcome: measuring,
		state:   sbv1.TargetRunning, message: "measuring",
		check: func(t *testing.T, h *harness) {
			r := published(t, h)
			if r.Generation != 1 || !r.Start.Equal(t0.Add(testLead)) || !r.PublishedAt.Equal(t0) {
				t.Errorf("record %+v", r)
			}
			if st := targetStatus(h.b, "t1"); st.StartLeadMilliseconds == nil || *st.StartLeadMilliseconds != testLead.Milliseconds() {
				t.Errorf("start lead in status: %v", st.StartLeadMilliseconds)
			}
			cm := &corev1.ConfigMap{}
			_ = h.r.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "bench-start"}, cm)
			if cm.Data["t0"] != other.Encode() {
				t.Errorf("the other target's record was lost: %v", cm.Data)
			}
			if msg := h.p.events[0].message; msg != "target t1: all 2 clients ready after 30000 ms; measurement starts at 10:00:01.200 and takes 1s" {
				t.Errorf("event message %q", msg)
			}
		},
	}, {
		name:    "a long timetable looks again at the progress interval after the start",
		bench:   ready(withWorkloads(sbv1.WorkloadGroup{Name: "w", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100}, QueueDepths: []int32{8}, NumJobs: []int32{1}, DurationSeconds: 600})),
		objs:    world(nil),
		outcome: outcome{wait: testLead + progressInterval, calls: measuring.calls, events: measuring.events},
		state:   sbv1.TargetRunning, message: "measuring",
	}, {
		name:    "a target status without a provisioning start publishes without a readiness time instead of panicking",
		bench:   newBenchmark(withClients(2)),
		objs:    world(nil),
		outcome: measuring,
		state:   sbv1.TargetRunning, message: "measuring",
		check: func(t *testing.T, h *harness) {
			if st := targetStatus(h.b, "t1"); st.ClientsReadyMilliseconds != nil || st.MeasurementStartTime == nil {
				t.Errorf("clientsReadyMilliseconds %v, measurementStartTime %v", st.ClientsReadyMilliseconds, st.MeasurementStartTime)
			}
			if msg := h.p.events[0].message; msg != "target t1: all 2 clients ready; measurement starts at 10:00:01.200 and takes 1s" {
				t.Errorf("event message %q", msg)
			}
		},
	}, {
		name:    "the start ConfigMap not in the cache yet: look again shortly, nothing written",
		bench:   ready(),
		objs:    func(b *sbv1.StorageBenchmark) []client.Object { return runObjects(b)[:4] },
		outcome: outcome{wait: shortRequeue},
		state:   sbv1.TargetProvisioning,
	}, {
		name:    "an update that loses to a Conflict waits for the start already published, changing no status",
		bench:   ready(),
		objs:    world(nil),
		faults:  []fault{failing("update", "ConfigMap", "bench-start", conflict("ConfigMap", "bench-start"))},
		outcome: outcome{wait: shortRequeue, calls: measuring.calls},
		state:   sbv1.TargetProvisioning,
	}, {
		name:   "an update that fails otherwise is returned wrapped, changing no status",
		bench:  ready(),
		objs:   world(nil),
		faults: []fault{failing("update", "ConfigMap", "bench-start", errInternal)},
		outcome: outcome{err: "publishing the start of target t1", errIs: apierrors.IsInternalError,
			calls: measuring.calls},
		state: sbv1.TargetProvisioning,
	}, {
		name:   "a start ConfigMap deleted meanwhile is returned (NotFound), for the retry to create it again",
		bench:  ready(),
		objs:   world(nil),
		faults: []fault{failing("update", "ConfigMap", "bench-start", notFound("ConfigMap", "bench-start"))},
		outcome: outcome{err: "publishing the start of target t1", errIs: apierrors.IsNotFound,
			calls: measuring.calls},
		state: sbv1.TargetProvisioning,
	}})
}

func TestPublishStartReadsTheClockAfreshAndLosesToANewerWrite(t *testing.T) {
	b := newBenchmark(withTarget("t1", bound(-30*time.Second, 1000)))
	h := newHarness(t, b, runObjects(b))
	s := h.snapshot()
	p := h.pass()
	// The pass began at t0 and spent a while on another target.
	h.clock.Step(2 * time.Second)
	if _, err := h.r.publishStart(context.Background(), p, s, h.target(p, "t1")); err != nil {
		t.Fatal(err)
	}
	if st := targetStatus(b, "t1"); !st.MeasurementStartTime.Time.Equal(t0.Add(2*time.Second+testLead)) || *st.ClientsReadyMilliseconds != 32000 {
		t.Errorf("start %v, clients ready after %d ms: the start must lie a lead after the fresh reading", st.MeasurementStartTime, *st.ClientsReadyMilliseconds)
	}

	// A second controller publishing from a stale snapshot gets a Conflict
	// from the optimistic lock and keeps the first start.
	b2 := newBenchmark(withTarget("t1", bound(-30*time.Second, 1000)))
	h2 := newHarness(t, b2, runObjects(b2))
	stale := h2.snapshot()
	fresh := stale.configMaps["bench-start"].DeepCopy()
	fresh.Data = map[string]string{"t1": startedAt(b2, t0).Encode()}
	if err := h2.r.Update(context.Background(), fresh); err != nil {
		t.Fatal(err)
	}
	p2 := h2.pass()
	step, err := h2.r.publishStart(context.Background(), p2, stale, h2.target(p2, "t1"))
	if err != nil || step.wait != shortRequeue || targetStatus(b2, "t1").MeasurementStartTime != nil {
		t.Errorf("step %+v, err %v, status %+v: a lost update waits and records no start", step, err, targetStatus(b2, "t1"))
	}
}
