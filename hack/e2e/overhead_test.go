//go:build e2e

package e2e

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// TestOperatorOverhead times a one-cell, 10-second benchmark from apply to
// Completed: what is left after the 10 s of measurement is the operator's
// overhead (binding, pod start, data layout, the start lead, collection).
func TestOperatorOverhead(t *testing.T) {
	ns := benchNamespace(t, "overhead")
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "overhead"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{target("fast", "fast")},
			Clients: sbv1.Clients{Count: 1, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "16Mi"},
			Workloads: []sbv1.WorkloadGroup{{Name: "one", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				QueueDepths: []int32{8}, DurationSeconds: 10, RampSeconds: 0}},
		},
	}
	began := time.Now()
	create(t, b)
	got := waitCompleted(t, ns, "overhead", 3*time.Minute)
	total := time.Since(began)
	ts := got.Status.Targets[0]
	t.Logf("apply to Completed: %s for a 10 s cell: operator overhead %s (claims bound after %d ms, clients ready after %d ms)",
		total.Round(100*time.Millisecond), (total - 10*time.Second).Round(100*time.Millisecond), *ts.VolumesBoundMilliseconds, *ts.ClientsReadyMilliseconds)
}
