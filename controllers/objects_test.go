package controllers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestCreateOwnedTakesAnExistingChildOnlyWhenItIsTheBenchmarks(t *testing.T) {
	b := newBenchmark()
	mine := owned(b, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: "bench-comparison-g1"}})
	predecessor := b.DeepCopy()
	predecessor.UID = types.UID("uid-of-an-earlier-bench")
	theirs := owned(predecessor, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: "bench-t1-results"}})
	h := newHarness(t, b, []client.Object{mine, theirs})
	for _, tc := range []struct {
		name    string
		wantErr string
	}{
		{"bench-comparison-g1", ""},
		{"bench-t1-results", "exists but belongs to another object"},
	} {
		created, err := h.r.createOwned(context.Background(), b, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: tc.name}})
		switch {
		case created:
			t.Errorf("%s: created, though it exists", tc.name)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: the benchmark's own child is an error: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: a predecessor's child taken for the benchmark's own: %v", tc.name, err)
		}
	}
}
