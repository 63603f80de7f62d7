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
}

// Evaluate judges every threshold against the targets' results (the
// median repetition of each cell).
func Evaluate(spec *sbv1.StorageBenchmarkSpec, results map[string]*TargetResult) Evaluation {
	ev := Evaluation{FailingTargets: map[string]bool{}, WarnedTargets: map[string]bool{}}
	cells := spec.Cells()
	for i := range spec.Thresholds {
		th := &spec.Thresholds[i]
		name := ThresholdName(th, i)
		selected := selectCells(cells, th)
		if len(selected) == 0 {
			ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s selects no cell of workload %s", name, th.Workload))
			continue
		}
		for _, target := range thresholdTargets(spec, th) {
			for _, cell := range selected {
				rep := FindCell(results[target], cell.Name)
				if rep == nil {
					ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s: no result for target %s, cell %s", name, target, cell.Name))
					continue
				}
				var base *RepetitionResult
				if th.MaxRegression != nil {
					if base = FindCell(results[spec.Baseline], cell.Name); base == nil {
						ev.Unevaluated = append(ev.Unevaluated, fmt.Sprintf("threshold %s: no baseline result for cell %s", name, cell.Name))
						continue
					}
				}
				for _, v := range check(th, rep, base) {
					v.Threshold, v.Target, v.Cell = name, target, cell.Name
					v.Severity = severity(th)
					ev.Violations = append(ev.Violations, v)
					if v.Severity == sbv1.SeverityFail {
						ev.FailingTargets[target] = true
					} else {
						ev.WarnedTargets[target] = true
					}
				}
			}
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
		if th.MaxRegression != nil && t.Name == spec.Baseline {
			continue
		}
		if group != nil && !group.RunsOn(t.Name) {
			continue // a group restricted to some targets is judged there
		}
		out = append(out, t.Name)
	}
	return out
}

// check compares one cell run with one threshold's limits.
func check(th *sbv1.Threshold, rep, base *RepetitionResult) []sbv1.Violation {
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
	if r := th.MaxRegression; r != nil && base != nil {
		baseTotals := base.Totals()
		var regression float64
		var metric string
		switch r.Metric {
		case sbv1.RegressionBytesPerSecond:
			metric, regression = "bytesPerSecondRegressionPercent", percentBelow(totals.BytesPerSecond, baseTotals.BytesPerSecond)
		case sbv1.RegressionLatency:
			p := percentileOf(r.Percentile)
			metric = "latency" + metricSuffix(p) + "RegressionPercent"
			regression = percentAbove(float64(totals.Latency.At(p)), float64(baseTotals.Latency.At(p)))
		default:
			metric, regression = "iopsRegressionPercent", percentBelow(totals.IOPS, baseTotals.IOPS)
		}
		if regression > float64(r.Percent) {
			add(metric, float64(r.Percent), regression, 2)
		}
	}
	return out
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
