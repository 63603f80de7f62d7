//go:build linux

package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storagebench/storagebench/engine/result"
)

// jobRun is one job's workers and how its backend was chosen.
type jobRun struct {
	spec    *JobSpec
	kind    string
	reason  string
	workers []*worker // clone-major: clone c's lanes are workers[c*lanes:(c+1)*lanes]
	lanes   int
}

// Run executes the jobs and returns fio's document with the storagebench
// extension. Jobs run concurrently (each clone on its own locked OS thread,
// all starting at the same instant), in groups one after another where a
// job has Stonewall, as fio's run groups do. It lays the data sets out first
// when Prepare has not. If the run fails or ctx is cancelled after IO
// started, it returns the document of what ran, marked Partial with the
// error, together with the error (the groups after the failure do not run);
// if nothing ran, it returns only the error. Errors from bad jobs wrap
// ErrUsage; every job's options are validated before the first group
// starts, what depends on the files (their layout, O_DIRECT alignment) when
// its group does.
//
// For its duration Run raises GOMAXPROCS so that every worker thread, of
// this run and of any other in flight in the process, has its own P; it is
// restored when the last run ends.
func Run(ctx context.Context, jobs []JobSpec, opts RunOptions) (*result.Document, error) {
	opts.fillDefaults()
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w: no jobs", ErrUsage)
	}
	// Jobs built in Go get what the parser gives parsed ones; the
	// caller's slice is not changed.
	jobs = append([]JobSpec(nil), jobs...)
	for i := range jobs {
		if err := jobs[i].resolve(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUsage, err)
		}
	}
	if err := validateJobs(jobs); err != nil {
		return nil, err
	}
	// exitall anywhere makes any job's end stop its reporting group, as
	// fio's process-wide flag does.
	exitAll := false
	for i := range jobs {
		exitAll = exitAll || jobs[i].ExitAll
	}
	threads := 0
	for i := range jobs {
		jobs[i].threadBase = threads
		threads += jobs[i].NumJobs
	}
	groups := runGroups(jobs)
	if err := checkSteadyGroups(groups); err != nil {
		return nil, err
	}
	logs := &logFiles{}
	doc, err := runAll(ctx, groups, exitAll, logs, opts)
	if lerr := logs.closeAll(); lerr != nil && err == nil {
		return doc, lerr
	}
	return doc, err
}

// runAll runs the groups one after another.
func runAll(ctx context.Context, groups []runGroup, exitAll bool, logs *logFiles, opts RunOptions) (*result.Document, error) {
	var doc *result.Document
	for _, g := range groups {
		g.exitAll, g.logs = exitAll, logs
		ex, err := execute(ctx, g, opts)
		if err != nil {
			if doc == nil {
				return nil, err
			}
			return partialDocument(doc, len(doc.Jobs), err, opts), err
		}
		groupStart := 0
		if doc != nil {
			groupStart = len(doc.Jobs)
		}
		if ex.ran || ex.err == nil {
			doc = appendGroup(doc, ex, g, opts)
		}
		if uerr := unlinkFiles(g.jobs); uerr != nil && ex.err == nil {
			ex.err = uerr
		}
		if ex.err != nil {
			if doc == nil {
				return nil, ex.err
			}
			return partialDocument(doc, groupStart, ex.err, opts), ex.err
		}
	}
	return doc, nil
}

// appendGroup adds a finished group's jobs to the document (the first
// group's document is the document), each reporting group apart so that
// group_reporting merges within it.
func appendGroup(doc *result.Document, ex *execution, g runGroup, opts RunOptions) *result.Document {
	var ids []int
	byID := map[int][]*jobRun{}
	for i, r := range ex.runs {
		id := g.reportGroup(i)
		if byID[id] == nil {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], r)
	}
	for _, id := range ids {
		part := buildDocument(byID[id], opts, ex.startWall, ex.targets)
		for i := range part.Jobs {
			part.Jobs[i].GroupID = id
		}
		if doc == nil {
			doc = part
			continue
		}
		doc.Jobs = append(doc.Jobs, part.Jobs...)
		doc.Storagebench.Jobs = append(doc.Storagebench.Jobs, part.Storagebench.Jobs...)
	}
	return doc
}

// partialDocument marks the document of what ran with the error that
// stopped the run, and the failing job (among the failing group's, from
// doc.Jobs[groupStart] on) with its errno.
func partialDocument(doc *result.Document, groupStart int, err error, opts RunOptions) *result.Document {
	doc.Storagebench.Partial = true
	doc.Storagebench.Error = err.Error()
	if job, errno, ok := failedJob(err); ok {
		for i := groupStart; i < len(doc.Jobs); i++ {
			if doc.Jobs[i].JobName == job || opts.GroupReporting {
				doc.Jobs[i].Error = int(errno)
			}
		}
	}
	return doc
}

// failedJob is the job a failed IO or check belongs to and the errno fio
// reports for it (EILSEQ for a block that failed verification, as fio's).
func failedJob(err error) (string, unix.Errno, bool) {
	var ioErr *IOError
	var verifyErr *VerifyError
	switch {
	case errors.As(err, &ioErr):
		return ioErr.Job, ioErr.Errno, true
	case errors.As(err, &verifyErr):
		return verifyErr.Job, unix.EILSEQ, true
	}
	return "", 0, false
}

// execution is a finished run before it is reported.
type execution struct {
	runs      []*jobRun
	targets   []*target
	startWall time.Time
	err       error // the first failure once IO started
	ran       bool  // some IO was issued
}

// execute prepares, starts every worker at one instant and waits for all.
// Errors before IO (preparation, setup) are returned; later ones are in
// execution.err.
// The jobs must have passed validateJobs.
func execute(ctx context.Context, g runGroup, opts RunOptions) (*execution, error) {
	jobs := g.jobs
	// The thread budget is checked before anything is laid out or
	// started: beyond it Go would kill the process. Every worker thread
	// then gets its own P, so a worker returning from a blocking system
	// call never waits for another to release one: the threads behave
	// like fio's, scheduled by the kernel alone.
	release, err := reserveProcs(WorkerThreads(jobs))
	if err != nil {
		return nil, err
	}
	defer release()
	place, err := newPlacement(jobs)
	if err != nil {
		return nil, err
	}
	targets, err := prepare(ctx, jobs)
	if err != nil {
		return nil, err
	}
	runs, err := planWorkers(jobs, place, g.logs)
	if err != nil {
		return nil, err
	}
	var all []*worker
	groupStops := map[int]*atomic.Bool{}
	jobEnds := waitForGates(runs)
	for i, r := range runs {
		id := g.reportGroup(i)
		if groupStops[id] == nil {
			groupStops[id] = &atomic.Bool{}
		}
		for _, w := range r.workers {
			w.groupStop, w.exitAll = groupStops[id], g.exitAll
		}
		all = append(all, r.workers...)
	}
	steadyUnits := newSteadyUnits(runs, g, opts.GroupReporting)

	var stop atomic.Bool
	sched := &runSchedule{stop: &stop, interval: int64(opts.Interval)}
	ready := make(chan error, len(all))
	begin := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(len(all))
	for _, w := range all {
		w.start(ready, begin, sched, jobEnds.doneFunc(w, wg.Done))
	}
	var setupErr error
	for range all {
		if err := <-ready; err != nil && setupErr == nil {
			setupErr = err
		}
	}
	if setupErr != nil {
		stop.Store(true)
		close(begin)
		wg.Wait()
		return nil, setupErr
	}
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			stop.Store(true)
		case <-finished:
		}
	}()
	ex := &execution{runs: runs, targets: targets, startWall: time.Now()}
	sched.start = nanotime()
	watched := make(chan struct{})
	if steadyUnits != nil {
		go watchSteadyState(steadyUnits, sched.start, finished, watched)
	} else {
		close(watched)
	}
	close(begin)
	wg.Wait()
	close(finished)
	<-watched // the units' windows are read by the report
	for _, w := range all {
		ex.ran = ex.ran || w.ran
		if w.err != nil && ex.err == nil {
			ex.err = w.err
		}
	}
	if ex.err == nil && ctx.Err() != nil {
		ex.err = fmt.Errorf("run stopped early: %w", context.Cause(ctx))
	}
	return ex, nil
}

// planWorkers chooses each job's backend and creates its workers.
func planWorkers(jobs []JobSpec, place *placement, logs *logFiles) ([]*jobRun, error) {
	var runs []*jobRun
	for ji := range jobs {
		j := &jobs[ji]
		p := planBackend(j)
		if j.LatencyTarget > 0 && p.lanes > 1 {
			return nil, fmt.Errorf("%w: job %q: latency_target: ioengine=auto fell back to psync, which keeps iodepth=%d with %d threads of depth 1 whose number cannot change while they run (%s); give ioengine=io_uring or libaio where they work, or psync for depth 1", ErrUsage, j.Name, j.IODepth, p.lanes, p.reason)
		}
		if j.Think.Time > 0 && p.lanes > 1 {
			return nil, fmt.Errorf("%w: job %q: thinktime: ioengine=auto fell back to psync, which keeps iodepth=%d with %d threads of depth 1 that would each count thinktime_blocks and think on their own (%s); give ioengine=io_uring or libaio where they work, or psync for depth 1", ErrUsage, j.Name, j.IODepth, p.lanes, p.reason)
		}
		r := &jobRun{spec: j, kind: p.kind, reason: p.reason, lanes: p.lanes}
		for c := 0; c < j.NumJobs; c++ {
			files, err := j.resolveFiles(c)
			if err != nil {
				return nil, fmt.Errorf("job %q: %w", j.Name, err)
			}
			var cl *cloneLogs
			if logs != nil {
				if cl, err = openCloneLogs(logs, j.Logs, j.threadBase+c+1, r.lanes); err != nil {
					return nil, fmt.Errorf("job %q: %w", j.Name, err)
				}
			}
			for lane := 0; lane < r.lanes; lane++ {
				cpus := place.cpusFor(ji, c, lane, r.lanes)
				r.workers = append(r.workers, &worker{
					job: j, jobID: ji, clone: c, lane: lane, lanes: r.lanes, depth: p.depth,
					files: files, kind: r.kind, cpus: cpus, logs: cl,
				})
			}
		}
		runs = append(runs, r)
	}
	return runs, nil
}
