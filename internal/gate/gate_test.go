package gate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func benchmark(generation, observed int64, verdict sbv1.Verdict, conditions ...metav1.Condition) *sbv1.StorageBenchmark {
	b := &sbv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns", Generation: generation}}
	b.Status.ObservedGeneration, b.Status.Verdict, b.Status.Conditions = observed, verdict, conditions
	return b
}

func cond(kind string, status metav1.ConditionStatus, generation int64, reason string) metav1.Condition {
	return metav1.Condition{Type: kind, Status: status, ObservedGeneration: generation, Reason: reason, Message: reason + " message"}
}

func TestOutcomeExitCodes(t *testing.T) {
	completed := cond(sbv1.ConditionCompleted, metav1.ConditionTrue, 1, "Succeeded")
	cases := map[string]struct {
		b    *sbv1.StorageBenchmark
		code int
		text string
	}{
		"passed": {benchmark(1, 1, sbv1.VerdictPassed, completed), Passed, "verdict Passed"},
		"failed thresholds": {func() *sbv1.StorageBenchmark {
			b := benchmark(1, 1, sbv1.VerdictFailed, completed, cond(sbv1.ConditionStalled, metav1.ConditionTrue, 1, "ThresholdsFailed"))
			b.Status.Violations = []sbv1.Violation{{Threshold: "p99", Severity: sbv1.SeverityFail, Target: "new", Cell: "c", Metric: "readLatencyP99Microseconds", Limit: "2000", Measured: "3100"}}
			return b
		}(), Failed, "Fail p99 on new, c: readLatencyP99Microseconds = 3100 (limit 2000)"},
		"inconclusive": {benchmark(1, 1, sbv1.VerdictInconclusive, completed), NotRun, "verdict Inconclusive"},
		"run failed": {benchmark(1, 1, "", cond(sbv1.ConditionCompleted, metav1.ConditionTrue, 1, "ClientFailed"),
			cond(sbv1.ConditionStalled, metav1.ConditionTrue, 1, "ClientFailed")), NotRun, "run failed (ClientFailed: ClientFailed message)"},
	}
	for name, tc := range cases {
		code, text := Outcome(tc.b)
		if code != tc.code || !strings.Contains(text, tc.text) {
			t.Errorf("%s: exit %d, %q; want %d and %q", name, code, text, tc.code, tc.text)
		}
	}
}

func TestCompletedIgnoresConditionsOfAnOlderGeneration(t *testing.T) {
	if Completed(benchmark(2, 1, sbv1.VerdictPassed, cond(sbv1.ConditionCompleted, metav1.ConditionTrue, 1, "Succeeded"))) {
		t.Fatalf("a spec change makes the old run's completion stale")
	}
	if Completed(benchmark(2, 2, "", cond(sbv1.ConditionCompleted, metav1.ConditionFalse, 2, "Running"))) {
		t.Fatalf("Completed=False is not completed")
	}
	if !Completed(benchmark(2, 2, sbv1.VerdictPassed, cond(sbv1.ConditionCompleted, metav1.ConditionTrue, 2, "Succeeded"))) {
		t.Fatalf("current and True is completed")
	}
}

func fakeClient(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := sbv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithStatusSubresource(objs...).Build()
}

func TestWaitReturnsOnceCompletedTimesOutOtherwise(t *testing.T) {
	key := client.ObjectKey{Namespace: "ns", Name: "b"}
	running := benchmark(1, 1, "", cond(sbv1.ConditionReconciling, metav1.ConditionTrue, 1, "Running"))
	c := fakeClient(t, running)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Wait(ctx, c, key, 20*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a running benchmark times out, got %v", err)
	}

	go func() {
		time.Sleep(100 * time.Millisecond)
		b := &sbv1.StorageBenchmark{}
		_ = c.Get(context.Background(), key, b)
		b.Status.Verdict = sbv1.VerdictPassed
		b.Status.Conditions = []metav1.Condition{cond(sbv1.ConditionCompleted, metav1.ConditionTrue, 1, "Succeeded")}
		_ = c.Status().Update(context.Background(), b)
	}()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	b, err := Wait(ctx2, c, key, 20*time.Millisecond)
	if err != nil || b.Status.Verdict != sbv1.VerdictPassed {
		t.Fatalf("got %v, %v", b, err)
	}

	if _, err := Wait(ctx2, c, client.ObjectKey{Namespace: "ns", Name: "missing"}, 20*time.Millisecond); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a missing benchmark is ErrNotFound, got %v", err)
	}
}
