//go:build e2e

package e2e

import (
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// TestSeveralClientsShareTheDeviceCap runs 3 clients on their own claims
// (ReadWriteOnce) and 2 clients on one shared claim (ReadWriteMany) of a
// capped class. The cap is per device, so the merged IOPS of all clients
// stays within 5 % of it; every client's numbers are there, and the
// clients started within 100 ms of each other.
func TestSeveralClientsShareTheDeviceCap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		clients int32
		access  corev1.PersistentVolumeAccessMode
	}{{"rwo", 3, corev1.ReadWriteOnce}, {"rwx", 2, corev1.ReadWriteMany}} {
		t.Run(tc.name, func(t *testing.T) {
			ns := benchNamespace(t, "clients-"+tc.name)
			tgt := target("shared", "capped-1500")
			tgt.AccessMode = tc.access
			b := &sbv1.StorageBenchmark{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tc.name},
				Spec: sbv1.StorageBenchmarkSpec{
					Targets: []sbv1.Target{tgt},
					Clients: sbv1.Clients{Count: tc.clients, Resources: clientResources()},
					Dataset: sbv1.Dataset{SizePerClient: "48Mi"},
					Workloads: []sbv1.WorkloadGroup{{Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
						QueueDepths: []int32{8}, DurationSeconds: 10, RampSeconds: ptr.To[int32](2)}},
				},
			}
			create(t, b)
			got := waitCompleted(t, ns, tc.name, 6*time.Minute)
			limit := float64(classCap(t, "capped-1500"))
			total := iops(t, cellSummary(t, got, "shared", "rand-bs4k-r100-qd8-j1"))
			tr := targetResult(t, got, "shared")
			rep := tr.Cells[0].Result()
			var sum float64
			for _, c := range rep.Clients {
				sum += c.Read.IOPS
				t.Logf("client %d: %.0f IOPS, started %d µs after the first", c.Client, c.Read.IOPS, c.StartOffsetMicroseconds)
			}
			t.Logf("%d clients (%s): %.0f IOPS together, cap %.0f; start skew %d µs", tc.clients, tc.access, total, limit, tr.StartSkewMicroseconds)
			if len(rep.Clients) != int(tc.clients) {
				t.Fatalf("%d per-client results, want %d", len(rep.Clients), tc.clients)
			}
			if math.Abs(total/limit-1) > capTolerance {
				t.Errorf("aggregate %.0f IOPS is not within %.0f%% of the device cap %.0f", total, capTolerance*100, limit)
			}
			if math.Abs(sum-total) > 1 {
				t.Errorf("the merged IOPS %.1f is not the sum of the clients' %.1f", total, sum)
			}
			skew := got.Status.Targets[0].StartSkewMicroseconds
			if skew == nil || *skew >= results.MaxStartSkewMicroseconds {
				t.Errorf("start skew %v µs, want below 100 ms", skew)
			}
		})
	}
}
