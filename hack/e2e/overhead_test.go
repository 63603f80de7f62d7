//go:build e2e

package e2e

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/testenv"
)

// TestOperatorOverhead times a one-cell, 10-second benchmark (no ramp) from
// apply to Completed: what is left after the 10 s of measurement is the
// operator's overhead (binding, pod start, data layout, the start lead,
// collection), printed phase by phase from the target's status. The goal
// is under 5 s beside the provisioner's own time.
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
	// Polled every 100 ms (not waitCompleted's second), so that the total
	// is good to a tenth of a second.
	var got *sbv1.StorageBenchmark
	testenv.Eventually(t, 3*time.Minute, 100*time.Millisecond, "overhead Completed", func() error {
		got = get(t, ns, "overhead")
		if c := condition(got, sbv1.ConditionCompleted); c != nil && c.Status == metav1.ConditionTrue {
			return nil
		}
		return fmt.Errorf("not Completed yet")
	})
	total := time.Since(began)
	if got.Status.Verdict == "" {
		t.Fatalf("completed without results: %s", describeConditions(got))
	}
	ts := timedTarget(t, got)
	ms := func(p *int64) time.Duration {
		if p == nil {
			t.Fatalf("target %s has no phase duration in status: %+v", ts.Name, ts)
		}
		return time.Duration(*p) * time.Millisecond
	}
	overhead := total - 10*time.Second
	bound, ready := ms(ts.VolumesBoundMilliseconds), ms(ts.ClientsReadyMilliseconds)
	layout, lead, collection := ms(ts.DataLayoutMilliseconds), ms(ts.StartLeadMilliseconds), ms(ts.CollectionMilliseconds)
	// What the status does not time: from apply to the provisioning start,
	// and from the merge to Completed (storing, cleanup, the last status
	// write, this test's poll).
	rest := overhead - ready - lead - collection
	t.Logf("apply to Completed: %s for a 10 s cell: operator overhead %s = claims bound by the provisioner %s + clients ready %s later (data layout %s of it) + start lead %s + collection %s + the rest %s",
		total.Round(100*time.Millisecond), overhead.Round(100*time.Millisecond), bound, ready-bound, layout, lead, collection, rest.Round(100*time.Millisecond))
	// The goal is under 5 s; it measured 3.5-4.6 s here. The guard leaves a
	// second for a loaded machine (a flaky test would hide regressions
	// behind reruns), and the log line says where a regression went.
	own := overhead - bound
	t.Logf("the operator's own overhead: %s beside the provisioner's %s (goal: under 5 s)", own.Round(100*time.Millisecond), bound)
	if own > 6*time.Second {
		t.Errorf("the operator's own overhead is %s (beside the provisioner's %s), over the 6 s guard", own.Round(100*time.Millisecond), bound)
	}
}
