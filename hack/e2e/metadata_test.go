//go:build e2e

package e2e

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// TestMetadataOnASharedClaim runs create, stat, open and delete of small
// files with 2 clients on one ReadWriteMany claim, once in one directory
// for both and once in a directory each: every operation of every client is
// counted, the rates and latencies land in status, and the clients' figures
// add up to the cell's.
func TestMetadataOnASharedClaim(t *testing.T) {
	ns := benchNamespace(t, "metadata")
	tgt := target("shared", "fast")
	tgt.AccessMode = corev1.ReadWriteMany
	size := sbv1.ByteSize("2Ki")
	group := func(name string, shared bool) sbv1.WorkloadGroup {
		return sbv1.WorkloadGroup{Name: name, Kind: sbv1.WorkloadMetadata, DurationSeconds: 8, Metadata: &sbv1.MetadataWorkload{
			Operations:  []sbv1.MetadataOperation{sbv1.MetadataCreate, sbv1.MetadataStat, sbv1.MetadataOpen, sbv1.MetadataDelete},
			FilesPerJob: 1000, FileSize: &size, SharedDirectory: shared,
		}}
	}
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "md"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets:   []sbv1.Target{tgt},
			Clients:   sbv1.Clients{Count: 2, Resources: clientResources()},
			Dataset:   sbv1.Dataset{SizePerClient: "16Mi"},
			Workloads: []sbv1.WorkloadGroup{group("together", true), group("apart", false)},
		},
	}
	create(t, b)
	got := waitCompleted(t, ns, "md", 8*time.Minute)
	tr := targetResult(t, got, "shared")
	for _, c := range tr.Cells {
		rep := c.Result()
		summary := cellSummary(t, got, "shared", c.Cell.Name)
		p99, err := strconv.ParseFloat(summary.P99Microseconds, 64)
		if err != nil || p99 <= 0 {
			t.Errorf("cell %s: status p99 %q", c.Cell.Name, summary.P99Microseconds)
		}
		var perClient int64
		for _, cr := range rep.Clients {
			perClient += cr.Read.IOs
			t.Logf("%s client %d: %d operations, %.0f ops/s, p99 %.1f µs", c.Cell.Name, cr.Client, cr.Read.IOs, cr.Read.IOPS, float64(cr.Read.LatencyNs.P99)/1000)
		}
		t.Logf("%s: %s ops/s in status, p99 %s µs; %d operations", c.Cell.Name, summary.IOPS, summary.P99Microseconds, rep.Read.IOs)
		if rep.Read.IOs != 2000 || perClient != rep.Read.IOs {
			t.Errorf("cell %s: %d operations (clients: %d), want 2 x 1000", c.Cell.Name, rep.Read.IOs, perClient)
		}
		if iops(t, summary) <= 0 {
			t.Errorf("cell %s: no ops/s in status", c.Cell.Name)
		}
	}
	for _, w := range got.Status.Warnings {
		if w.Reason == "MetadataCutShort" {
			t.Errorf("an operation was cut short: %s", w.Message)
		}
	}
}
