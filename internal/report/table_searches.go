package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/storagebench/storagebench/results"
)

// writeSearches prints each capacity search: per target, the capacity it
// found and the curve of its steps (offered load, what was carried, and
// the latency percentiles), so the knee shows in a terminal too.
func writeSearches(b *strings.Builder, rr *results.RunResult, l *lookup) error {
	for _, s := range rr.Spec.Searches() {
		tw := (*tabwriter.Writer)(nil)
		var answers []string
		for _, target := range l.order {
			r := results.FindSearch(l.targets[target], s.Name)
			if r == nil {
				continue
			}
			if tw == nil {
				fmt.Fprintf(b, "\nCapacity %s: the most IOPS with %s <= %d us (vary %s)\n", s.Name, s.Target.Percentile, s.Target.Microseconds, s.Target.Vary)
				tw = tabwriter.NewWriter(b, 2, 4, 2, ' ', tabwriter.AlignRight)
				fmt.Fprintln(tw, "  target\tstep\toffered IOPS\tqd\tIOPS\tMiB/s\tp50 us\tp99 us\tp99.9 us\t")
			}
			for _, st := range r.Steps {
				offered := "unpaced"
				if st.OfferedIOPS > 0 {
					offered = fmt.Sprint(st.OfferedIOPS)
				}
				verdict := "holds"
				if !st.Passed {
					verdict = "fails: " + st.Why
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%.0f\t%.1f\t%s\t%s\t%s\t  %s\n", target, strings.TrimPrefix(st.Cell, s.Name+"-"), offered, st.QueueDepth,
					st.AchievedIOPS, st.BytesPerSecond/(1<<20), microseconds(st.P50Ns), microseconds(st.P99Ns), microseconds(st.P999Ns), verdict)
			}
			answers = append(answers, fmt.Sprintf("  %s: %s IOPS, %s: %s\n", target, results.Decimal(r.CapacityIOPS(), 0), r.Outcome, r.Message))
		}
		if tw != nil {
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		for _, a := range answers {
			b.WriteString(a)
		}
	}
	return nil
}

func microseconds(ns int64) string { return results.Decimal(float64(ns)/1000, 1) }
