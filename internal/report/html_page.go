package report

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// page is what the HTML template shows.
type page struct {
	RR        *results.RunResult
	Generated string
	Targets   []targetRow
	Sections  []htmlSection
	Searches  []htmlSearch
	Warnings  []sbv1.Warning
}

type targetRow struct {
	Name, Color, Storage, Price, Backend, Nodes, Bound string
}

type htmlSection struct {
	Title     string
	IOPS      template.HTML
	Bandwidth template.HTML
	Ratio     template.HTML
	Latency   []template.HTML
	Series    []template.HTML
	Table     [][]string
}

func newPage(rr *results.RunResult) *page {
	l := newLookup(rr)
	p := &page{RR: rr, Generated: time.Now().UTC().Format(time.RFC3339), Warnings: sortedWarnings(rr.Warnings)}
	colors := map[string]string{}
	for i, t := range rr.Spec.Targets {
		colors[t.Name] = palette[i%len(palette)]
		row := targetRow{Name: t.Name, Color: colors[t.Name], Storage: storageOf(&t)}
		if t.Price != nil {
			row.Price = fmt.Sprintf("%s %s / %s", t.Price.Amount, t.Price.Currency, t.Price.Period)
		}
		if tr := l.targets[t.Name]; tr != nil {
			row.Backend = results.BackendList(tr.Backends)
			if tr.Environment != nil {
				for _, n := range tr.Environment.Nodes {
					row.Nodes += fmt.Sprintf("%s (%d client(s), kernel %s) ", n.Name, n.Clients, n.KernelVersion)
				}
			}
			if tr.Timings.VolumesBoundMilliseconds > 0 {
				row.Bound = fmt.Sprintf("%d ms", tr.Timings.VolumesBoundMilliseconds)
			}
		}
		p.Targets = append(p.Targets, row)
	}
	for _, s := range sections(&rr.Spec) {
		p.Sections = append(p.Sections, buildSection(rr, l, colors, s))
	}
	p.Searches = buildSearches(rr, l, colors)
	return p
}

func storageOf(t *sbv1.Target) string {
	switch {
	case t.StorageClassName != nil && t.Size != nil:
		return fmt.Sprintf("class %s, %s, %s, %s", *t.StorageClassName, t.Size.String(), t.AccessMode, t.VolumeMode)
	case t.ExistingClaimName != nil:
		return "claim " + *t.ExistingClaimName
	}
	return ""
}

func buildSection(rr *results.RunResult, l *lookup, colors map[string]string, s section) htmlSection {
	var labels []string
	for _, c := range s.columns {
		labels = append(labels, columnLabel(c))
	}
	var iops, bw, ratio []series
	for _, target := range l.order {
		if !s.runsOn(target) {
			continue
		}
		si := series{Name: target, Color: colors[target]}
		sb := si
		sr := si
		for _, c := range s.columns {
			rep := l.rep(target, c.Name)
			if rep == nil {
				si.Values, sb.Values, sr.Values = append(si.Values, math.NaN()), append(sb.Values, math.NaN()), append(sr.Values, math.NaN())
				continue
			}
			t := rep.Totals()
			si.Values = append(si.Values, t.IOPS)
			sb.Values = append(sb.Values, t.BytesPerSecond/(1<<20))
			if d, ok := l.delta(target, c.Name); ok {
				sr.Values = append(sr.Values, parseDecimal(d.IOPSRatio))
			} else {
				sr.Values = append(sr.Values, math.NaN())
			}
		}
		iops, bw = append(iops, si), append(bw, sb)
		if rr.Spec.Baseline != "" && target != rr.Spec.Baseline {
			ratio = append(ratio, sr)
		}
	}
	h := htmlSection{
		Title:     s.title,
		IOPS:      barChart("IOPS (reads + writes, all clients)", "IOPS", labels, iops, math.NaN()),
		Bandwidth: barChart("Throughput (all clients)", "MiB/s", labels, bw, math.NaN()),
	}
	if s.metadata {
		h.IOPS = barChart("Operations per second (all clients)", "ops/s", labels, iops, math.NaN())
		if s.columns[0].Metadata.FileSizeBytes == 0 {
			h.Bandwidth = "" // empty files move no data
		}
	}
	if len(ratio) > 0 {
		h.Ratio = barChart(map[bool]string{false: "IOPS", true: "Operations per second"}[s.metadata]+" relative to "+rr.Spec.Baseline, "ratio", labels, ratio, 1)
	}
	percentiles := []string{"p50", "p90", "p99", "p99.9", "max"}
	for _, c := range s.columns {
		var lat []series
		for _, target := range l.order {
			if !s.runsOn(target) {
				continue
			}
			rep := l.rep(target, c.Name)
			if rep == nil {
				continue
			}
			t := rep.Totals().Latency
			lat = append(lat, series{Name: target, Color: colors[target], Values: []float64{
				float64(t.P50) / 1e6, float64(t.P90) / 1e6, float64(t.P99) / 1e6, float64(t.P999) / 1e6, float64(t.Max) / 1e6,
			}})
		}
		title := fmt.Sprintf("Latency, %d%% read (all IOs)", c.ReadPercent)
		if c.IsMetadata() {
			title = fmt.Sprintf("Latency, %s (all operations)", c.Metadata.Operation)
		}
		h.Latency = append(h.Latency, lineChart(title, "ms", percentiles, lat))
	}
	h.Series = seriesCharts(l, colors, s)
	h.Table = sectionTable(l, s)
	return h
}

// sectionTable is the section's numbers as the terminal table has them: a
// column group per cell, one column per line of the table (but the
// baseline's, which the ratio chart shows).
func sectionTable(l *lookup, s section) [][]string {
	var rows []tableRow
	for _, r := range tableRows(s) {
		if r.label != "vs" {
			rows = append(rows, r)
		}
	}
	header := []string{"target"}
	for _, c := range s.columns {
		for k, r := range rows {
			name := r.label + " " + r.unit
			if k == 0 {
				name = columnLabel(c) + ": " + name
			}
			header = append(header, name)
		}
	}
	table := [][]string{header}
	for _, target := range l.order {
		if !s.runsOn(target) {
			continue
		}
		line := []string{target}
		for _, c := range s.columns {
			rep := l.rep(target, c.Name)
			for _, r := range rows {
				if rep == nil {
					line = append(line, "n/a")
					continue
				}
				line = append(line, r.value(rep, sbv1.BaselineDelta{}, false))
			}
		}
		table = append(table, line)
	}
	return table
}

// parseDecimal reads a number of the comparison (a decimal string); NaN,
// which the charts leave out, for anything else.
func parseDecimal(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>storagebench: {{.RR.Benchmark}}</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px;margin-bottom:4px} h2{font-size:17px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;font-size:13px;margin:8px 0} td,th{border:1px solid #ddd;padding:3px 8px;text-align:right} th{background:#f4f4f4} td:first-child,th:first-child{text-align:left}
.badge{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;font-weight:600}
.Passed{background:#2ca02c}.Failed{background:#d62728}.Inconclusive{background:#ff7f0e}.none{background:#7f7f7f}
.charts{display:flex;flex-wrap:wrap;gap:12px}
svg{background:#fff;border:1px solid #eee} svg .title{font-size:13px;font-weight:600} svg .xl{font-size:11px;text-anchor:middle}
svg .yl{font-size:10px;text-anchor:end} svg .unit{font-size:10px} svg .lg{font-size:11px} svg .grid{stroke:#eee} svg .ref{stroke:#444;stroke-dasharray:4 3}
.swatch{display:inline-block;width:10px;height:10px;margin-right:6px}
.muted{color:#777;font-size:12px} .targets td,.targets th{text-align:left}
</style></head><body>
<h1>storagebench: {{.RR.Benchmark}}</h1>
<div class="muted">generation {{.RR.Generation}} · {{.RR.StartTime.UTC.Format "2006-01-02 15:04:05"}} to {{.RR.CompletionTime.UTC.Format "15:04:05"}} UTC · report generated {{.Generated}}</div>
{{if .RR.Error}}<p><span class="badge Failed">Run failed</span> {{.RR.Error}}</p>{{else}}
<p>Verdict: <span class="badge {{if .RR.Verdict}}{{.RR.Verdict}}{{else}}none{{end}}">{{if .RR.Verdict}}{{.RR.Verdict}}{{else}}none{{end}}</span>
{{with .RR.Recommendation}} · Recommendation: <b>{{.Target}}</b> <span class="muted">({{.Reason}})</span>{{end}}</p>{{end}}
<h2>Targets</h2>
<table class="targets"><tr><th>target</th><th>storage</th><th>price</th><th>engine backend</th><th>nodes</th><th>bound in</th></tr>
{{range .Targets}}<tr><td><span class="swatch" style="background:{{.Color}}"></span>{{.Name}}</td><td>{{.Storage}}</td><td>{{.Price}}</td><td>{{.Backend}}</td><td>{{.Nodes}}</td><td>{{.Bound}}</td></tr>
{{end}}</table>
{{range .Sections}}<h2>{{.Title}}</h2>
<div class="charts">{{.IOPS}}{{.Bandwidth}}{{if .Ratio}}{{.Ratio}}{{end}}</div>
<div class="charts">{{range .Latency}}{{.}}{{end}}</div>
{{if .Series}}<div class="charts">{{range .Series}}{{.}}{{end}}</div>{{end}}
<table>{{range $i, $row := .Table}}<tr>{{range $row}}{{if eq $i 0}}<th>{{.}}</th>{{else}}<td>{{.}}</td>{{end}}{{end}}</tr>{{end}}</table>
{{end}}
{{range .Searches}}<h2>{{.Title}}</h2>
<div class="charts">{{.Curve}}</div>
<table><tr><th>target</th><th>capacity IOPS</th><th>outcome</th><th>answer</th></tr>
{{range .Answers}}<tr><td><span class="swatch" style="background:{{.Color}}"></span>{{.Target}}</td><td>{{.Capacity}}</td><td>{{.Outcome}}</td><td style="text-align:left">{{.Message}}</td></tr>{{end}}
</table>{{end}}
{{with .RR.CompareTo}}<h2>Compared with another run</h2>
<p class="muted">{{.Source}}; ratios are this run / that run, for the same target and cell.</p>
<table><tr><th>target</th><th>cells matched</th><th>geomean IOPS ratio</th><th>geomean p99 ratio</th></tr>
{{range .Targets}}<tr><td>{{.Target}}</td><td>{{.MatchedCells}}</td><td>{{.GeomeanIOPSRatio}}</td><td>{{.GeomeanLatencyP99Ratio}}</td></tr>{{end}}
</table>
<table><tr><th>target</th><th>cell</th><th>IOPS ratio</th><th>MiB/s ratio</th><th>p99 ratio</th><th>throughput overhead %</th></tr>
{{range .Cells}}<tr><td>{{.Delta.Target}}</td><td>{{.Cell}}</td><td>{{.Delta.IOPSRatio}}</td><td>{{.Delta.BytesPerSecondRatio}}</td><td>{{.Delta.LatencyRatio.P99}}</td><td>{{.Delta.ThroughputOverheadPercent}}</td></tr>{{end}}
</table>
{{if .Unmatched}}<p>Not compared (no counterpart): {{range $i, $u := .Unmatched}}{{if $i}}; {{end}}{{$u}}{{end}}</p>{{end}}{{end}}
{{if .RR.Violations}}<h2>Threshold violations</h2>
<table><tr><th>threshold</th><th>severity</th><th>target</th><th>cell</th><th>metric</th><th>limit</th><th>measured</th><th>then</th><th>now</th></tr>
{{range .RR.Violations}}<tr><td>{{.Threshold}}</td><td>{{.Severity}}</td><td>{{.Target}}</td><td>{{.Cell}}</td><td>{{.Metric}}</td><td>{{.Limit}}</td><td>{{.Measured}}</td><td>{{.ReferenceValue}}</td><td>{{.Value}}</td></tr>{{end}}
</table>{{end}}
{{if .Warnings}}<h2>Warnings</h2><ul>{{range .Warnings}}<li><b>{{.Reason}}</b> {{.Target}}{{if .Cell}}/{{.Cell}}{{end}}: {{.Message}}</li>{{end}}</ul>{{end}}
</body></html>
`))
