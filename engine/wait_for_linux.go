package engine

import (
	"sync/atomic"
	"time"
)

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
