//go:build e2e

package e2e

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// TestLinkedTargetsShareNodesAndAStart is seed 001's combined shape on two
// nodes: a reader on one class and a rate-capped writer joined to it on
// another (concurrentWith across targets, Parallel), two clients each,
// spread Required and colocateTargets. Client i of both targets runs on
// one node (the two clients on different nodes), both targets measure from
// one published start, and each measures only its own group's cell.
func TestLinkedTargetsShareNodesAndAStart(t *testing.T) {
	requireNodes(t, 2)
	ns := benchNamespace(t, "linked")
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "linked"},
		Spec: sbv1.StorageBenchmarkSpec{
			Targets:         []sbv1.Target{target("cached", "fast"), target("nocache", "capped-8000")},
			TargetExecution: sbv1.TargetsParallel,
			Clients:         sbv1.Clients{Count: 2, Spread: sbv1.SpreadRequired, ColocateTargets: true, Resources: clientResources()},
			Dataset:         sbv1.Dataset{SizePerClient: "32Mi"},
			Workloads: []sbv1.WorkloadGroup{
				{Name: "reader", Targets: []string{"cached"}, BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
					QueueDepths: []int32{4}, DurationSeconds: 4, RampSeconds: ptr.To[int32](0)},
				{Name: "writer", Targets: []string{"nocache"}, ConcurrentWith: "reader", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{0},
					QueueDepths: []int32{1}, RateIOPS: ptr.To[int32](300), DurationSeconds: 4, RampSeconds: ptr.To[int32](0)},
			},
		},
	}
	create(t, b)
	got := waitCompleted(t, ns, "linked", 5*time.Minute)
	if got.Status.Verdict == "" || len(got.Status.Targets) != 2 {
		t.Fatalf("status %s", describeConditions(got))
	}
	starts := map[string]time.Time{}
	for _, ts := range got.Status.Targets {
		if ts.MeasurementStartTime == nil {
			t.Fatalf("target %s has no measurement start", ts.Name)
		}
		starts[ts.Name] = ts.MeasurementStartTime.Time
	}
	if !starts["cached"].Equal(starts["nocache"]) {
		t.Errorf("measurement starts %v and %v: linked targets start at one instant", starts["cached"], starts["nocache"])
	}
	nodeOf := map[string]map[int32]string{}
	for _, name := range []string{"cached", "nocache"} {
		tr := targetResult(t, got, name)
		if len(tr.Cells) != 1 || tr.Cells[0].Cell.Workload != map[string]string{"cached": "reader", "nocache": "writer"}[name] {
			t.Errorf("target %s measured %d cells (%+v), want its own group's one", name, len(tr.Cells), tr.Cells)
		}
		nodeOf[name] = map[int32]string{}
		for _, c := range tr.ClientSummaries {
			nodeOf[name][c.Client] = c.Node
		}
	}
	t.Logf("clients' nodes: cached %v, nocache %v; start %s", nodeOf["cached"], nodeOf["nocache"], starts["cached"].Format(time.RFC3339Nano))
	for i := int32(0); i < 2; i++ {
		if nodeOf["cached"][i] == "" || nodeOf["cached"][i] != nodeOf["nocache"][i] {
			t.Errorf("client %d: cached on %q, nocache on %q; colocateTargets puts them on one node", i, nodeOf["cached"][i], nodeOf["nocache"][i])
		}
	}
	if nodeOf["cached"][0] == nodeOf["cached"][1] {
		t.Errorf("spread Required: both clients of cached on %s", nodeOf["cached"][0])
	}
}
