package plan

import (
	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Searches are the capacity searches that run on a target, in spec order.
func Searches(spec *sbv1.StorageBenchmarkSpec, target string) []sbv1.Search {
	var out []sbv1.Search
	for i := range spec.Workloads {
		if spec.Workloads[i].RunsOn(target) {
			out = append(out, spec.Workloads[i].Searches()...)
		}
	}
	return out
}

// Round is the plan of one round of search steps: the target's plan with
// the steps as its slots, one after another, SlotGap apart. The data set
// is laid out once per run, so only the run's first round may rewrite it
// (fill Always); later rounds find it in place.
func (p *Plan) Round(steps []sbv1.Cell, first bool) *Plan {
	r := *p
	r.Slots, r.Searches = nil, nil // the round's clients run its slots and end
	var offset int64
	for _, c := range steps {
		s := Slot{OffsetMilliseconds: offset, Repetition: 1, Cells: []sbv1.Cell{c}}
		r.Slots = append(r.Slots, s)
		offset += (s.Length() + SlotGap).Milliseconds()
	}
	if !first && r.Data.Fill == string(sbv1.FillAlways) {
		r.Data.Fill = string(sbv1.FillIfMissing)
	}
	return &r
}

// largestBlockBytes is the biggest IO any cell or search step of the
// target may issue: every round lays the same files out, so their size
// cannot depend on which cells a round happens to run.
func largestBlockBytes(spec *sbv1.StorageBenchmarkSpec, target string, slots []Slot) int64 {
	largest := int64(0)
	for _, s := range slots {
		for _, c := range s.Cells {
			largest = max(largest, c.MaxBlockSizeBytes())
		}
	}
	for _, s := range Searches(spec, target) {
		largest = max(largest, s.Base.MaxBlockSizeBytes())
	}
	return largest
}
