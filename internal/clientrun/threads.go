package clientrun

import (
	"fmt"

	"github.com/storagebench/storagebench/engine"
	"github.com/storagebench/storagebench/internal/plan"
)

// SlotThreads is the most engine worker threads one client of the plan runs
// at once (the cells of a slot run together), and the slot that needs them.
// The local runner multiplies it by the clients and targets it runs in one
// process; a client pod checks it alone before laying out anything.
func SlotThreads(p *plan.Plan) (threads int, slot string) {
	for i := range p.Slots {
		s := &p.Slots[i]
		var jobs []engine.JobSpec
		for k := range s.Cells {
			// Only the job count, queue depth and backend matter here.
			jobs = append(jobs, (&dataSet{}).cellJob(p, &s.Cells[k], 0))
		}
		if n, detail := engine.WorkerThreads(jobs); n > threads {
			threads, slot = n, fmt.Sprintf("slot %d of repetition %d: %s", i+1, s.Repetition, detail)
		}
	}
	return threads, slot
}

// checkThreads refuses a plan whose busiest slot alone needs more worker
// threads than one process may start, before the data set is laid out.
func checkThreads(p *plan.Plan) error {
	threads, slot := SlotThreads(p)
	if threads <= engine.MaxWorkerThreads {
		return nil
	}
	return fmt.Errorf("%w: one client needs %d engine threads at once (%s), more than the %d one process may start: "+
		"lower numJobs (or queueDepths, where the engine falls back to psync and keeps the depth with one thread per IO), "+
		"or split concurrentWith groups", engine.ErrUsage, threads, slot, engine.MaxWorkerThreads)
}
