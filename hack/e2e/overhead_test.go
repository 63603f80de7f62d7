//go:build e2e

package e2e

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// TestOperatorOverhead times a one-cell, 10-second benchmark (no ramp) from
// apply to Completed: what is left after the 10 s of measurement is the
// operator's overhead (binding, pod start, data layout, the start lead,
// collection), printed phase by phase.
func TestOperatorOverhead(t *testing.T) {
	ns := benchNamespace(t, "overhead")
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "overhead"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{target("fast", "fast")},
			Clients: sbv1.Clients{Count: 1, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "16Mi"},
			Workloads: []sbv1.WorkloadGroup{{Name: "one", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				QueueDepths: []int32{8}, DurationSeconds: 10, RampSeconds: ptr.To[int32](0)}},
		},
	}
	began := time.Now()
	create(t, b)
	got := waitCompleted(t, ns, "overhead", 3*time.Minute)
	total := time.Since(began)
	ts := timedTarget(t, got)
	overhead := total - 10*time.Second
	bound := time.Duration(*ts.VolumesBoundMilliseconds) * time.Millisecond
	ready := time.Duration(*ts.ClientsReadyMilliseconds) * time.Millisecond
	// From the status: the start lead is the measurement's start after the
	// clients were ready; what follows the measured 10 s is collection,
	// cleanup and the last status write. Status times have whole seconds
	// (provisioningStartTime): lead and after are good to about a second.
	lead := ts.MeasurementStartTime.Sub(ts.ProvisioningStartTime.Add(ready))
	after := total - ts.MeasurementStartTime.Sub(began) - 10*time.Second
	t.Logf("apply to Completed: %s for a 10 s cell: operator overhead %s = claims bound by the provisioner %s + clients ready %s later + start lead %s + after the measurement %s (rest: %s)",
		total.Round(100*time.Millisecond), overhead.Round(100*time.Millisecond), bound, ready-bound, lead.Round(100*time.Millisecond),
		after.Round(100*time.Millisecond), (overhead - ready - lead - after).Round(100*time.Millisecond))
	// A regression guard, not the goal (5 s per target, not met yet): the
	// operator's own share, beside the provisioner's, measured 7-8 s.
	if own := overhead - bound; own > 12*time.Second {
		t.Errorf("the operator's own overhead is %s (beside the provisioner's %s), over the 12 s guard", own.Round(100*time.Millisecond), bound)
	}
}
