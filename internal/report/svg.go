package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// palette colours targets in the order of the spec, the same in every chart.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"}

type series struct {
	Name   string
	Color  string
	Values []float64 // NaN: no value
}

const (
	chartWidth  = 520
	chartHeight = 240
	marginLeft  = 64
	marginRight = 12
	marginTop   = 28
	marginBot   = 40
)

// barChart draws grouped bars: one group per x label, one bar per series.
// reference, when not NaN, draws a dashed line at that value (1.0 for
// ratios).
func barChart(title, unit string, labels []string, ss []series, reference float64) template.HTML {
	maxV := 0.0
	for _, s := range ss {
		for _, v := range s.Values {
			if plottable(v) {
				maxV = math.Max(maxV, v)
			}
		}
	}
	if !math.IsNaN(reference) {
		maxV = math.Max(maxV, reference)
	}
	top := niceCeil(maxV)
	var b strings.Builder
	open(&b, title)
	plotW := float64(chartWidth - marginLeft - marginRight)
	plotH := float64(chartHeight - marginTop - marginBot)
	yAxis(&b, top, unit, false, 0)
	groupW := plotW / float64(max(len(labels), 1))
	barW := groupW * 0.8 / float64(max(len(ss), 1))
	for g, label := range labels {
		x0 := float64(marginLeft) + groupW*float64(g) + groupW*0.1
		for i, s := range ss {
			if g >= len(s.Values) || !plottable(s.Values[g]) {
				continue
			}
			h := 0.0
			if top > 0 {
				h = s.Values[g] / top * plotH
			}
			x := x0 + barW*float64(i)
			y := float64(marginTop) + plotH - h
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s %s</title></rect>`,
				x, y, math.Max(barW-1, 1), h, s.Color, esc(s.Name), esc(label), formatValue(s.Values[g]), esc(unit))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="xl">%s</text>`, x0+groupW*0.4, chartHeight-marginBot+16, esc(label))
	}
	if !math.IsNaN(reference) && top > 0 {
		y := float64(marginTop) + plotH - reference/top*plotH
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="ref"/>`, marginLeft, chartWidth-marginRight, y, y)
	}
	legend(&b, ss)
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// lineChart draws one line per series over categorical x labels, on a
// logarithmic y axis (latency percentiles span orders of magnitude).
func lineChart(title, unit string, labels []string, ss []series) template.HTML {
	lo, hi := math.Inf(1), 0.0
	for _, s := range ss {
		for _, v := range s.Values {
			if v > 0 && plottable(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	var b strings.Builder
	open(&b, title)
	if hi == 0 {
		b.WriteString(`<text x="20" y="60">no data</text></svg>`)
		return template.HTML(b.String())
	}
	minExp, maxExp := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if maxExp == minExp {
		maxExp++
	}
	plotW := float64(chartWidth - marginLeft - marginRight)
	plotH := float64(chartHeight - marginTop - marginBot)
	yAxis(&b, maxExp, unit, true, minExp)
	step := plotW / float64(max(len(labels)-1, 1))
	for i, label := range labels {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="xl">%s</text>`, float64(marginLeft)+step*float64(i), chartHeight-marginBot+16, esc(label))
	}
	for _, s := range ss {
		var pts []string
		for i, v := range s.Values {
			if v <= 0 || !plottable(v) {
				continue
			}
			x := float64(marginLeft) + step*float64(i)
			y := float64(marginTop) + plotH - (math.Log10(v)-minExp)/(maxExp-minExp)*plotH
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %s: %s %s</title></circle>`, x, y, s.Color, esc(s.Name), esc(labels[i]), formatValue(v), esc(unit))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, s.Color, strings.Join(pts, " "))
	}
	legend(&b, ss)
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

func open(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		chartWidth, chartHeight, chartWidth, chartHeight, esc(title))
	fmt.Fprintf(b, `<text x="%d" y="16" class="title">%s</text>`, marginLeft, esc(title))
}

// yAxis draws gridlines: linear 0..top in 4 steps, or log decades.
func yAxis(b *strings.Builder, top float64, unit string, log bool, minExp float64) {
	plotH := float64(chartHeight - marginTop - marginBot)
	steps := 4
	if log {
		steps = int(top - minExp)
	}
	for i := 0; i <= steps; i++ {
		y := float64(marginTop) + plotH - plotH*float64(i)/float64(steps)
		v := top / float64(steps) * float64(i) // top * i could overflow
		if log {
			v = math.Pow(10, minExp+float64(i))
		}
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, marginLeft, chartWidth-marginRight, y, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" class="yl">%s</text>`, marginLeft-6, y+4, formatValue(v))
	}
	fmt.Fprintf(b, `<text x="4" y="%d" class="unit">%s</text>`, marginTop-6, esc(unit))
}

func legend(b *strings.Builder, ss []series) {
	x := marginLeft
	for _, s := range ss {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" class="lg">%s</text>`,
			x, chartHeight-14, s.Color, x+14, chartHeight-5, esc(s.Name))
		x += 24 + 7*len(s.Name)
	}
}

// plottable says whether a chart can place a value: NaN means no value,
// and an infinity has no place on an axis.
func plottable(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// niceCeil rounds up to 1, 2 or 5 times a power of ten (never to infinity,
// near the largest float64).
func niceCeil(v float64) float64 {
	if v <= 0 || !plottable(v) {
		return 1
	}
	exp := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*exp && !math.IsInf(m*exp, 0) {
			return m * exp
		}
	}
	return v
}

func formatValue(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.3g", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func esc(s string) string { return html.EscapeString(s) }
