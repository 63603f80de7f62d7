package controllers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTheCacheKeepsNoDataOfStoredResults(t *testing.T) {
	for component, keeps := range map[string]bool{
		componentResults: false, componentComparison: false,
		componentPlan: true, componentStart: true, componentSearch: true, "": true,
	} {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "b-" + component, Labels: map[string]string{labelBenchmark: "b", labelComponent: component}},
			Data:       map[string]string{"k": "v"},
			BinaryData: map[string][]byte{"b": {1}},
		}
		for range 2 { // the cache may pass an object it holds again
			out, err := dropStoredResultsData(cm)
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*corev1.ConfigMap)
			if kept := got.Data != nil || got.BinaryData != nil; kept != keeps {
				t.Errorf("component %q: data kept = %v, want %v", component, kept, keeps)
			}
			if got.Name != cm.Name || got.Labels[labelComponent] != component {
				t.Errorf("component %q: metadata changed: %v", component, got.ObjectMeta)
			}
		}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{labelComponent: componentResults}}}
	if out, err := dropStoredResultsData(pod); err != nil || out != pod {
		t.Errorf("a pod came out as %v, %v; want it as it was", out, err)
	}
}
