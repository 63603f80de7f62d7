package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// xySeries is one line of points with numeric x.
type xySeries struct {
	Name   string
	Color  string
	X, Y   []float64
	Labels []string // per point, for the tooltip; may be nil
}

// xyChart draws lines over a numeric x axis (linear from 0), with a linear
// or logarithmic y axis, and a dashed line at reference (NaN: none): the
// latency-vs-IOPS curve of a search, with its bound, and IOPS per second.
func xyChart(title, xUnit, yUnit string, ss []xySeries, logY bool, reference float64) template.HTML {
	xMax, yLo, yHi := 0.0, math.Inf(1), 0.0
	for _, s := range ss {
		for i := range s.X {
			if i >= len(s.Y) || !plottable(s.X[i]) || !plottable(s.Y[i]) || (logY && s.Y[i] <= 0) {
				continue
			}
			xMax = math.Max(xMax, s.X[i])
			yLo, yHi = math.Min(yLo, s.Y[i]), math.Max(yHi, s.Y[i])
		}
	}
	if plottable(reference) && reference > 0 {
		yLo, yHi = math.Min(yLo, reference), math.Max(yHi, reference)
	}
	var b strings.Builder
	open(&b, title)
	if yHi == 0 || xMax == 0 {
		b.WriteString(`<text x="20" y="60">no data</text></svg>`)
		return template.HTML(b.String())
	}
	plotW := float64(chartWidth - marginLeft - marginRight)
	plotH := float64(chartHeight - marginTop - marginBot)
	xTop := niceCeil(xMax)
	var yOf func(v float64) float64
	if logY {
		minExp, maxExp := math.Floor(math.Log10(yLo)), math.Ceil(math.Log10(yHi))
		if maxExp == minExp {
			maxExp++
		}
		yAxis(&b, maxExp, yUnit, true, minExp)
		yOf = func(v float64) float64 {
			return float64(marginTop) + plotH - (math.Log10(v)-minExp)/(maxExp-minExp)*plotH
		}
	} else {
		top := niceCeil(yHi)
		yAxis(&b, top, yUnit, false, 0)
		yOf = func(v float64) float64 { return float64(marginTop) + plotH - v/top*plotH }
	}
	xOf := func(v float64) float64 { return float64(marginLeft) + v/xTop*plotW }
	for i := 0; i <= 4; i++ {
		v := xTop * float64(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="xl">%s</text>`, xOf(v), chartHeight-marginBot+16, formatValue(v))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="unit">%s</text>`, chartWidth-marginRight-60, chartHeight-6, esc(xUnit))
	if plottable(reference) && reference > 0 {
		y := yOf(reference)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="ref"><title>bound: %s %s</title></line>`,
			marginLeft, chartWidth-marginRight, y, y, formatValue(reference), esc(yUnit))
	}
	legendSeries := make([]series, 0, len(ss))
	for _, s := range ss {
		var pts []string
		for i := range s.X {
			if i >= len(s.Y) || !plottable(s.X[i]) || !plottable(s.Y[i]) || (logY && s.Y[i] <= 0) {
				continue
			}
			x, y := xOf(s.X[i]), yOf(s.Y[i])
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			label := ""
			if i < len(s.Labels) {
				label = s.Labels[i] + ": "
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s %s%s %s at %s %s</title></circle>`,
				x, y, s.Color, esc(s.Name), esc(label), formatValue(s.Y[i]), esc(yUnit), formatValue(s.X[i]), esc(xUnit))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, s.Color, strings.Join(pts, " "))
		legendSeries = append(legendSeries, series{Name: s.Name, Color: s.Color})
	}
	legend(&b, legendSeries)
	b.WriteString("</svg>")
	return template.HTML(b.String())
}
