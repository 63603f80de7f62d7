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
