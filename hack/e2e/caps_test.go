//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// capTolerance is how close a capped class must measure to its cap.
const capTolerance = 0.05

// TestThreeClassesRankAsTheirCaps compares an uncapped class with two
// capped ones: the run completes, every cell ranks the classes as their
// caps do, each capped class measures within 5 % of its cap at 4 KiB random
// read and write, and the uncapped class beats both.
func TestThreeClassesRankAsTheirCaps(t *testing.T) {
	ns := benchNamespace(t, "caps")
	classes := []string{"fast", "capped-8000", "capped-1500"}
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "caps"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets:   []sbv1.Target{target("fast", "fast"), target("capped-8000", "capped-8000"), target("capped-1500", "capped-1500")},
			Baseline:  "capped-1500",
			Clients:   sbv1.Clients{Count: 1, Resources: clientResources()},
			Dataset:   sbv1.Dataset{SizePerClient: "64Mi"},
			Workloads: []sbv1.WorkloadGroup{randomCells(10)},
		},
	}
	create(t, b)
	got := waitCompleted(t, ns, "caps", 10*time.Minute)
	if c := condition(got, sbv1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("not Ready: %s", describeConditions(got))
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%-12s %8s %12s %12s %9s %9s\n", "class", "cap", "read IOPS", "write IOPS", "read err", "write err")
	measured := map[string][2]float64{}
	for _, class := range classes {
		// All reads, all writes: the cells' totals are one direction each.
		r := cellSummary(t, got, class, "rand-bs4k-r100-qd16-j1")
		w := cellSummary(t, got, class, "rand-bs4k-r0-qd16-j1")
		measured[class] = [2]float64{iops(t, r), iops(t, w)}
		limit := classCap(t, class)
		errs := [2]string{"-", "-"}
		if limit > 0 {
			for i, v := range measured[class] {
				rel := v/float64(limit) - 1
				errs[i] = fmt.Sprintf("%+.1f%%", rel*100)
				if math.Abs(rel) > capTolerance {
					t.Errorf("%s: %s IOPS %.0f is not within %.0f%% of the cap %d", class, []string{"read", "write"}[i], v, capTolerance*100, limit)
				}
			}
		}
		fmt.Fprintf(&table, "%-12s %8d %12.0f %12.0f %9s %9s\n", class, limit, measured[class][0], measured[class][1], errs[0], errs[1])
	}
	t.Logf("measured vs cap (4 KiB random, QD 16, 10 s, 1 client):\n%s", table.String())
	for _, capped := range classes[1:] {
		for i := range 2 {
			if measured["fast"][i] <= measured[capped][i] {
				t.Errorf("uncapped fast (%.0f) is not faster than %s (%.0f)", measured["fast"][i], capped, measured[capped][i])
			}
		}
	}
	for _, cell := range storedOutcome(t, got).Comparison.Cells {
		if strings.Join(cell.ByIOPS, ",") != strings.Join(classes, ",") {
			t.Errorf("cell %s ranks %v, the caps say %v", cell.Cell, cell.ByIOPS, classes)
		}
	}
	for _, ts := range got.Status.Targets {
		if ts.VolumesBoundMilliseconds == nil {
			t.Errorf("%s: no bind time", ts.Name)
			continue
		}
		t.Logf("target %s: claims bound in %d ms, clients ready in %d ms, backend %s", ts.Name, *ts.VolumesBoundMilliseconds, ptr.Deref(ts.ClientsReadyMilliseconds, 0), ts.Backend)
	}
}

// TestBlockVolumeTarget runs clients on a raw block device (volumeMode
// Block) of a capped class.
func TestBlockVolumeTarget(t *testing.T) {
	ns := benchNamespace(t, "block")
	raw := target("raw", "capped-1500")
	raw.VolumeMode = corev1.PersistentVolumeBlock
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "block"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets: []sbv1.Target{raw},
			Clients: sbv1.Clients{Count: 1, Resources: clientResources()},
			Dataset: sbv1.Dataset{SizePerClient: "128Mi"},
			Workloads: []sbv1.WorkloadGroup{{Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				QueueDepths: []int32{16}, DurationSeconds: 10, RampSeconds: ptr.To[int32](2)}},
		},
	}
	create(t, b)
	got := waitCompleted(t, ns, "block", 5*time.Minute)
	read := iops(t, cellSummary(t, got, "raw", "rand-bs4k-r100-qd16-j1"))
	limit := float64(classCap(t, "capped-1500"))
	t.Logf("block device of capped-1500: %.0f read IOPS (cap %.0f)", read, limit)
	if math.Abs(read/limit-1) > capTolerance {
		t.Errorf("block target measured %.0f IOPS, not within %.0f%% of the cap %.0f", read, capTolerance*100, limit)
	}
	if env := got.Status.Targets[0].Environment; env == nil || env.Driver != "local" {
		t.Errorf("environment fingerprint: %+v", env)
	}
}
