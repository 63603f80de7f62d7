package engine

import (
	"fmt"
	"sort"
	"strings"
)

// MaxWorkerThreads bounds the worker threads of all runs in flight in one
// process (Run refuses beyond it, before laying out data or starting any).
//
// Go stops the whole process with "thread exhaustion" beyond 10000 OS
// threads (runtime/debug.SetMaxThreads), and worker threads are not the
// only ones: Run raises GOMAXPROCS to one P per worker (procs.go), and a P
// whose locked worker sits in a system call can be handed to another thread
// (GC mark workers run on every idle P during a collection, other
// goroutines need threads too), so a run can take up to about two threads
// per worker, plus sysmon, the templates and whatever the embedding program
// runs. 4096 keeps twice that below 10000 with room to spare, and is still
// far more than any storage needs: 64 clones of io_uring at iodepth 256,
// or 16 psync clones keeping iodepth 256 with one thread per IO.
const MaxWorkerThreads = 4096

// backendPlan is how one job's clones run: the backend, why, and how many
// worker threads (lanes) each clone uses with what queue depth each.
type backendPlan struct {
	kind, reason string
	lanes        int // worker threads per clone
	depth        int // IOs in flight per lane
}

// planBackend chooses a job's backend and the lanes of its clones.
func planBackend(j *JobSpec) backendPlan {
	if j.isFileOp() {
		return backendPlan{kind: j.IOEngine, reason: "file operations: one timed system call each (" + fileOpEngines[j.IOEngine].doesWhat + "), one thread per clone", lanes: 1, depth: 1}
	}
	choice := chooseBackend(j.IOEngine)
	p := backendPlan{kind: choice.name, reason: choice.reason, lanes: 1, depth: j.IODepth}
	if choice.name == EngineMmap && j.IODepth > 1 {
		p.depth = 1
		p.reason += fmt.Sprintf("; mmap does one IO at a time, as in fio (iodepth=%d ignored)", j.IODepth)
	}
	if choice.name == EnginePsync && j.IODepth > 1 {
		if j.IOEngine == EngineAuto {
			// Falling back must not silently change the workload:
			// keep the queue depth with one locked thread per slot.
			p.lanes, p.depth = j.IODepth, 1
			p.reason += fmt.Sprintf("; iodepth=%d kept with %d locked threads per clone, one blocking IO each", j.IODepth, j.IODepth)
		} else {
			// fio's psync does one IO at a time whatever iodepth says.
			p.depth = 1
			p.reason += fmt.Sprintf("; psync does one IO at a time, as in fio (iodepth=%d ignored)", j.IODepth)
		}
	}
	return p
}

// WorkerThreads returns how many worker threads Run would start for jobs
// (one per clone, or per IO slot of a clone where psync keeps iodepth),
// with the same backend choice Run makes, and a one-line account naming
// the jobs that need the most. Nothing is started or laid out. Callers that
// run several job lists at once in one process (cells of a slot, clients
// of the local runner) add the counts up and compare the sum with
// MaxWorkerThreads.
func WorkerThreads(jobs []JobSpec) (threads int, detail string) {
	type need struct {
		name           string
		clones, lanes  int
		psyncKeepDepth bool
	}
	needs := make([]need, 0, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		p := planBackend(j)
		n := need{name: j.Name, clones: max(j.NumJobs, 0), lanes: p.lanes, psyncKeepDepth: p.lanes > 1}
		threads += n.clones * n.lanes
		needs = append(needs, n)
	}
	sort.SliceStable(needs, func(a, b int) bool { return needs[a].clones*needs[a].lanes > needs[b].clones*needs[b].lanes })
	const named = 3
	var parts []string
	rest, restThreads := 0, 0
	for i, n := range needs {
		if i >= named {
			rest++
			restThreads += n.clones * n.lanes
			continue
		}
		part := fmt.Sprintf("job %q: %d", n.name, n.clones*n.lanes)
		if n.psyncKeepDepth {
			part += fmt.Sprintf(" (numjobs=%d x iodepth=%d: psync keeps the queue depth with one thread per IO)", n.clones, n.lanes)
		} else {
			part += fmt.Sprintf(" (numjobs=%d, one thread per clone)", n.clones)
		}
		parts = append(parts, part)
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("%d more job(s): %d", rest, restThreads))
	}
	return threads, strings.Join(parts, "; ")
}

// CheckWorkerThreads refuses, with the error Run would give, a job list
// that alone needs more than MaxWorkerThreads worker threads. It does not
// know about other runs in flight; Run checks those too.
func CheckWorkerThreads(jobs []JobSpec) error {
	threads, detail := WorkerThreads(jobs)
	return checkThreadBudget(threads, detail, 0)
}

// checkThreadBudget refuses threads more worker threads when inUse are
// already taken by runs in flight, naming what to reduce.
func checkThreadBudget(threads int, detail string, inUse int) error {
	if inUse+threads <= MaxWorkerThreads {
		return nil
	}
	others := ""
	if inUse > 0 {
		others = fmt.Sprintf(", and %d are in use by other runs in this process", inUse)
	}
	return fmt.Errorf("%w: the jobs need %d worker threads [%s]%s: more than the engine's bound of %d (MaxWorkerThreads; "+
		"Go allows 10000 threads per process); reduce numjobs, or iodepth where psync keeps it with one thread per IO, or run fewer jobs concurrently",
		ErrUsage, threads, detail, others, MaxWorkerThreads)
}
