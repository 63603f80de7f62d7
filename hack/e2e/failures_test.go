//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// managerSelector finds the operator's pod as the Helm chart labels it.
var managerSelector = envOr("STORAGEBENCH_E2E_MANAGER_SELECTOR", "app.kubernetes.io/name=storagebench,app.kubernetes.io/component=manager")

func longRun(ns, name string, clients int32, cleanup sbv1.CleanupPolicy) *sbv1.StorageBenchmark {
	return &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{target("fast", "fast")},
			Clients: sbv1.Clients{Count: clients, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "32Mi"},
			Workloads: []sbv1.WorkloadGroup{{Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 50},
				QueueDepths: []int32{4}, DurationSeconds: 15, RampSeconds: ptr.To[int32](1)}},
			Cleanup: sbv1.Cleanup{ClientPods: cleanup, Volumes: cleanup},
		},
	}
}

// waitMeasuring waits until the clients measure.
func waitMeasuring(t *testing.T, ns, name string) {
	t.Helper()
	waitFor(t, 4*time.Minute, name+" measuring", func() error {
		b := get(t, ns, name)
		if len(b.Status.Targets) == 0 || b.Status.Targets[0].State != sbv1.TargetRunning {
			return fmt.Errorf("%s", describeConditions(b))
		}
		return nil
	})
}

func clientPods(t *testing.T, ns string) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/component": "client"}); err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

func TestKilledClientStallsTheRunNamingIt(t *testing.T) {
	ns := benchNamespace(t, "killed")
	create(t, longRun(ns, "killed", 2, sbv1.CleanupDelete))
	waitMeasuring(t, ns, "killed")
	victim := clientPods(t, ns)[0]
	if err := k8s.Delete(context.Background(), &victim, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Minute, "Stalled naming "+victim.Name, func() error {
		b := get(t, ns, "killed")
		c := condition(b, sbv1.ConditionStalled)
		if c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("%s", describeConditions(b))
		}
		if c.Reason != sbv1.ReasonClientFailed || !strings.Contains(c.Message, victim.Name) {
			return fmt.Errorf("Stalled %s: %q does not name %s", c.Reason, c.Message, victim.Name)
		}
		t.Logf("Stalled %s: %s", c.Reason, c.Message)
		return nil
	})
}

func TestManagerRestartMidRunCompletesOnceAndDeletionCleansUp(t *testing.T) {
	ns := benchNamespace(t, "restart")
	create(t, longRun(ns, "restart", 2, sbv1.CleanupKeep))
	waitMeasuring(t, ns, "restart")
	jobsBefore := jobUIDs(t, ns)

	selector, err := labels.Parse(managerSelector)
	if err != nil {
		t.Fatal(err)
	}
	var managers corev1.PodList
	if err := k8s.List(context.Background(), &managers, client.InNamespace(managerNamespace), client.MatchingLabelsSelector{Selector: selector}); err != nil || len(managers.Items) == 0 {
		t.Fatalf("no manager pod (%s in %s): %v", managerSelector, managerNamespace, err)
	}
	for i := range managers.Items {
		if err := k8s.Delete(context.Background(), &managers.Items[i]); err != nil {
			t.Fatal(err)
		}
		t.Logf("deleted manager pod %s mid-run", managers.Items[i].Name)
	}

	got := waitCompleted(t, ns, "restart", 6*time.Minute)
	if c := condition(got, sbv1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("not Ready after the restart: %s", describeConditions(got))
	}
	if after := jobUIDs(t, ns); strings.Join(after, ",") != strings.Join(jobsBefore, ",") {
		t.Fatalf("client jobs changed across the restart: %v, then %v", jobsBefore, after)
	}
	var cms corev1.ConfigMapList
	if err := k8s.List(context.Background(), &cms, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/component": "results"}); err != nil {
		t.Fatal(err)
	}
	if len(cms.Items) != 1 {
		t.Fatalf("%d results configmaps, want 1", len(cms.Items))
	}

	// Deleting the benchmark removes what it created (owner references).
	if err := k8s.Delete(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Minute, "claims and jobs garbage-collected", func() error {
		var claims corev1.PersistentVolumeClaimList
		var jobs batchv1.JobList
		if err := k8s.List(context.Background(), &claims, client.InNamespace(ns)); err != nil {
			return err
		}
		if err := k8s.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
			return err
		}
		if len(claims.Items)+len(jobs.Items) > 0 {
			return fmt.Errorf("%d claims and %d jobs left", len(claims.Items), len(jobs.Items))
		}
		return nil
	})
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "restart"}, &sbv1.StorageBenchmark{}); !apierrors.IsNotFound(err) {
		t.Fatalf("benchmark still there: %v", err)
	}
}

func jobUIDs(t *testing.T, ns string) []string {
	t.Helper()
	var jobs batchv1.JobList
	if err := k8s.List(context.Background(), &jobs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, j := range jobs.Items {
		out = append(out, j.Name+"="+string(j.UID))
	}
	return out
}
