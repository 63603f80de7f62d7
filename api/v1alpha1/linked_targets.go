package v1alpha1

// LinksTargets reports whether the benchmark joins targets in time: a
// group runs concurrentWith a group on other targets (with targetExecution
// Parallel), or clients are colocated across targets. Linked targets share
// one timetable and one start: slot k runs at the same instant on every
// target, each running the cells of its own groups.
func (s *StorageBenchmarkSpec) LinksTargets() bool {
	if s.TargetExecution != TargetsParallel || len(s.Targets) < 2 {
		return false
	}
	if s.Clients.ColocateTargets {
		return true
	}
	for i := range s.Workloads {
		w := &s.Workloads[i]
		partner := s.Workload(w.ConcurrentWith)
		if partner == nil {
			continue
		}
		for _, t := range s.Targets {
			if w.RunsOn(t.Name) != partner.RunsOn(t.Name) {
				return true
			}
		}
	}
	return false
}
