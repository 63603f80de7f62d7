//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// TestACapacitySearchFindsEachCap searches the most 4 KiB random-read IOPS
// each capped class carries with p99 within 20 ms, on the real pod path:
// the clients stay up through the rounds, the controller reads each
// round's reports from their logs and publishes the next. A capped class
// has a known knee: below its cap every IO is served at once, above it the
// queue grows for as long as the step runs (a 2 % excess over 4 s queues
// 80 ms of IO at 1500 IOPS), so the capacity found must be within 5 % of
// the cap.
func TestACapacitySearchFindsEachCap(t *testing.T) {
	ns := benchNamespace(t, "capacity")
	classes := []string{"capped-8000", "capped-1500"}
	const ramp, duration = 1, 4
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "capacity"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets:         []sbv1.Target{target("capped-8000", "capped-8000"), target("capped-1500", "capped-1500")},
			TargetExecution: sbv1.TargetsParallel,
			Clients:         sbv1.Clients{Count: 1, Resources: clientResources()},
			Dataset:         sbv1.Dataset{SizePerClient: "64Mi"},
			Workloads: []sbv1.WorkloadGroup{{
				// 256 in flight queue 32 ms at 8000 IOPS: the probe fails the
				// bound on both classes, and the search has a knee to find.
				Name: "knee", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100}, QueueDepths: []int32{256},
				DurationSeconds: duration, RampSeconds: ptr.To[int32](ramp),
				LatencyTarget: &sbv1.LatencyTarget{Percentile: sbv1.PercentileP99, Microseconds: 20_000},
			}},
			Thresholds: []sbv1.Threshold{{Workload: "knee", MinIOPSAtLatency: ptr.To[int64](1000)}},
		},
	}
	began := time.Now()
	create(t, b)
	got := waitCompleted(t, ns, "capacity", 10*time.Minute)
	took := time.Since(began)
	if c := condition(got, sbv1.ConditionReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("not Ready: %s", describeConditions(got))
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-12s %6s %10s %8s %6s %9s  %s\n", "class", "cap", "found", "error", "steps", "p99 us", "curve (offered -> carried, p99 ms)")
	var steps int
	for _, class := range classes {
		tr := targetResult(t, got, class)
		r := results.FindSearch(tr, "knee-bs4k-r100")
		if r == nil || r.Capacity == nil {
			t.Fatalf("%s: no capacity: %+v", class, r)
		}
		limit := float64(classCap(t, class))
		rel := r.Capacity.AchievedIOPS/limit - 1
		var curve []string
		for _, st := range r.Steps {
			curve = append(curve, fmt.Sprintf("%d->%.0f %.1f", st.OfferedIOPS, st.AchievedIOPS, float64(st.AtPercentileNs)/1e6))
		}
		steps += len(r.Steps)
		fmt.Fprintf(&table, "%-12s %6.0f %10.1f %+7.1f%% %6d %9.0f  %s\n", class, limit, r.Capacity.AchievedIOPS, rel*100, len(r.Steps),
			float64(r.Capacity.AtPercentileNs)/1000, strings.Join(curve, ", "))
		if math.Abs(rel) > capTolerance {
			t.Errorf("%s: capacity %.0f IOPS is not within %.0f%% of the cap %.0f (%s)", class, r.Capacity.AchievedIOPS, capTolerance*100, limit, r.Message)
		}
		var inStatus *sbv1.SearchSummary
		for _, ts := range got.Status.Targets {
			if ts.Name == class && len(ts.Searches) == 1 {
				inStatus = &ts.Searches[0]
			}
		}
		if inStatus == nil || inStatus.Outcome != string(r.Outcome) || inStatus.CapacityIOPS != results.Decimal(r.Capacity.AchievedIOPS, 1) {
			t.Errorf("%s: status search summary %+v, results %s %.1f", class, inStatus, r.Outcome, r.Capacity.AchievedIOPS)
		}
	}
	// The same question answered by a sweep of queue depths 1 to 256 (9
	// cells) would measure for 9 x (ramp + duration + the 2 s gap).
	sweep := time.Duration(9*(ramp+duration+2)) * time.Second
	t.Logf("capacity search, P99 <= 20 ms, 4 KiB random read, 1 client per class, classes in parallel:\n%s"+
		"the run took %s from create to Completed for %d steps in all (a sweep of 9 queue depths would measure %s per class)",
		table.String(), took.Round(time.Second), steps, sweep)
	if got.Status.Comparison == nil {
		t.Fatalf("no comparison")
	}
}
