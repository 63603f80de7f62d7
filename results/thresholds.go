package results

import (
	"fmt"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Evaluation is what the thresholds say about a run.
type Evaluation struct {
	Verdict    sbv1.Verdict
	Violations []sbv1.Violation
	// Unevaluated explains thresholds that could not be judged (the cells
	// or results they need are missing): they make the verdict
	// Inconclusive unless a Fail threshold is already broken.
	Unevaluated []string
	// FailingTargets are the targets that break a Fail threshold;
	// WarnedTargets those that break a Warn threshold.
	FailingTargets map[string]bool
	WarnedTargets  map[string]bool
	// Warnings say which history thresholds had no earlier run to compare
	// with (they are not judged).
	Warnings []sbv1.Warning
}

// Evaluate judges every threshold against the targets' results (the
// median repetition of each cell), with no earlier runs to compare with.
func Evaluate(spec *sbv1.StorageBenchmarkSpec, results map[string]*TargetResult) Evaluation {
	return EvaluateWithHistory(spec, results, nil)
}

// EvaluateWithHistory judges every threshold; those whose maxRegression
// compares against history (Previous, MedianOfLast) use history, the
// earlier completed runs, oldest first. Without an earlier run they are not
// judged and say so in a NoHistory warning: the first run of a schedule is
// not Inconclusive for lacking a past.
func EvaluateWithHistory(spec *sbv1.StorageBenchmarkSpec, results map[string]*TargetResult, history []EarlierRun) Evaluation {
	ev := Evaluation{FailingTargets: map[string]bool{}, WarnedTargets: map[string]bool{}}
	cells := spec.Cells()
	for i := range spec.Thresholds {
		th := &spec.Thresholds[i]
		name := ThresholdName(th, i)
		if th.MinIOPSAtLatency != nil {
			evaluateSearchThreshold(spec, th, name, results, &ev)
			continue
		}
		selected := selectCells(cells, th)
		if len(selected) == 0 {
			ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s selects no cell of workload %s", name, th.Workload))
			continue
		}
		if th.MaxRegression.AgainstHistory() && len(history) == 0 {
			ev.Warnings = append(ev.Warnings, sbv1.Warning{Reason: WarnNoHistory, Message: truncateMessage(fmt.Sprintf(
				"threshold %s compares with earlier runs (%s) and there is none of this template yet: its maxRegression is not judged in this run (its other limits are)", name, th.MaxRegression.Against))})
		}
		var missing []string
		for _, target := range thresholdTargets(spec, th) {
			for _, cell := range selected {
				rep := FindCell(results[target], cell.Name)
				if rep == nil {
					ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s: no result for target %s, cell %s", name, target, cell.Name))
					continue
				}
				ref, ok := regressionReference(spec, th, results, history, target, cell.Name)
				switch {
				case ok:
				case !th.MaxRegression.AgainstHistory():
					ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s: no baseline result for cell %s", name, cell.Name))
					continue
				case len(history) > 0:
					// No past for this pair: the regression is not
					// judged, the threshold's other limits are.
					missing = append(missing, target+"/"+cell.Name)
				}
				for _, v := range check(th, rep, ref, ok) {
					v.Threshold, v.Target, v.Cell = name, target, cell.Name
					ev.record(th, v)
				}
			}
		}
		if len(missing) > 0 {
			ev.Warnings = append(ev.Warnings, sbv1.Warning{Reason: WarnNoHistory, Message: truncateMessage(fmt.Sprintf(
				"threshold %s: no earlier run has %d target/cell pair(s) it judges (e.g. %s): those are not judged in this run", name, len(missing), missing[0]))})
		}
	}
	switch {
	case len(ev.FailingTargets) > 0:
		ev.Verdict = sbv1.VerdictFailed
	case len(ev.Unevaluated) > 0:
		ev.Verdict = sbv1.VerdictInconclusive
	default:
		ev.Verdict = sbv1.VerdictPassed
	}
	return ev
}

// record adds a broken threshold's violation, with the threshold's
// severity, and marks its target failing or warned.
func (ev *Evaluation) record(th *sbv1.Threshold, v sbv1.Violation) {
	v.Severity = severity(th)
	ev.Violations = append(ev.Violations, v)
	if v.Severity == sbv1.SeverityFail {
		ev.FailingTargets[v.Target] = true
	} else {
		ev.WarnedTargets[v.Target] = true
	}
}

// ThresholdName is the threshold's name, or one derived from its workload
// and limits.
func ThresholdName(th *sbv1.Threshold, index int) string {
	if th.Name != "" {
		return th.Name
	}
	var kinds []string
	if th.MinIOPS != nil {
		kinds = append(kinds, "minIOPS")
	}
	if th.MinOpsPerSecond != nil {
		kinds = append(kinds, "minOpsPerSecond")
	}
	if th.MinBytesPerSecond != nil {
		kinds = append(kinds, "minBytesPerSecond")
	}
	if th.MaxLatency != nil {
		kinds = append(kinds, "maxLatency")
	}
	if th.MaxRegression != nil {
		kinds = append(kinds, "maxRegression")
	}
	if th.MinIOPSAtLatency != nil {
		kinds = append(kinds, "minIOPSAtLatency")
	}
	return truncateName(fmt.Sprintf("%s-%s-%d", th.Workload, strings.Join(kinds, "-"), index))
}

func truncateName(s string) string {
	if len(s) <= 63 {
		return s
	}
	return s[:63]
}

func severity(th *sbv1.Threshold) sbv1.Severity {
	if th.Severity == sbv1.SeverityWarn {
		return sbv1.SeverityWarn
	}
	return sbv1.SeverityFail
}

func selectCells(cells []sbv1.Cell, th *sbv1.Threshold) []sbv1.Cell {
	var out []sbv1.Cell
	for _, c := range cells {
		if c.Workload != th.Workload {
			continue
		}
		if th.Match != nil && !th.Match.Matches(&c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// thresholdTargets are the targets a threshold judges: those it names, or
// all that run its workload (all but the baseline for a regression
// threshold).
func thresholdTargets(spec *sbv1.StorageBenchmarkSpec, th *sbv1.Threshold) []string {
	if len(th.Targets) > 0 {
		return th.Targets
	}
	group := spec.Workload(th.Workload)
	var out []string
	for _, t := range spec.Targets {
		if th.ComparesWithBaseline() && t.Name == spec.Baseline {
			continue
		}
		if group != nil && !group.RunsOn(t.Name) {
			continue // a group restricted to some targets is judged there
		}
		out = append(out, t.Name)
	}
	return out
}

// check compares one cell run with one threshold's limits; ref is what a
// maxRegression compares with (the baseline's value or history's), judged
// only when hasRef.
func check(th *sbv1.Threshold, rep *RepetitionResult, ref float64, hasRef bool) []sbv1.Violation {
	var out []sbv1.Violation
	add := func(metric string, limit, measured float64, places int) {
		out = append(out, sbv1.Violation{Metric: metric, Limit: Decimal(limit, places), Measured: Decimal(measured, places)})
	}
	totals := rep.Totals()
	if th.MinIOPS != nil && totals.IOPS < float64(*th.MinIOPS) {
		add("totalIOPS", float64(*th.MinIOPS), totals.IOPS, 1)
	}
	if th.MinOpsPerSecond != nil && totals.IOPS < float64(*th.MinOpsPerSecond) {
		// A metadata cell counts its operations as IOs.
		add("opsPerSecond", float64(*th.MinOpsPerSecond), totals.IOPS, 1)
	}
	if th.MinBytesPerSecond != nil && totals.BytesPerSecond < float64(th.MinBytesPerSecond.Value()) {
		add("totalBytesPerSecond", float64(th.MinBytesPerSecond.Value()), totals.BytesPerSecond, 0)
	}
	if l := th.MaxLatency; l != nil {
		for _, d := range []struct {
			name  string
			stats *DirectionStats
		}{{"read", rep.Read}, {"write", rep.Write}} {
			if d.stats == nil || d.stats.IOs == 0 {
				continue
			}
			measured := float64(d.stats.LatencyNs.At(percentileOf(l.Percentile))) / 1000
			if measured > float64(l.Microseconds) {
				add(d.name+"Latency"+metricSuffix(l.Percentile)+"Microseconds", float64(l.Microseconds), measured, 2)
			}
		}
	}
	if r := th.MaxRegression; r != nil && hasRef {
		metric, value := regressionMetric(r, totals)
		var regression float64
		if r.Metric == sbv1.RegressionLatency {
			regression = percentAbove(value, ref)
		} else {
			regression = percentBelow(value, ref)
		}
		if regression > float64(r.Percent) {
			add(metric, float64(r.Percent), regression, 2)
			out[len(out)-1].ReferenceValue, out[len(out)-1].Value = Decimal(ref, 2), Decimal(value, 2)
		}
	}
	return out
}

// regressionMetric names what a regression compares and gives its value in
// a cell's totals (IOs/s, bytes/s, or latency in microseconds).
func regressionMetric(r *sbv1.Regression, totals CellTotals) (string, float64) {
	switch r.Metric {
	case sbv1.RegressionBytesPerSecond:
		return "bytesPerSecondRegressionPercent", totals.BytesPerSecond
	case sbv1.RegressionLatency:
		p := percentileOf(r.Percentile)
		return "latency" + metricSuffix(p) + "RegressionPercent", float64(totals.Latency.At(p)) / 1000
	default:
		return "iopsRegressionPercent", totals.IOPS
	}
}

func percentileOf(p sbv1.Percentile) sbv1.Percentile {
	if p == "" {
		return sbv1.PercentileP99
	}
	return p
}

// metricSuffix names a percentile inside a metric name: P99, P999, Max.
func metricSuffix(p sbv1.Percentile) string {
	return strings.ReplaceAll(string(percentileOf(p)), ".", "")
}

// percentBelow is how much lower value is than base, in percent of base.
func percentBelow(value, base float64) float64 {
	if base == 0 {
		return 0
	}
	return (base - value) / base * 100
}

// percentAbove is how much higher value is than base, in percent of base.
func percentAbove(value, base float64) float64 {
	if base == 0 {
		return 0
	}
	return (value - base) / base * 100
}
