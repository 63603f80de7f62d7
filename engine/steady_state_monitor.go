//go:build linux

package engine

import (
	"fmt"
	"sync/atomic"
	"time"
)

// ioProgress is a worker's completed reads and writes, ramp included, as
// fio's io_blocks and io_bytes: the steady-state monitor reads it while the
// worker runs. Only workers judged for steady state have one; the worker
// adds to it once per batch of completions.
type ioProgress struct {
	ios, bytes atomic.Int64
}

// steadyUnit is what one steady-state window judges and stops: a clone's
// lanes, or with group_reporting every worker of a reporting group.
type steadyUnit struct {
	window  *steadyWindow
	workers []*worker
	start   int64 // nanotime the unit's IO starts (its startdelay)
	ramp    int64 // ss_ramp
	// stop is set once the window is steady; the unit's workers then end.
	stop atomic.Bool

	sampling           bool
	prevAt             int64
	prevIOs, prevBytes int64
}

// checkSteadyGroups refuses a reporting group whose jobs do not share one
// steady-state setting, as fio does (td_steadystate_init checks the group
// with or without group_reporting; with it the group is judged as one).
func checkSteadyGroups(groups []runGroup) error {
	for _, g := range groups {
		first := map[int]*JobSpec{}
		for i := range g.jobs {
			j, id := &g.jobs[i], g.reportGroup(i)
			f, seen := first[id]
			if !seen {
				first[id] = j
				continue
			}
			if f.SteadyDuration != j.SteadyDuration || f.SteadyRamp != j.SteadyRamp || (f.SteadyDuration > 0 && f.SteadyState != j.SteadyState) {
				return fmt.Errorf("%w: job %q: steadystate: the jobs of a reporting group must share one steadystate, ss_dur and ss_ramp (fio's rule), and these differ from job %q's; give them the same, or put the job in a group of its own with new_group or stonewall", ErrUsage, j.Name, f.Name)
			}
		}
	}
	return nil
}

// newSteadyUnits builds the units of a run group's workers and wires the
// workers to them: one per clone, or with group_reporting one per reporting
// group. It returns nil when no job has a steady-state window.
func newSteadyUnits(runs []*jobRun, g runGroup, grouped bool) []*steadyUnit {
	var units []*steadyUnit
	byGroup := map[int]*steadyUnit{}
	for i, r := range runs {
		j := r.spec
		if j.SteadyDuration == 0 {
			continue
		}
		for c := range j.NumJobs {
			lanes := r.workers[c*r.lanes : (c+1)*r.lanes]
			id := g.reportGroup(i)
			u := byGroup[id]
			if u == nil || !grouped {
				u = &steadyUnit{window: newSteadyWindow(j.SteadyState, j.steadySamples()), start: int64(j.StartDelay), ramp: int64(j.SteadyRamp)}
				units = append(units, u)
				byGroup[id] = u
			}
			u.start = min(u.start, int64(j.StartDelay))
			u.workers = append(u.workers, lanes...)
			for _, w := range lanes {
				w.progress, w.steady = &ioProgress{}, u
			}
		}
	}
	return units
}

// watchSteadyState samples every unit once per steadySampleInterval from
// start (the run's nanotime start) until done is closed, then closes
// finished.
func watchSteadyState(units []*steadyUnit, start int64, done <-chan struct{}, finished chan<- struct{}) {
	defer close(finished)
	for _, u := range units {
		u.start += start
		if u.ramp == 0 {
			u.sampling, u.prevAt = true, u.start
		}
	}
	tick := time.NewTicker(steadySampleInterval)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		now := nanotime()
		for _, u := range units {
			u.sample(now)
		}
	}
}

// sample records the unit's rate since the previous sample, once its ramp
// is over; the first tick after the ramp only sets the baseline.
func (u *steadyUnit) sample(now int64) {
	if u.stop.Load() || now < u.start+u.ramp {
		return
	}
	var ios, bytes int64
	for _, w := range u.workers {
		ios += w.progress.ios.Load()
		bytes += w.progress.bytes.Load()
	}
	if u.sampling && now > u.prevAt {
		secs := float64(now-u.prevAt) / 1e9
		if u.window.add(float64(ios-u.prevIOs)/secs, float64(bytes-u.prevBytes)/secs) {
			u.stop.Store(true)
		}
	}
	u.sampling, u.prevAt, u.prevIOs, u.prevBytes = true, now, ios, bytes
}
