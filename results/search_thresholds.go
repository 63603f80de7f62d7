package results

import (
	"fmt"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// MetricIOPSAtLatency names a search's capacity in violations.
const MetricIOPSAtLatency = "iopsAtLatency"

// evaluateSearchThreshold judges a minIOPSAtLatency threshold: every search
// it selects, on every target it applies to, must have found at least that
// capacity. A bound no load met is a capacity of 0; a missing search result
// leaves the threshold unevaluated.
func evaluateSearchThreshold(spec *sbv1.StorageBenchmarkSpec, th *sbv1.Threshold, name string, results map[string]*TargetResult, ev *Evaluation) {
	w := spec.Workload(th.Workload)
	if w == nil {
		ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s: workload %s does not exist", name, th.Workload))
		return
	}
	var selected []sbv1.Search
	for _, s := range w.Searches() {
		if th.Match == nil || th.Match.Matches(&s.Base) {
			selected = append(selected, s)
		}
	}
	if len(selected) == 0 {
		ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s selects no search of workload %s", name, th.Workload))
		return
	}
	for _, target := range thresholdTargets(spec, th) {
		for _, s := range selected {
			r := FindSearch(results[target], s.Name)
			if r == nil {
				ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s: no result for target %s, search %s", name, target, s.Name))
				continue
			}
			found := r.CapacityIOPS()
			if found >= float64(*th.MinIOPSAtLatency) {
				continue
			}
			ev.record(th, sbv1.Violation{
				Threshold: name, Target: target, Cell: s.Name, Metric: MetricIOPSAtLatency,
				Limit: fmt.Sprint(*th.MinIOPSAtLatency), Measured: Decimal(found, 1),
			})
		}
	}
}

// FindSearch is a target's result of the search of that name, or nil.
func FindSearch(tr *TargetResult, name string) *SearchResult {
	if tr == nil {
		return nil
	}
	for i := range tr.Searches {
		if tr.Searches[i].Search == name {
			return &tr.Searches[i]
		}
	}
	return nil
}

// CapacityIOPS is the IOPS the search found within its bound; 0 when no
// load met it.
func (r *SearchResult) CapacityIOPS() float64 {
	if r == nil || r.Capacity == nil {
		return 0
	}
	return r.Capacity.AchievedIOPS
}
