package results

import (
	"math"
	"strconv"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// StatusCells sums a target's result up for status: per cell, the chosen
// repetition's total rates and the p99 of all its IOs in microseconds, as
// decimal strings (the API has no floats). Reads and writes apart, the
// other percentiles and every client stay in the results ConfigMap: status
// holds one summary per target and cell within its budget.
func StatusCells(tr *TargetResult) []sbv1.CellSummary {
	out := make([]sbv1.CellSummary, 0, len(tr.Cells))
	for i := range tr.Cells {
		c := &tr.Cells[i]
		rep := c.Result()
		if rep == nil {
			continue
		}
		totals := rep.Totals()
		cs := sbv1.CellSummary{
			Name:            c.Cell.Name,
			IOPS:            Decimal(totals.IOPS, 1),
			BytesPerSecond:  int64(math.Round(totals.BytesPerSecond)),
			P99Microseconds: Decimal(float64(totals.Latency.P99)/1000, 2),
		}
		if len(c.Repetitions) > 1 {
			cs.SpreadPercent = Decimal(c.SpreadPercent, 1)
		}
		out = append(out, cs)
	}
	return out
}

// StatusSearches sums a target's searches up for status: each one's
// answer; the curves stay in the results ConfigMap.
func StatusSearches(tr *TargetResult) []sbv1.SearchSummary {
	var out []sbv1.SearchSummary
	for _, r := range tr.Searches {
		ss := sbv1.SearchSummary{Search: r.Search, Outcome: string(r.Outcome), CapacityIOPS: Decimal(r.CapacityIOPS(), 1), Steps: int32(len(r.Steps))}
		if r.Capacity != nil {
			ss.LatencyMicroseconds = Decimal(float64(r.Capacity.AtPercentileNs)/1000, 2)
		}
		out = append(out, ss)
	}
	return out
}

// StatusEnvironment is the part of a target's fingerprint status keeps.
func StatusEnvironment(env *sbv1.Environment) *sbv1.EnvironmentSummary {
	if env == nil {
		return nil
	}
	return &sbv1.EnvironmentSummary{
		StorageClassName: env.StorageClassName, Provisioner: env.Provisioner, Driver: env.Driver,
		Nodes: int32(len(env.Nodes)), EngineVersion: env.EngineVersion,
	}
}

// StatusComparison is the part of the comparison status keeps: the best
// target per cell and the per-target summaries.
func StatusComparison(c *sbv1.Comparison) *sbv1.ComparisonSummary {
	if c == nil {
		return nil
	}
	out := &sbv1.ComparisonSummary{Baseline: c.Baseline, Targets: c.Targets}
	for _, cell := range c.Cells {
		out.Cells = append(out.Cells, sbv1.CellBest{Cell: cell.Cell, Best: cell.Best})
	}
	out.Searches = c.Searches
	return out
}

// StatusCapacity is the first search's ranking in words for a printer
// column: "knee-bs4k-r100: pd-ssd 15000, nfs 4100" (IOPS within the bound).
func StatusCapacity(c *sbv1.Comparison) string {
	if c == nil || len(c.Searches) == 0 {
		return ""
	}
	s := c.Searches[0]
	parts := make([]string, len(s.ByCapacity))
	for i, t := range s.ByCapacity {
		parts[i] = t + " " + s.CapacityIOPS[i]
	}
	out := s.Search + ": " + strings.Join(parts, ", ")
	if len(out) > 600 {
		out = out[:597] + "..."
	}
	return out
}

// Decimal formats v with at most places decimals and no trailing zeros:
// the form every number takes in status.
func Decimal(v float64, places int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', places, 64)
	if places > 0 {
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	if s == "-0" {
		return "0"
	}
	return s
}
