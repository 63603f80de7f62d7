package results

import (
	"errors"
	"fmt"
	"math"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
)

// Results files and results ConfigMaps are untrusted: a user may hand-edit
// or truncate a file, and anything that can write a ConfigMap can write a
// results one. Check is the one gate between decoding them and using them:
// it walks a decoded result once and rejects what Merge cannot have written
// and what the comparison or the renderers cannot use (nulls, indexes out of
// range, impossible counts, undecodable histograms), naming the offending
// value by its JSON path. Whatever passes renders without surprises.

// invalidValue is a value Check rejects, with its JSON path.
type invalidValue struct {
	path    string
	problem string
	err     error // what the problem wraps, if anything (a histogram's decode error)
}

func (e *invalidValue) Error() string {
	if e.path == "" {
		return e.problem
	}
	return e.path + ": " + e.problem
}

func (e *invalidValue) Unwrap() error { return e.err }

// placeInDocument adds where a Check error's value is in the document it was
// decoded from; other errors only get the document's name.
func placeInDocument(name string, data []byte, err error) error {
	var bad *invalidValue
	if !errors.As(err, &bad) {
		return fmt.Errorf("%s: %w", name, err)
	}
	line, col := lineColumn(data, offsetOfPath(data, bad.path))
	return &documentError{name: name, line: line, col: col, path: bad.path, problem: bad.problem, err: err}
}

// checker records the first problem of a walk; once it has one, the walk
// stops descending.
type checker struct{ err error }

func (c *checker) failf(path, format string, args ...any) {
	if c.err == nil {
		c.err = &invalidValue{path: path, problem: fmt.Sprintf(format, args...)}
	}
}

func (c *checker) ok() bool { return c.err == nil }

func (c *checker) named(path, name string) {
	if name == "" {
		c.failf(path, "empty")
	}
}

func (c *checker) nonNegative(path string, v int64) {
	if v < 0 {
		c.failf(path, "%d is negative", v)
	}
}

// rate checks a measured rate or share: a finite number, not negative.
// (JSON cannot spell NaN or infinity, but Check also runs on results built
// in memory.)
func (c *checker) rate(path string, v float64) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		c.failf(path, "%v is not a number", v)
	case v < 0:
		c.failf(path, "%v is negative", v)
	}
}

func (c *checker) histogram(path, encoded string, ios int64) {
	if encoded == "" || !c.ok() {
		return
	}
	h, err := hist.Decode(encoded)
	if err != nil {
		c.err = &invalidValue{path: path, problem: err.Error(), err: err}
		return
	}
	if h.Count() > ios {
		c.failf(path, "holds %d latencies, more than the %d IOs", h.Count(), ios)
	}
}

// Check rejects a run's results that cannot be rendered or cannot be what
// `storagebench run` wrote (see the comment at the top of this file).
func (rr *RunResult) Check() error {
	if rr == nil {
		return &invalidValue{problem: "null"}
	}
	c := &checker{}
	if rr.SchemaVersion != RunResultSchema {
		c.failf("schemaVersion", "%q, want %q", rr.SchemaVersion, RunResultSchema)
	}
	inSpec := c.spec("spec", &rr.Spec)
	seen := map[string]int{}
	for i, tr := range rr.Targets {
		path := jsonIndex("targets", i)
		if !c.ok() {
			break
		}
		if tr == nil {
			c.failf(path, "null")
			break
		}
		c.target(path, tr)
		name := jsonField(path, "target")
		if j, dup := seen[tr.Target]; dup {
			c.failf(name, "%q again: targets[%d] holds its results", tr.Target, j)
		} else if !inSpec[tr.Target] {
			c.failf(name, "%q is not one of spec.targets", tr.Target)
		}
		seen[tr.Target] = i
	}
	c.outcome(&rr.Outcome)
	return c.err
}

// spec checks what rendering a spec relies on: names to look results up
// by, and a matrix small enough to expand (admission bounds it; a file can
// say anything). It returns the spec's target names.
func (c *checker) spec(path string, spec *sbv1.StorageBenchmarkSpec) map[string]bool {
	targets := jsonField(path, "targets")
	if len(spec.Targets) > sbv1.MaxTargets {
		c.failf(targets, "%d targets, at most %d", len(spec.Targets), sbv1.MaxTargets)
		return nil
	}
	names := map[string]bool{}
	for i, t := range spec.Targets {
		name := jsonField(jsonIndex(targets, i), "name")
		c.named(name, t.Name)
		if names[t.Name] {
			c.failf(name, "%q again", t.Name)
		}
		names[t.Name] = true
	}
	if spec.Baseline != "" && !names[spec.Baseline] {
		c.failf(jsonField(path, "baseline"), "%q is not one of spec.targets", spec.Baseline)
	}
	workloads := jsonField(path, "workloads")
	cells := 0
	for i := range spec.Workloads {
		w := &spec.Workloads[i]
		for k, p := range w.ReadPercents {
			if p < 0 || p > 100 {
				c.failf(jsonIndex(jsonField(jsonIndex(workloads, i), "readPercents"), k), "%d is not a percentage", p)
			}
		}
		// Count the cells without expanding them: the lists' product can
		// be astronomic.
		n := len(w.BlockSizes)
		if w.BlockSizeRange != nil {
			n++
		}
		for _, f := range []int{len(w.ReadPercents), max(len(w.QueueDepths), 1), max(len(w.NumJobs), 1)} {
			n = min(n*f, sbv1.MaxCells+1)
		}
		cells = min(cells+n, sbv1.MaxCells+1)
	}
	if cells > sbv1.MaxCells {
		c.failf(workloads, "the matrix expands to more than %d cells", sbv1.MaxCells)
	}
	if !c.ok() {
		return names
	}
	cellNames := map[string]bool{}
	for i := range spec.Workloads {
		for _, cell := range spec.Workloads[i].Cells() {
			if cellNames[cell.Name] {
				c.failf(jsonIndex(workloads, i), "cell %s again (the results of one would hide the other's)", cell.Name)
			}
			cellNames[cell.Name] = true
		}
	}
	return names
}

// outcome checks the comparison, verdict and warnings: lists of entries
// that each need what identifies them (a null entry decodes to an empty
// one).
func (c *checker) outcome(o *Outcome) {
	switch o.Verdict {
	case "", sbv1.VerdictPassed, sbv1.VerdictFailed, sbv1.VerdictInconclusive:
	default:
		c.failf("verdict", "%q is not %s, %s or %s", o.Verdict, sbv1.VerdictPassed, sbv1.VerdictFailed, sbv1.VerdictInconclusive)
	}
	if cmp := o.Comparison; cmp != nil {
		for i, cc := range cmp.Cells {
			path := jsonIndex("comparison.cells", i)
			c.named(jsonField(path, "cell"), cc.Cell)
			for k, name := range cc.ByIOPS {
				c.named(jsonIndex(jsonField(path, "byIOPS"), k), name)
			}
			for k, name := range cc.ByLatencyP99 {
				c.named(jsonIndex(jsonField(path, "byLatencyP99"), k), name)
			}
			for k, d := range cc.VsBaseline {
				p := jsonIndex(jsonField(path, "vsBaseline"), k)
				c.named(jsonField(p, "target"), d.Target)
				c.decimal(jsonField(p, "iopsRatio"), d.IOPSRatio)
				c.decimal(jsonField(p, "bytesPerSecondRatio"), d.BytesPerSecondRatio)
				c.decimal(jsonField(p, "throughputOverheadPercent"), d.ThroughputOverheadPercent)
				c.latencySummary(jsonField(p, "latencyRatio"), d.LatencyRatio)
				c.latencySummary(jsonField(p, "latencyOverheadPercent"), d.LatencyOverheadPercent)
			}
		}
		for i, ts := range cmp.Targets {
			p := jsonIndex("comparison.targets", i)
			c.named(jsonField(p, "target"), ts.Target)
			for _, f := range []struct{ name, value string }{
				{"geomeanIOPSRatio", ts.GeomeanIOPSRatio}, {"geomeanLatencyP99Ratio", ts.GeomeanLatencyP99Ratio},
				{"peakIOPS", ts.PeakIOPS}, {"peakMiBPerSecond", ts.PeakMiBPerSecond},
				{"iopsPerPrice", ts.IOPSPerPrice}, {"miBPerSecondPerPrice", ts.MiBPerSecondPerPrice},
			} {
				if f.value != "" { // these are left out when they do not apply
					c.decimal(jsonField(p, f.name), f.value)
				}
			}
		}
	}
	for i, v := range o.Violations {
		path := jsonIndex("violations", i)
		for _, f := range []struct{ name, value string }{{"threshold", v.Threshold}, {"target", v.Target}, {"cell", v.Cell}, {"metric", v.Metric}} {
			c.named(jsonField(path, f.name), f.value)
		}
		c.decimal(jsonField(path, "limit"), v.Limit)
		c.decimal(jsonField(path, "measured"), v.Measured)
		if v.Severity != sbv1.SeverityFail && v.Severity != sbv1.SeverityWarn {
			c.failf(jsonField(path, "severity"), "%q is not %s or %s", v.Severity, sbv1.SeverityFail, sbv1.SeverityWarn)
		}
	}
	for i, u := range o.Unevaluated {
		c.named(jsonIndex("unevaluated", i), u)
	}
	c.warnings("warnings", o.Warnings)
	if r := o.Recommendation; r != nil {
		c.named("recommendation.target", r.Target)
	}
}

// decimal checks a number of the comparison: a decimal as Decimal writes
// it, which the report prints and parses.
func (c *checker) decimal(path, s string) {
	if !isDecimal(s) {
		c.failf(path, "%q is not a decimal number", s)
	}
}

func (c *checker) latencySummary(path string, l sbv1.LatencySummary) {
	for _, f := range []struct{ name, value string }{{"mean", l.Mean}, {"p50", l.P50}, {"p90", l.P90}, {"p99", l.P99}, {"p999", l.P999}, {"max", l.Max}} {
		c.decimal(jsonField(path, f.name), f.value)
	}
}

// isDecimal matches -?[0-9]+(\.[0-9]+)?, Decimal's output.
func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, fraction, dot := strings.Cut(s, ".")
	digits := func(d string) bool { return d != "" && strings.Trim(d, "0123456789") == "" }
	return digits(whole) && (!dot || digits(fraction))
}

func (c *checker) warnings(path string, warnings []sbv1.Warning) {
	for i, w := range warnings {
		c.named(jsonField(jsonIndex(path, i), "reason"), w.Reason)
	}
}
