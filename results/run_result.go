package results

import (
	"fmt"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// RunResultSchema identifies the layout of a whole run's results, as
// `storagebench run -o json` writes and `storagebench report` reads them.
const RunResultSchema = "storagebench.io/run-result/v1"

// RunResult is a whole benchmark run: the spec, every target's full
// results (the results ConfigMaps' schema) and what they add up to.
type RunResult struct {
	SchemaVersion  string                    `json:"schemaVersion"`
	Benchmark      string                    `json:"benchmark"`
	Namespace      string                    `json:"namespace,omitempty"`
	Generation     int64                     `json:"generation"`
	Spec           sbv1.StorageBenchmarkSpec `json:"spec"`
	StartTime      time.Time                 `json:"startTime"`
	CompletionTime time.Time                 `json:"completionTime"`
	Targets        []*TargetResult           `json:"targets"`
	Outcome
	// Error says why the run failed, when it did; the targets measured
	// before the failure are still reported.
	Error string `json:"error,omitempty"`
}

// DecodeRunResult reads a run's results from a file's bytes (name is the
// file's, for errors): the JSON (see DecodeJSON), the schema, then Check, so
// that what it returns renders.
func DecodeRunResult(name string, data []byte) (*RunResult, error) {
	rr := &RunResult{}
	if err := DecodeJSON(name, data, rr); err != nil {
		return nil, err
	}
	if rr.SchemaVersion != RunResultSchema {
		return nil, fmt.Errorf("%s: schema %q, want %q (written by 'storagebench run -o json')", name, rr.SchemaVersion, RunResultSchema)
	}
	if err := rr.Check(); err != nil {
		return nil, placeInDocument(name, data, err)
	}
	return rr, nil
}

// Outcome is what a run's results add up to: the comparison, the verdict
// and the recommendation. The controller writes it into status; the local
// runner into its output.
type Outcome struct {
	Comparison     *sbv1.Comparison     `json:"comparison,omitempty"`
	Verdict        sbv1.Verdict         `json:"verdict,omitempty"`
	Violations     []sbv1.Violation     `json:"violations,omitempty"`
	Unevaluated    []string             `json:"unevaluated,omitempty"`
	Warnings       []sbv1.Warning       `json:"warnings,omitempty"`
	Recommendation *sbv1.Recommendation `json:"recommendation,omitempty"`
	// CompareTo relates the run to another one (spec.compareTo, or
	// `report --compare`).
	CompareTo *sbv1.RunComparison `json:"compareTo,omitempty"`
	// FailingTargets break a Fail threshold.
	FailingTargets map[string]bool `json:"-"`
}

// Conclude compares the targets, judges the thresholds and recommends a
// target, from every target's results, with no earlier runs.
func Conclude(spec *sbv1.StorageBenchmarkSpec, targets map[string]*TargetResult) Outcome {
	return ConcludeWithHistory(spec, targets, nil)
}

// ConcludeWithHistory is Conclude with the earlier runs (oldest first) the
// drift thresholds compare with.
func ConcludeWithHistory(spec *sbv1.StorageBenchmarkSpec, targets map[string]*TargetResult, history []EarlierRun) Outcome {
	ev := EvaluateWithHistory(spec, targets, history)
	o := Outcome{
		Comparison:     Compare(spec, targets),
		Verdict:        ev.Verdict,
		Violations:     ev.Violations,
		Unevaluated:    ev.Unevaluated,
		Recommendation: Recommend(spec, targets, ev),
		FailingTargets: ev.FailingTargets,
	}
	for i := range o.Comparison.Targets {
		meets := !ev.FailingTargets[o.Comparison.Targets[i].Target]
		o.Comparison.Targets[i].MeetsThresholds = &meets
	}
	for _, t := range spec.Targets {
		if tr := targets[t.Name]; tr != nil {
			o.Warnings = append(o.Warnings, tr.Warnings...)
		}
	}
	o.Warnings = append(o.Warnings, ev.Warnings...)
	return o
}

// Evaluation returns the verdict part of the outcome.
func (o *Outcome) Evaluation() Evaluation {
	return Evaluation{Verdict: o.Verdict, Violations: o.Violations, Unevaluated: o.Unevaluated, FailingTargets: o.FailingTargets}
}
