package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func ensureStorageClass(t *testing.T, name string) {
	t.Helper()
	sc := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: name},
		Provisioner:       "example.com/test",
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
	}
	if err := k8sClient.Create(context.Background(), sc); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
}

func simpleBenchmark(ns, name, class string) *sbv1.StorageBenchmark {
	return &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{{Name: "t1", StorageClassName: ptr.To(class), Size: ptr.To(mustQuantity("1Gi"))}},
			Workloads: []sbv1.WorkloadGroup{{
				Name: "w", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100}, DurationSeconds: 1,
			}},
		},
	}
}

// conditionsAt fails unless every condition carries the generation.
func conditionsAt(b *sbv1.StorageBenchmark, generation int64) error {
	if b.Status.ObservedGeneration != generation {
		return fmt.Errorf("status.observedGeneration %d, want %d", b.Status.ObservedGeneration, generation)
	}
	if len(b.Status.Conditions) == 0 {
		return fmt.Errorf("no conditions")
	}
	for _, c := range b.Status.Conditions {
		if c.ObservedGeneration != generation {
			return fmt.Errorf("condition %s has observedGeneration %d, want %d", c.Type, c.ObservedGeneration, generation)
		}
	}
	return nil
}

func TestConditionsCarryTheObservedGenerationAfterCreateAndSpecChange(t *testing.T) {
	ns := newNamespace(t)
	ensureStorageClass(t, "standard")
	ctx := context.Background()
	b := simpleBenchmark(ns, "gen", "standard")
	if err := k8sClient.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "conditions for generation 1", func() error {
		return conditionsAt(getBenchmark(t, ns, "gen"), 1)
	})

	got := getBenchmark(t, ns, "gen")
	patch := client.MergeFrom(got.DeepCopy())
	got.Spec.Workloads[0].DurationSeconds = 2
	if err := k8sClient.Patch(ctx, got, patch); err != nil {
		t.Fatal(err)
	}
	if got.Generation != 2 {
		t.Fatalf("a spec change should make generation 2, got %d", got.Generation)
	}
	eventually(t, 20*time.Second, "conditions for generation 2", func() error {
		return conditionsAt(getBenchmark(t, ns, "gen"), 2)
	})
}

func TestMissingStorageClassStallsTheRunNamingTheField(t *testing.T) {
	ns := newNamespace(t)
	ctx := context.Background()
	b := simpleBenchmark(ns, "noclass", "does-not-exist")
	if err := k8sClient.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "Stalled with InvalidSpec", func() error {
		got := getBenchmark(t, ns, "noclass")
		stalled := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionStalled)
		if stalled == nil || stalled.Status != metav1.ConditionTrue || stalled.Reason != sbv1.ReasonInvalidSpec {
			return fmt.Errorf("conditions: %+v", got.Status.Conditions)
		}
		if !strings.Contains(stalled.Message, `spec.targets[0].storageClassName: storage class "does-not-exist" not found`) {
			return fmt.Errorf("message does not name the field: %q", stalled.Message)
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, sbv1.ConditionCompleted) {
			return fmt.Errorf("an invalid spec ends the run: Completed should be True")
		}
		if meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionReconciling) != nil {
			return fmt.Errorf("Reconciling must be absent once stalled")
		}
		return conditionsAt(got, 1)
	})
}
