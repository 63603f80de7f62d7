package results

import (
	"sort"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// EarlierRun is a completed earlier run of the same benchmark (in the
// cluster, an earlier run of its schedule; locally, a `run -o json` file
// given with --history), for thresholds that compare with history.
type EarlierRun struct {
	// Name identifies the run in messages.
	Name string
	// Time orders the runs: when it completed (locally) or was scheduled
	// (in the cluster).
	Time time.Time
	// Targets are the run's results by target name.
	Targets map[string]*TargetResult
}

// EarlierRunOf makes an earlier run of a whole run's results.
func EarlierRunOf(rr *RunResult) EarlierRun {
	run := EarlierRun{Name: rr.Benchmark, Time: rr.CompletionTime, Targets: map[string]*TargetResult{}}
	for _, tr := range rr.Targets {
		run.Targets[tr.Target] = tr
	}
	return run
}

// SortHistory orders earlier runs oldest first, as EvaluateWithHistory
// wants them.
func SortHistory(history []EarlierRun) {
	sort.SliceStable(history, func(i, j int) bool { return history[i].Time.Before(history[j].Time) })
}

// regressionReference is the value a threshold's maxRegression compares a
// target's cell with: the baseline's in this run, or history's (the last
// run's, or the median over the last runs that have the cell). It reports
// false when there is nothing to compare with; for a threshold without
// maxRegression it is (0, true).
func regressionReference(spec *sbv1.StorageBenchmarkSpec, th *sbv1.Threshold, results map[string]*TargetResult,
	history []EarlierRun, target, cell string) (float64, bool) {
	r := th.MaxRegression
	if r == nil {
		return 0, true
	}
	if !r.AgainstHistory() {
		base := FindCell(results[spec.Baseline], cell)
		if base == nil {
			return 0, false
		}
		_, v := regressionMetric(r, base.Totals())
		return v, true
	}
	var values []float64
	for i := len(history) - 1; i >= 0 && len(values) < r.HistoryRuns(); i-- {
		if rep := FindCell(history[i].Targets[target], cell); rep != nil {
			_, v := regressionMetric(r, rep.Totals())
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		return 0, false
	}
	return median(values), true
}

// median is the middle value, or the mean of the two middle ones: drift is
// judged against the runs' centre, not against the better or worse of two.
func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
