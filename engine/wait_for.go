package engine

import (
	"fmt"
	"strings"
)

// fio's wait_for: a job that starts only once every clone of an earlier job
// (named, defined before it) has finished, within the same run group, where
// stonewall would wait for all the jobs before it. Its startdelay still
// counts from the group's start: it starts at whichever is later, as fio's
// job launcher checks both.

func init() {
	registerOption(option{name: "wait_for", help: "start this job only when every clone of the named earlier job has finished", apply: func(j *JobSpec, s string) error {
		j.WaitFor = strings.TrimSpace(s)
		return nil
	}})
}

// validateWaitFor checks that each wait_for names a job before the waiter,
// and only one such job, as fio requires.
func validateWaitFor(jobs []JobSpec) error {
	for i := range jobs {
		w := jobs[i].WaitFor
		if w == "" {
			continue
		}
		var found []int
		for k := range jobs {
			if jobs[k].Name == w {
				found = append(found, k)
			}
		}
		switch {
		case len(found) == 0:
			return fmt.Errorf("job %q: wait_for: no job is named %q", jobs[i].Name, w)
		case len(found) > 1:
			return fmt.Errorf("job %q: wait_for: %d jobs are named %q; the job waited for must have a name of its own", jobs[i].Name, len(found), w)
		case found[0] >= i:
			return fmt.Errorf("job %q: wait_for: job %q is not defined before it (the job waited for must come first)", jobs[i].Name, w)
		case jobs[i].SteadyDuration > 0:
			return fmt.Errorf("job %q: wait_for: not with steadystate (its samples are timed from the group's start)", jobs[i].Name)
		}
	}
	return nil
}
