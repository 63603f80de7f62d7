package engine

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
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

// waitToStart waits for the worker's start: its startdelay after the
// group's start and, with wait_for, the end of the job it waits for. It
// returns the start, or false when the run is stopped meanwhile.
func (w *worker) waitToStart(s runSchedule) (int64, bool) {
	start := s.start + int64(w.job.StartDelay)
	if w.after != nil {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
	waiting:
		for {
			select {
			case <-w.after:
				break waiting
			case <-tick.C:
				if s.stop.Load() {
					return 0, false
				}
			}
		}
		start = max(start, nanotime())
	}
	return start, w.sleepUntil(start, s.stop)
}

// jobEnds closes, for each job some other job of the group waits for, a
// channel when its last worker has finished.
type jobEnds struct {
	left   map[*JobSpec]*atomic.Int64
	closed map[*JobSpec]chan struct{}
}

// waitForGates wires each waiter's workers to the end of the job they wait
// for. A job waited for in an earlier group has finished already: its
// waiters start as if they waited for nothing.
func waitForGates(runs []*jobRun) jobEnds {
	e := jobEnds{left: map[*JobSpec]*atomic.Int64{}, closed: map[*JobSpec]chan struct{}{}}
	byName := map[string]*jobRun{}
	for _, r := range runs {
		byName[r.spec.Name] = r
	}
	for _, r := range runs {
		waitee := byName[r.spec.WaitFor]
		if r.spec.WaitFor == "" || waitee == nil {
			continue
		}
		ch := e.closed[waitee.spec]
		if ch == nil {
			ch = make(chan struct{})
			e.closed[waitee.spec] = ch
			n := &atomic.Int64{}
			n.Store(int64(len(waitee.workers)))
			e.left[waitee.spec] = n
		}
		for _, w := range r.workers {
			w.after = ch
		}
	}
	return e
}

// doneFunc is what worker w calls when it finishes: done, and, for the last
// worker of a job waited for, the close of its channel.
func (e jobEnds) doneFunc(w *worker, done func()) func() {
	n := e.left[w.job]
	if n == nil {
		return done
	}
	return func() {
		if n.Add(-1) == 0 {
			close(e.closed[w.job])
		}
		done()
	}
}
