package results

import (
	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Check rejects a run's results that cannot be rendered or cannot be what
// `storagebench run` wrote (see check.go).
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
		factors := []int{len(w.ReadPercents), max(len(w.QueueDepths), 1), max(len(w.NumJobs), 1)}
		if m := w.Metadata; m != nil {
			n, factors = len(m.Operations), []int{max(len(w.NumJobs), 1)}
			metadata := jsonField(jsonIndex(workloads, i), "metadata")
			if m.FilesPerJob < 0 || m.FilesPerJob > sbv1.MaxMetadataFiles {
				c.failf(jsonField(metadata, "filesPerJob"), "%d is outside 1..%d", m.FilesPerJob, sbv1.MaxMetadataFiles)
			}
			if m.FileSize != nil && (m.FileSize.Bytes() < 0 || m.FileSize.Bytes() > sbv1.MaxMetadataFileSize) {
				c.failf(jsonField(metadata, "fileSize"), "%s is outside 0..64Mi", *m.FileSize)
			}
		}
		for _, f := range factors {
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

func (c *checker) warnings(path string, warnings []sbv1.Warning) {
	for i, w := range warnings {
		c.named(jsonField(jsonIndex(path, i), "reason"), w.Reason)
	}
}
