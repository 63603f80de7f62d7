package controllers

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestProgressOnly(t *testing.T) {
	base := newBenchmark(withTargets(classTarget("a", "fast"), classTarget("b", "slow")))
	base.Status.Progress = &sbv1.Progress{CellsDone: 1, CellsTotal: 4, CurrentTarget: "a", Summary: "1/4"}
	base.Status.Targets[0].State, base.Status.Targets[0].Message = sbv1.TargetProvisioning, "1 of 4 clients ready"
	start := metav1.NewTime(t0)
	base.Status.Targets[0].MeasurementStartTime = &start
	for _, row := range []struct {
		name   string
		change func(*sbv1.StorageBenchmarkStatus)
		want   bool
	}{
		{"a target's message", func(s *sbv1.StorageBenchmarkStatus) { s.Targets[0].Message = "2 of 4 clients ready" }, true},
		{"a target's first message", func(s *sbv1.StorageBenchmarkStatus) { s.Targets[1].Message = "0 of 4 claims bound" }, true},
		{"the cell runs done", func(s *sbv1.StorageBenchmarkStatus) { s.Progress.CellsDone, s.Progress.Summary = 2, "2/4" }, true},
		{"a message, with a time finer than the second it is stored to", func(s *sbv1.StorageBenchmarkStatus) {
			s.Targets[0].Message = "2 of 4 clients ready"
			finer := metav1.NewTime(t0.Add(300 * time.Millisecond))
			s.Targets[0].MeasurementStartTime = &finer
		}, true},
		{"nothing, as stored", func(s *sbv1.StorageBenchmarkStatus) {
			finer := metav1.NewTime(t0.Add(300 * time.Millisecond))
			s.Targets[0].MeasurementStartTime = &finer
		}, false},
		{"a target's state", func(s *sbv1.StorageBenchmarkStatus) { s.Targets[0].State = sbv1.TargetPreparing }, false},
		{"a message and a state", func(s *sbv1.StorageBenchmarkStatus) {
			s.Targets[0].Message, s.Targets[1].State = "2 of 4 clients ready", sbv1.TargetRunning
		}, false},
		{"the current target", func(s *sbv1.StorageBenchmarkStatus) { s.Progress.CurrentTarget = "b" }, false},
		{"a target added", func(s *sbv1.StorageBenchmarkStatus) { s.Targets = append(s.Targets, sbv1.TargetStatus{Name: "c"}) }, false},
		{"progress first set", func(s *sbv1.StorageBenchmarkStatus) { s.Progress = nil }, false},
	} {
		t.Run(row.name, func(t *testing.T) {
			after := base.DeepCopy()
			row.change(&after.Status)
			before := base.DeepCopy()
			if row.name == "progress first set" {
				before, after = after, before
			}
			change, err := diffStatus(before, after)
			if err != nil {
				t.Fatal(err)
			}
			if got := change.progressOnly(); got != row.want {
				t.Errorf("progressOnly = %v, want %v (changes %v)", got, row.want, change.ops)
			}
		})
	}
}

// statusWriter is a reconciler on a fake API server that counts status
// PATCHes, with a fake clock.
type statusWriter struct {
	r       *StorageBenchmarkReconciler
	clock   *clocktesting.FakeClock
	patches int
}

func newStatusWriter(t *testing.T, stored *sbv1.StorageBenchmark) *statusWriter {
	w := &statusWriter{clock: clocktesting.NewFakeClock(t0)}
	c := fake.NewClientBuilder().WithScheme(testScheme).WithObjects(stored).WithStatusSubresource(stored).WithInterceptorFuncs(interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			w.patches++
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	}).Build()
	w.r = &StorageBenchmarkReconciler{Client: c, APIReader: c, Scheme: testScheme, Clock: w.clock}
	return w
}

// write runs writeStatus for a pass that changes the stored status with
// change, and returns what it said.
func (w *statusWriter) write(t *testing.T, change func(*pass)) (wait time.Duration) {
	t.Helper()
	ctx := context.Background()
	b := &sbv1.StorageBenchmark{}
	if err := w.r.APIReader.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "bench"}, b); err != nil {
		t.Fatal(err)
	}
	before := b.DeepCopy()
	p := newPass(b, w.clock)
	change(p)
	wait, lost, err := w.r.writeStatus(ctx, client.ObjectKeyFromObject(b), before, p)
	if err != nil || lost {
		t.Fatalf("writeStatus: lost %v, %v", lost, err)
	}
	return wait
}

func clientsReady(n string) func(*pass) {
	return func(p *pass) { p.bench.Status.Targets[0].Message = n + " of 4 clients ready" }
}

func TestProgressAloneIsWrittenAtMostEveryInterval(t *testing.T) {
	stored := newBenchmark()
	stored.Status.Progress = &sbv1.Progress{CellsTotal: 1, Summary: "0/1"}
	w := newStatusWriter(t, stored)

	// A state change is written at once, and so is the first count.
	w.write(t, func(p *pass) { p.bench.Status.Targets[0].State = sbv1.TargetProvisioning })
	w.clock.Step(10 * time.Second)
	w.write(t, clientsReady("1"))
	if w.patches != 2 {
		t.Fatalf("%d status PATCHes, want 2 (a state change, then a first count long after)", w.patches)
	}

	// Counts that follow within the interval wait, and say for how long.
	w.clock.Step(500 * time.Millisecond)
	if wait := w.write(t, clientsReady("2")); wait != progressWriteInterval-500*time.Millisecond {
		t.Errorf("a count 0.5 s after the last write waits %v, want %v", wait, progressWriteInterval-500*time.Millisecond)
	}
	w.clock.Step(time.Second)
	w.write(t, clientsReady("3"))
	if w.patches != 2 {
		t.Fatalf("%d status PATCHes, want 2: counts within %v of a write wait", w.patches, progressWriteInterval)
	}
	// With events (a decision to announce) it does not wait.
	w.write(t, func(p *pass) { clientsReady("3")(p); p.normal("ClientsCreated", "Start", "x") })
	if w.patches != 3 {
		t.Fatalf("%d status PATCHes, want 3: a count with events is written at once", w.patches)
	}
	// Once the interval has passed, the count is written.
	w.clock.Step(progressWriteInterval)
	if wait := w.write(t, clientsReady("4")); wait != 0 || w.patches != 4 {
		t.Fatalf("after the interval: wait %v, %d PATCHes; want 0 and 4", wait, w.patches)
	}
	stored = &sbv1.StorageBenchmark{}
	if err := w.r.APIReader.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "bench"}, stored); err != nil {
		t.Fatal(err)
	}
	if got := stored.Status.Targets[0].Message; got != "4 of 4 clients ready" {
		t.Errorf("stored message %q", got)
	}
}

func TestAStatusThatStoresTheSameIsNotWritten(t *testing.T) {
	stored := newBenchmark()
	stored.Status.CompletionTime = &metav1.Time{Time: t0}
	w := newStatusWriter(t, stored)
	// Stored times have whole seconds: the same second with nanoseconds is
	// a different value in memory and the same JSON.
	w.write(t, func(p *pass) { p.bench.Status.CompletionTime = &metav1.Time{Time: t0.Add(300 * time.Millisecond)} })
	if w.patches != 0 {
		t.Errorf("%d status PATCHes for a status that stores the same JSON", w.patches)
	}
}
