package report

import (
	"fmt"
	"html/template"
	"math"
	"sort"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// htmlSearch is one capacity search: its curve (latency at the bound's
// percentile against the IOPS each step carried, one line per target: the
// hockey stick) and each target's answer.
type htmlSearch struct {
	Title   string
	Curve   template.HTML
	Answers []searchAnswer
}

type searchAnswer struct {
	Target, Color, Capacity, Outcome, Message string
}

func buildSearches(rr *results.RunResult, l *lookup, colors map[string]string) []htmlSearch {
	var out []htmlSearch
	for _, s := range rr.Spec.Searches() {
		h := htmlSearch{Title: fmt.Sprintf("Capacity %s: the most IOPS with %s <= %d us", s.Name, s.Target.Percentile, s.Target.Microseconds)}
		var lines []xySeries
		for _, target := range l.order {
			r := results.FindSearch(l.targets[target], s.Name)
			if r == nil {
				continue
			}
			h.Answers = append(h.Answers, searchAnswer{Target: target, Color: colors[target],
				Capacity: results.Decimal(r.CapacityIOPS(), 0), Outcome: string(r.Outcome), Message: r.Message})
			// Steps in order of the load they carried: the curve's shape,
			// not the order the search tried them in.
			steps := append([]results.SearchStep(nil), r.Steps...)
			sort.SliceStable(steps, func(a, b int) bool { return steps[a].AchievedIOPS < steps[b].AchievedIOPS })
			line := xySeries{Name: target, Color: colors[target]}
			for _, st := range steps {
				line.X = append(line.X, st.AchievedIOPS)
				line.Y = append(line.Y, float64(st.AtPercentileNs)/1e6)
				line.Labels = append(line.Labels, stepLabel(st))
			}
			lines = append(lines, line)
		}
		if len(lines) == 0 {
			continue
		}
		h.Curve = xyChart(fmt.Sprintf("%s latency vs IOPS carried, per step", s.Target.Percentile), "IOPS", "ms", lines, true, float64(s.Target.Microseconds)/1000)
		out = append(out, h)
	}
	return out
}

func stepLabel(st results.SearchStep) string {
	if st.OfferedIOPS == 0 {
		return fmt.Sprintf("queue depth %d, unpaced", st.QueueDepth)
	}
	return fmt.Sprintf("%d IOPS offered", st.OfferedIOPS)
}

// seriesCharts are a section's IOPS per second, one chart per cell with a
// line per target, for the cells whose runs kept a time series.
func seriesCharts(l *lookup, colors map[string]string, s section) []template.HTML {
	var charts []template.HTML
	for _, c := range s.columns {
		var lines []xySeries
		for _, target := range l.order {
			rep := l.rep(target, c.Name)
			if !s.runsOn(target) || rep == nil || rep.Series.Len() == 0 {
				continue
			}
			line := xySeries{Name: target, Color: colors[target]}
			for i := 0; i < rep.Series.Len(); i++ {
				line.X = append(line.X, float64((i+1)*int(rep.Series.IntervalSeconds)))
				line.Y = append(line.Y, rep.Series.IOPS(i))
			}
			lines = append(lines, line)
		}
		if len(lines) > 0 {
			charts = append(charts, xyChart(seriesTitle(c), "s", "IOPS", lines, false, math.NaN()))
		}
	}
	return charts
}

func seriesTitle(c sbv1.Cell) string {
	if c.IsMetadata() {
		return fmt.Sprintf("Operations per second over time, %s", c.Metadata.Operation)
	}
	return fmt.Sprintf("IOPS per second (all clients), %d%% read", c.ReadPercent)
}
