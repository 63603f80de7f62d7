package v1alpha1

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateSearches checks what the CEL rules on a search group cannot see:
// names that collide, partners and thresholds that treat a search as a
// matrix (or a matrix as a search), and data too small for a search's
// blocks.
func (s *StorageBenchmarkSpec) validateSearches() field.ErrorList {
	var errs field.ErrorList
	workloads := field.NewPath("spec", "workloads")
	seen := map[string]int{}
	for i := range s.Workloads {
		w := &s.Workloads[i]
		for _, search := range w.Searches() {
			if j, dup := seen[search.Name]; dup {
				errs = append(errs, field.Duplicate(workloads.Index(i).Child("blockSizes"),
					fmt.Sprintf("%s (block sizes of equal value in workloads[%d] and [%d])", search.Name, j, i)))
				continue
			}
			seen[search.Name] = i
		}
		if partner := s.Workload(w.ConcurrentWith); partner != nil && partner.IsSearch() {
			errs = append(errs, field.Invalid(workloads.Index(i).Child("concurrentWith"), w.ConcurrentWith,
				fmt.Sprintf("workload %q has a latencyTarget: its steps run alone, nothing runs concurrently with them", w.ConcurrentWith)))
		}
	}
	for i := range s.Thresholds {
		t := &s.Thresholds[i]
		w := s.Workload(t.Workload)
		if w == nil {
			continue // admission names the unknown workload
		}
		path := field.NewPath("spec", "thresholds").Index(i)
		switch {
		case w.IsSearch() && t.MinIOPSAtLatency == nil:
			errs = append(errs, field.Invalid(path.Child("workload"), t.Workload,
				"is a capacity search (it has a latencyTarget): judge it with minIOPSAtLatency, its cells are chosen as it runs"))
		case !w.IsSearch() && t.MinIOPSAtLatency != nil:
			errs = append(errs, field.Invalid(path.Child("minIOPSAtLatency"), *t.MinIOPSAtLatency,
				fmt.Sprintf("judges a search, and workload %q has no latencyTarget", t.Workload)))
		case w.IsSearch() && t.Match != nil:
			errs = append(errs, t.Match.validateForSearches(path.Child("match"), w)...)
		}
	}
	return errs
}

// validateForSearches refuses a match that selects no search of the group:
// searches differ only in block size and read mix.
func (m *CellMatch) validateForSearches(path *field.Path, w *WorkloadGroup) field.ErrorList {
	if m.QueueDepth != nil || m.NumJobs != nil || m.Operation != nil {
		return field.ErrorList{field.Invalid(path, m.String(),
			fmt.Sprintf("workload %q is a search: select its searches by blockSize and readPercent only", w.Name))}
	}
	searches := w.Searches()
	var names []string
	for i := range searches {
		if m.Matches(&searches[i].Base) {
			return nil
		}
		names = append(names, searches[i].Name)
	}
	return field.ErrorList{field.Invalid(path, m.String(),
		fmt.Sprintf("selects no search of workload %q, whose searches are: %s", w.Name, strings.Join(names, ", ")))}
}
