package cli

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestGateExitCodes(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := sbv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	done := func(name string, verdict sbv1.Verdict, reason string) *sbv1.StorageBenchmark {
		b := &sbv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Generation: 1}}
		b.Status.ObservedGeneration, b.Status.Verdict = 1, verdict
		b.Status.Conditions = []metav1.Condition{{Type: sbv1.ConditionCompleted, Status: metav1.ConditionTrue, ObservedGeneration: 1, Reason: reason}}
		return b
	}
	running := &sbv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Name: "running", Namespace: "ns", Generation: 1}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		done("passed", sbv1.VerdictPassed, "Succeeded"), done("failed", sbv1.VerdictFailed, "Succeeded"),
		done("broken", "", "ClientFailed"), running,
	).Build()
	for name, want := range map[string]int{"passed": 0, "failed": 1, "broken": 2, "running": 2, "missing": 3} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		cmd := &cobra.Command{}
		cmd.SetOut(&bytes.Buffer{})
		err := runGate(ctx, cmd, c, client.ObjectKey{Namespace: "ns", Name: name}, 20*time.Millisecond, 200*time.Millisecond)
		cancel()
		code := 0
		var exit *ExitError
		if errors.As(err, &exit) {
			code = exit.Code
		}
		if code != want {
			t.Errorf("%s: exit %d (%v), want %d", name, code, err, want)
		}
	}
}
