package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
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
	searches := ""
	if n := len(rr.Spec.Searches()); n > 0 {
		searches = fmt.Sprintf(", %d capacity search(es)", n)
	}
	fmt.Fprintf(b, "Benchmark %s: %d target(s), %d cell(s)%s, %d client(s) per target\n",
		rr.Benchmark, len(rr.Spec.Targets), len(rr.Spec.Cells()), searches, rr.Spec.Clients.Count)
	for _, s := range sections(&rr.Spec) {
		fmt.Fprintf(b, "\n%s\n", s.title)
		tw := tabwriter.NewWriter(b, 2, 4, 2, ' ', tabwriter.AlignRight)
		header := []string{"target", "", ""}
		for _, c := range s.columns {
			header = append(header, columnLabel(c))
		}
		fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
		rows := tableRows(s)
		for _, target := range l.order {
			if !s.runsOn(target) {
				continue
			}
			first := target
			for _, row := range rows {
				if row.label == "vs" && (rr.Spec.Baseline == "" || target == rr.Spec.Baseline) {
					continue
				}
				label := row.label
				if label == "vs" {
					label = "vs " + rr.Spec.Baseline
				}
				cells := []string{first, label, row.unit}
				first = ""
				for _, c := range s.columns {
					rep := l.rep(target, c.Name)
					if rep == nil {
						cells = append(cells, "n/a")
						continue
					}
					d, ok := l.delta(target, c.Name)
					cells = append(cells, row.value(rep, d, ok))
				}
				fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := writeSearches(b, rr, l); err != nil {
		return err
	}
	if err := writeNodeTotals(b, rr, l); err != nil {
		return err
	}
	writeOutcome(b, rr)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeNodeTotals prints, for targets whose clients ran on more than one
// node, each cell's IOPS and MiB/s per node (they add up to the cell's).
func writeNodeTotals(b *strings.Builder, rr *results.RunResult, l *lookup) error {
	var tw *tabwriter.Writer
	for _, target := range l.order {
		tr := l.targets[target]
		for _, cell := range rr.Spec.Cells() {
			rep := l.rep(target, cell.Name)
			if rep == nil {
				continue
			}
			nodes := tr.NodeTotals(rep)
			if len(nodes) < 2 {
				continue
			}
			if tw == nil {
				b.WriteString("\nPer node (clients spread over nodes; the nodes add up to the cell):\n")
				tw = tabwriter.NewWriter(b, 2, 4, 2, ' ', tabwriter.AlignRight)
				fmt.Fprintln(tw, "  target\tcell\tnode\tclients\tread IOPS\twrite IOPS\tread MiB/s\twrite MiB/s\t")
			}
			for _, n := range nodes {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%.0f\t%.0f\t%.1f\t%.1f\t\n", target, cell.Name, n.Node, len(n.Clients),
					n.ReadIOPS, n.WriteIOPS, n.ReadBytesPerSecond/(1<<20), n.WriteBytesPerSecond/(1<<20))
			}
		}
	}
	if tw == nil {
		return nil
	}
	return tw.Flush()
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
	writeRunComparison(b, rr.CompareTo)
	fmt.Fprintf(b, "Verdict: %s", verdict)
	if len(rr.Spec.Thresholds) == 0 {
		b.WriteString(" (no thresholds)")
	}
	b.WriteString("\n")
	for _, v := range rr.Violations {
		fmt.Fprintf(b, "  %-4s %s on %s, %s: %s = %s (limit %s)", v.Severity, v.Threshold, v.Target, v.Cell, v.Metric, v.Measured, v.Limit)
		if v.ReferenceValue != "" {
			fmt.Fprintf(b, ", then %s, now %s", v.ReferenceValue, v.Value)
		}
		b.WriteString("\n")
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

// maxUnmatchedShown bounds the unmatched pairs the table names.
const maxUnmatchedShown = 10

// writeRunComparison prints the comparison with another run: per target
// the geometric means over matched cells, per cell the ratios (this run /
// the other), and what did not match.
func writeRunComparison(b *strings.Builder, rc *sbv1.RunComparison) {
	if rc == nil {
		return
	}
	fmt.Fprintf(b, "Compared with %s (ratios: this run / that run):\n", rc.Source)
	tw := tabwriter.NewWriter(b, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  target\tcell\tIOPS\tMiB/s\tp99\tthroughput overhead %\t")
	for _, t := range rc.Targets {
		fmt.Fprintf(tw, "  %s\t(%d matched)\t%s\t\t%s\t\t\n", t.Target, t.MatchedCells, orDash(t.GeomeanIOPSRatio), orDash(t.GeomeanLatencyP99Ratio))
		for _, c := range rc.Cells {
			if c.Delta.Target == t.Target {
				fmt.Fprintf(tw, "  \t%s\t%s\t%s\t%s\t%s\t\n", c.Cell, c.Delta.IOPSRatio, c.Delta.BytesPerSecondRatio, c.Delta.LatencyRatio.P99, c.Delta.ThroughputOverheadPercent)
			}
		}
	}
	_ = tw.Flush()
	if n := len(rc.Unmatched); n > 0 {
		shown := rc.Unmatched[:min(n, maxUnmatchedShown)]
		fmt.Fprintf(b, "  not compared (%d, no counterpart): %s", n, strings.Join(shown, "; "))
		if n > len(shown) {
			b.WriteString("; ...")
		}
		b.WriteString("\n")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tableRow is one line of a target's block in a section: a label, a unit
// and how a cell shows it.
type tableRow struct {
	label, unit string
	value       func(rep *results.RepetitionResult, d sbv1.BaselineDelta, hasDelta bool) string
}

// tableRows are an IO section's lines (IOPS, MiB/s, latency, CPU) or a
// Metadata section's (operations per second, latency, CPU, and MiB/s where
// files hold data); "vs" is the line against the baseline.
func tableRows(s section) []tableRow {
	latency := tableRow{"latency ms", "p50/p99", func(rep *results.RepetitionResult, _ sbv1.BaselineDelta, _ bool) string {
		t := rep.Totals()
		return pair(ms(float64(t.Latency.P50)), ms(float64(t.Latency.P99)))
	}}
	vs := tableRow{"vs", "IOPS/p99", func(_ *results.RepetitionResult, d sbv1.BaselineDelta, ok bool) string {
		if !ok {
			return "-"
		}
		return "x" + d.IOPSRatio + "/x" + d.LatencyRatio.P99
	}}
	if s.metadata {
		vs.unit = "ops/p99"
		rows := []tableRow{
			{"ops/s", "all clients", func(rep *results.RepetitionResult, _ sbv1.BaselineDelta, _ bool) string { return rate(rep.Read) }},
			latency,
			{"CPU", "%/us per op", func(rep *results.RepetitionResult, _ sbv1.BaselineDelta, _ bool) string { return cpu(rep.CPU) }},
		}
		if len(s.columns) > 0 && s.columns[0].Metadata.FileSizeBytes > 0 {
			rows = append(rows, tableRow{"MiB/s", "data", func(rep *results.RepetitionResult, _ sbv1.BaselineDelta, _ bool) string {
				if rep.Read == nil || rep.Read.Bytes == 0 {
					return "-"
				}
				return mib(rep.Read)
			}})
		}
		return append(rows, vs)
	}
	return []tableRow{
		{"IOPS", "read/write", func(rep *results.RepetitionResult, _ sbv1.BaselineDelta, _ bool) string {
			return pair(rate(rep.Read), rate(rep.Write))
		}},
		{"MiB/s", "read/write", func(rep *results.RepetitionResult, _ sbv1.BaselineDelta, _ bool) string {
			return pair(mib(rep.Read), mib(rep.Write))
		}},
		latency,
		{"CPU", "%/us per IO", func(rep *results.RepetitionResult, _ sbv1.BaselineDelta, _ bool) string { return cpu(rep.CPU) }},
		vs,
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
