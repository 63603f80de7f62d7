package localrun

import (
	"fmt"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine"
	"github.com/storagebench/storagebench/internal/clientrun"
	"github.com/storagebench/storagebench/internal/plan"
)

// checkThreads refuses, before anything is laid out, a benchmark whose
// clients would need more engine threads in this one process than it may
// start: in a cluster every client is a pod of its own, here all clients of
// a target (and, with Parallel, of every target) share the process. Go
// would otherwise end the whole run with "thread exhaustion".
func checkThreads(b *sbv1.StorageBenchmark) error {
	total, peak, peakTarget := 0, 0, ""
	for i := range b.Spec.Targets {
		t := &b.Spec.Targets[i]
		p := plan.Build(b, t, "")
		perClient, _ := clientrun.SlotThreads(p)
		n := int(p.Clients) * perClient
		total += n
		if n > peak {
			peak, peakTarget = n, t.Name
		}
	}
	need, how := peak, fmt.Sprintf("target %s: clients.count %d x %d threads per client", peakTarget, b.Spec.Clients.Count, peak/int(max(b.Spec.Clients.Count, 1)))
	if b.Spec.TargetExecution == sbv1.TargetsParallel {
		need, how = total, fmt.Sprintf("%d targets in parallel, the largest %s", len(b.Spec.Targets), how)
	}
	if need <= engine.MaxWorkerThreads {
		return nil
	}
	return fmt.Errorf("%w: run needs %d engine threads in one process (%s), more than the %d it may start: "+
		"lower spec.clients.count or the workloads' numJobs, or set spec.targetExecution: Sequential; "+
		"in a cluster each client runs in a pod of its own", engine.ErrUsage, need, how, engine.MaxWorkerThreads)
}
