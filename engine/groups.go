package engine

// runGroup is jobs that run concurrently: a job with Stonewall starts the
// next one, which starts when this one has finished, as in fio.
type runGroup struct {
	jobs []JobSpec
	// reportGroups are fio's group ids of the jobs (stonewall and
	// new_group each start a new one), numbered over the whole run.
	reportGroups []int
	// exitAll: when a job ends, the other jobs of its reporting group stop
	// (some job of the run has exitall).
	exitAll bool
	// logs are the run's open log files (write_bw_log ...).
	logs *logFiles
}

// reportGroup is job i's reporting group id; a group built without ids
// (by tests, or a caller of execute) is one reporting group, 0.
func (g runGroup) reportGroup(i int) int {
	if i < len(g.reportGroups) {
		return g.reportGroups[i]
	}
	return 0
}

// runGroups splits jobs into the groups that run one after another.
func runGroups(jobs []JobSpec) []runGroup {
	var groups []runGroup
	id := 0
	for i, j := range jobs {
		if i > 0 && (j.Stonewall || j.NewGroup) {
			id++
		}
		if i == 0 || j.Stonewall {
			groups = append(groups, runGroup{})
		}
		g := &groups[len(groups)-1]
		g.jobs = append(g.jobs, j)
		g.reportGroups = append(g.reportGroups, id)
	}
	return groups
}
