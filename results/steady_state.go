package results

import (
	"fmt"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// WarnNotSteadyState: a cell's IOPS still moved over its last samples.
const WarnNotSteadyState = "NotSteadyState"

// SteadyState is how a cell's last samples measure against the rule.
type SteadyState struct {
	// Points is how many samples the window held.
	Points int
	// ExcursionPercent is max - min over the window, in percent of its mean.
	ExcursionPercent float64
	// SlopePercent is the least-squares line's rise (or fall) from the
	// window's first sample to its last, in percent of the mean.
	SlopePercent float64
}

// JudgeSteadyState measures the series' last window; ok is false when the
// series has fewer whole samples than the window (nothing to judge). A
// series of wider intervals (a long cell) is judged over as many of them as
// cover the window, at least three.
func JudgeSteadyState(s *Series, rule sbv1.SteadyStateRule) (SteadyState, bool) {
	if rule.WindowSeconds <= 0 || s.Len() == 0 {
		return SteadyState{}, false
	}
	width := max(s.IntervalSeconds, 1)
	n := int(max((rule.WindowSeconds+width-1)/width, 3))
	if width == 1 {
		n = int(rule.WindowSeconds)
	}
	if s.Len() < n || n < 2 {
		return SteadyState{}, false
	}
	ys := make([]float64, n)
	lo, hi, sum := 0.0, 0.0, 0.0
	for i := range ys {
		ys[i] = s.IOPS(s.Len() - n + i)
		if i == 0 || ys[i] < lo {
			lo = ys[i]
		}
		if i == 0 || ys[i] > hi {
			hi = ys[i]
		}
		sum += ys[i]
	}
	mean := sum / float64(n)
	if mean <= 0 {
		return SteadyState{Points: n}, true
	}
	// Least squares over x = 0..n-1: slope = sum((x-x̄)(y-ȳ)) / sum((x-x̄)²).
	xMean := float64(n-1) / 2
	var num, den float64
	for i, y := range ys {
		dx := float64(i) - xMean
		num += dx * (y - mean)
		den += dx * dx
	}
	slope := num / den
	rise := slope * float64(n-1)
	if rise < 0 {
		rise = -rise
	}
	return SteadyState{Points: n, ExcursionPercent: (hi - lo) / mean * 100, SlopePercent: rise / mean * 100}, true
}

// steadyStateWarnings names every measured cell (each repetition) whose
// series breaks the rule.
func steadyStateWarnings(tr *TargetResult, rule sbv1.SteadyStateRule, add func(reason, cell, format string, args ...any)) {
	for i := range tr.Cells {
		c := &tr.Cells[i]
		if c.Cell.IsMetadata() {
			continue // a count of names, not a load held for a while
		}
		for k := range c.Repetitions {
			rep := &c.Repetitions[k]
			st, ok := JudgeSteadyState(rep.Series, rule)
			if !ok || (st.ExcursionPercent <= float64(rule.MaxExcursionPercent) && st.SlopePercent <= float64(rule.MaxSlopePercent)) {
				continue
			}
			which := ""
			if len(c.Repetitions) > 1 {
				which = fmt.Sprintf(" (repetition %d)", rep.Repetition)
			}
			add(WarnNotSteadyState, c.Cell.Name, "IOPS not steady over the last %d samples%s: excursion %s %% of the mean (limit %d %%), trend %s %% (limit %d %%); a longer ramp or duration may reach steady state",
				st.Points, which, Decimal(st.ExcursionPercent, 1), rule.MaxExcursionPercent, Decimal(st.SlopePercent, 1), rule.MaxSlopePercent)
		}
	}
}
