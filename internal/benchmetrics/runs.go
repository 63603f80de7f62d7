package benchmetrics

import (
	"github.com/prometheus/client_golang/prometheus"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// RunsCompleted counts the runs this manager completed, by namespace and
// verdict (Failed also for a run that failed to run). It counts a run
// once: when the status that completes it is stored.
var RunsCompleted = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "storagebench_runs_completed_total",
	Help: "Runs completed by this manager, by namespace and verdict (Failed also for a run that failed to run).",
}, []string{"namespace", "verdict"})

// CountCompleted counts one completed run.
func CountCompleted(b *sbv1.StorageBenchmark) {
	verdict := b.Status.Verdict
	if verdict == "" {
		verdict = sbv1.VerdictFailed
	}
	RunsCompleted.WithLabelValues(b.Namespace, string(verdict)).Inc()
}

// Register adds the benchmark metrics to a registry (the manager's).
func Register(reg prometheus.Registerer, c *Collector) error {
	for _, m := range []prometheus.Collector{c, RunsCompleted} {
		if err := reg.Register(m); err != nil {
			return err
		}
	}
	return nil
}
