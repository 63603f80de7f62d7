package controllers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

func TestProgressOf(t *testing.T) {
	// Each target runs three 1-second cells, at 0 s, 3 s and 6 s after its
	// start (slots are SlotGap apart).
	three := withWorkloads(sbv1.WorkloadGroup{Name: "w", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 70, 0},
		QueueDepths: []int32{8}, NumJobs: []int32{1}, DurationSeconds: 1, RampSeconds: ptr.To[int32](0)})
	two := withTargets(classTarget("a", "fast"), classTarget("b", "slow"))
	state := func(name string, s sbv1.TargetState) benchOption {
		return withTarget(name, func(st *sbv1.TargetStatus) { st.State = s })
	}
	for _, tc := range []struct {
		name    string
		bench   *sbv1.StorageBenchmark
		start   map[string]plan.StartRecord
		round   int32 // the search round published for target a
		summary string
		current string
	}{{
		name:    "a run not started has every cell to do and no current target",
		bench:   newBenchmark(three, two),
		summary: "0/6",
	}, {
		name:    "a succeeded target counts all its cells",
		bench:   newBenchmark(three, two, state("a", sbv1.TargetSucceeded), state("b", sbv1.TargetProvisioning)),
		summary: "3/6", current: "b",
	}, {
		name:    "a running target counts the cells whose slot has ended",
		bench:   newBenchmark(three, two, state("a", sbv1.TargetRunning)),
		start:   map[string]plan.StartRecord{"a": startedAt(newBenchmark(), t0.Add(-4*time.Second))},
		summary: "2/6", current: "a",
	}, {
		name:    "a running target whose start lies ahead has done nothing",
		bench:   newBenchmark(three, two, state("a", sbv1.TargetRunning)),
		start:   map[string]plan.StartRecord{"a": startedAt(newBenchmark(), t0.Add(2*time.Second))},
		summary: "0/6", current: "a",
	}, {
		name:    "a start of another generation does not count",
		bench:   newBenchmark(three, two, withGeneration(2), state("a", sbv1.TargetCollecting)),
		start:   map[string]plan.StartRecord{"a": startedAt(newBenchmark(), t0.Add(-time.Hour))},
		summary: "0/6", current: "a",
	}, {
		name:    "parallel targets are all current",
		bench:   newBenchmark(three, two, state("a", sbv1.TargetPreparing), state("b", sbv1.TargetRunning)),
		summary: "0/6", current: "a,b",
	}, {
		name:    "a failed target counts nothing and is not current",
		bench:   newBenchmark(three, two, state("a", sbv1.TargetSucceeded), state("b", sbv1.TargetFailed)),
		summary: "3/6",
	}, {
		name: "a target without a status entry counts in the total only",
		bench: newBenchmark(three, two, withStatus(func(st *sbv1.StorageBenchmarkStatus) {
			st.Targets = st.Targets[:1]
			st.Targets[0].State = sbv1.TargetSucceeded
		})),
		summary: "3/6",
	}, {
		name: "a target searching says its round: steps are not known ahead",
		bench: newBenchmark(three, two, state("a", sbv1.TargetRunning), withSpec(func(s *sbv1.StorageBenchmarkSpec) {
			s.Workloads = append(s.Workloads, sbv1.WorkloadGroup{Name: "knee", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
				LatencyTarget: &sbv1.LatencyTarget{Microseconds: 2000}})
		})),
		start:   map[string]plan.StartRecord{"a": startedAt(newBenchmark(), t0.Add(-20*time.Second))},
		round:   3,
		summary: "3/6, search round 3", current: "a",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cm := startConfigMap(tc.bench, tc.start).(*corev1.ConfigMap)
			if tc.round > 0 {
				record := plan.RoundRecord{StartRecord: tc.start["a"], Round: tc.round, Slots: []plan.Slot{{Repetition: 1}}}
				cm.Data[plan.RoundKey("a")] = record.Encode()
			}
			s := &snapshot{configMaps: map[string]*corev1.ConfigMap{cm.Name: cm}}
			got := progressOf(tc.bench, s, t0, planOf(tc.bench))
			if got.Summary != tc.summary || got.CurrentTarget != tc.current {
				t.Errorf("progress %s, current %q; want %s, %q", got.Summary, got.CurrentTarget, tc.summary, tc.current)
			}
		})
	}
}
