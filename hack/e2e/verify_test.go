//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// TestVerifyCatchesCorruptionInjectedIntoTheVolume runs one client with
// dataset.verify on a provisioned volume, and once it measures, rots three
// bytes in every 16 KiB of its data set in the volume's folder on the host,
// behind the benchmark's back (its reads are O_DIRECT: the kernel writes
// the rotten pages back before it reads them). The client's checked reads
// must find it: the run fails naming the pod, the client, the file, the
// offset and the expected and found checksums, instead of reporting IOPS.
func TestVerifyCatchesCorruptionInjectedIntoTheVolume(t *testing.T) {
	ns := benchNamespace(t, "verify")
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "verify"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{target("fast", "fast")},
			Clients: sbv1.Clients{Count: 1, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "32Mi", Verify: sbv1.VerifyCRC32C},
			Workloads: []sbv1.WorkloadGroup{{Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				QueueDepths: []int32{4}, DurationSeconds: 60, RampSeconds: ptr.To[int32](1)}},
		},
	}
	create(t, b)
	pvs := boundVolumes(t, ns, 1)
	waitMeasuring(t, ns, "verify")
	file := filepath.Join(pvs[0].Spec.HostPath.Path, "client-0", "file-0")
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("the data set in the volume's folder: %v", err)
	}
	// Not the first and last blocks: a verified data set is told from
	// another by them (and would be laid out again).
	for off := int64(16 << 10); off < 32<<20-16<<10; off += 16 << 10 {
		if _, err := f.WriteAt([]byte("rot"), off+1000); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("rotted 3 bytes in each 16 KiB of %s", file)
	waitFor(t, 2*time.Minute, "Stalled naming the corrupted block", func() error {
		got := get(t, ns, "verify")
		c := condition(got, sbv1.ConditionStalled)
		if c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("%s", describeConditions(got))
		}
		for _, want := range []string{"client 0", "client-0/file-0", "verify (crc32c) failed", "at offset", "the data does not match its checksum", "expected crc32c ", "found crc32c "} {
			if !strings.Contains(c.Message, want) {
				return fmt.Errorf("Stalled %s: %q does not say %q", c.Reason, c.Message, want)
			}
		}
		if c.Reason != sbv1.ReasonClientFailed {
			return fmt.Errorf("Stalled %s, want %s: %s", c.Reason, sbv1.ReasonClientFailed, c.Message)
		}
		t.Logf("Stalled %s: %s", c.Reason, c.Message)
		return nil
	})
}
