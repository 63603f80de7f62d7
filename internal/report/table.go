package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/storagebench/storagebench/results"
)

// WriteTable prints the results as text tables: per workload section, one
// column per read percentage and, per target, IOPS, MiB/s and latency of
// reads and writes, the clients' CPU, and the ratio to the baseline; then
// the verdict,
// violations, recommendation and warnings.
func WriteTable(w io.Writer, rr *results.RunResult) error {
	if rr == nil {
		return errNoResults
	}
	l := newLookup(rr)
	b := &strings.Builder{}
	fmt.Fprintf(b, "Benchmark %s: %d target(s), %d cell(s), %d client(s) per target\n",
		rr.Benchmark, len(rr.Spec.Targets), len(rr.Spec.Cells()), rr.Spec.Clients.Count)
	for _, s := range sections(&rr.Spec) {
		fmt.Fprintf(b, "\n%s\n", s.title)
		tw := tabwriter.NewWriter(b, 2, 4, 2, ' ', tabwriter.AlignRight)
		header := []string{"target", "", ""}
		for _, c := range s.columns {
			header = append(header, fmt.Sprintf("%d%% read", c.ReadPercent))
		}
		fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
		for _, target := range l.order {
			rows := [][]string{
				{target, "IOPS", "read/write"},
				{"", "MiB/s", "read/write"},
				{"", "latency ms", "p50/p99"},
				{"", "CPU", "%/us per IO"},
			}
			if rr.Spec.Baseline != "" && target != rr.Spec.Baseline {
				rows = append(rows, []string{"", "vs " + rr.Spec.Baseline, "IOPS/p99"})
			}
			for _, c := range s.columns {
				rep := l.rep(target, c.Name)
				if rep == nil {
					for i := range rows {
						rows[i] = append(rows[i], "n/a")
					}
					continue
				}
				rows[0] = append(rows[0], pair(rate(rep.Read), rate(rep.Write)))
				rows[1] = append(rows[1], pair(mib(rep.Read), mib(rep.Write)))
				t := rep.Totals()
				rows[2] = append(rows[2], pair(ms(float64(t.Latency.P50)), ms(float64(t.Latency.P99))))
				rows[3] = append(rows[3], cpu(rep.CPU))
				if len(rows) > 4 {
					if d, ok := l.delta(target, c.Name); ok {
						rows[4] = append(rows[4], "x"+d.IOPSRatio+"/x"+d.LatencyRatio.P99)
					} else {
						rows[4] = append(rows[4], "-")
					}
				}
			}
			for _, r := range rows {
				fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	writeOutcome(b, rr)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeOutcome(b *strings.Builder, rr *results.RunResult) {
	b.WriteString("\n")
	if rr.Error != "" {
		fmt.Fprintf(b, "Run failed: %s\n", rr.Error)
		return
	}
	verdict := string(rr.Verdict)
	if verdict == "" {
		verdict = "none"
	}
	fmt.Fprintf(b, "Verdict: %s", verdict)
	if len(rr.Spec.Thresholds) == 0 {
		b.WriteString(" (no thresholds)")
	}
	b.WriteString("\n")
	for _, v := range rr.Violations {
		fmt.Fprintf(b, "  %-4s %s on %s, %s: %s = %s (limit %s)\n", v.Severity, v.Threshold, v.Target, v.Cell, v.Metric, v.Measured, v.Limit)
	}
	for _, u := range rr.Unevaluated {
		fmt.Fprintf(b, "  not judged: %s\n", u)
	}
	if r := rr.Recommendation; r != nil {
		fmt.Fprintf(b, "Recommendation: %s (%s)\n", r.Target, r.Reason)
	}
	if len(rr.Warnings) > 0 {
		b.WriteString("Warnings:\n")
		for _, w := range sortedWarnings(rr.Warnings) {
			where := w.Target
			if w.Cell != "" {
				where += "/" + w.Cell
			}
			fmt.Fprintf(b, "  %s (%s): %s\n", w.Reason, where, w.Message)
		}
	}
}

func pair(a, b string) string { return a + "/" + b }

// cpu is a cell's CPU as bonnie++ puts it beside its figures: percent of a
// core per client, and CPU time per IO; "-" where clients reported none.
func cpu(c *results.CPUUsage) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%/%.1f", c.Percent, c.MicrosecondsPerIO)
}

func rate(d *results.DirectionStats) string {
	if d == nil || d.IOs == 0 {
		return "-"
	}
	return results.Decimal(d.IOPS, 0)
}

func mib(d *results.DirectionStats) string {
	if d == nil || d.IOs == 0 {
		return "-"
	}
	return results.Decimal(d.BytesPerSecond/(1<<20), 1)
}

func ms(ns float64) string {
	switch {
	case ns == 0:
		return "-"
	case ns < 1e6:
		return results.Decimal(ns/1e6, 3)
	default:
		return results.Decimal(ns/1e6, 2)
	}
}
