package results

import (
	"math"
	"strconv"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// StatusCells sums a target's result up for status: per cell, the chosen
// repetition's rates and latency percentiles in microseconds, as decimal
// strings (the API has no floats).
func StatusCells(tr *TargetResult) []sbv1.CellResult {
	out := make([]sbv1.CellResult, 0, len(tr.Cells))
	for i := range tr.Cells {
		c := &tr.Cells[i]
		rep := c.Result()
		if rep == nil {
			continue
		}
		cr := sbv1.CellResult{Name: c.Cell.Name, Workload: c.Cell.Workload, Read: statusDirection(rep.Read), Write: statusDirection(rep.Write)}
		if len(c.Repetitions) > 1 {
			cr.SpreadPercent = Decimal(c.SpreadPercent, 1)
		}
		out = append(out, cr)
	}
	return out
}

func statusDirection(d *DirectionStats) *sbv1.DirectionResult {
	if d == nil {
		return nil
	}
	return &sbv1.DirectionResult{
		IOPS:                Decimal(d.IOPS, 1),
		BytesPerSecond:      int64(math.Round(d.BytesPerSecond)),
		LatencyMicroseconds: Microseconds(d.LatencyNs),
	}
}

// Microseconds renders a latency summary in microseconds with two decimals.
func Microseconds(l LatencyNs) sbv1.LatencySummary {
	us := func(ns float64) string { return Decimal(ns/1000, 2) }
	return sbv1.LatencySummary{
		Mean: us(l.Mean), P50: us(float64(l.P50)), P90: us(float64(l.P90)),
		P99: us(float64(l.P99)), P999: us(float64(l.P999)), Max: us(float64(l.Max)),
	}
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
