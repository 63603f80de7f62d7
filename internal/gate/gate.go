// Package gate waits for a StorageBenchmark to complete and turns its
// outcome into an exit status, for CI pipelines and job-based analysis
// (Argo Rollouts, Kargo).
package gate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Exit codes.
const (
	Passed   = 0 // every Fail threshold holds
	Failed   = 1 // a Fail threshold is broken
	NotRun   = 2 // the run failed, timed out, or its thresholds could not be judged
	BadUsage = 3 // no such benchmark, bad flags
)

// ErrNotFound means the benchmark does not exist.
var ErrNotFound = errors.New("benchmark not found")

// Wait polls the benchmark until the run for its current generation has
// completed (the Completed condition is True for that generation), or ctx
// ends. It returns the last benchmark read.
func Wait(ctx context.Context, c client.Reader, key client.ObjectKey, poll time.Duration) (*sbv1.StorageBenchmark, error) {
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	var last *sbv1.StorageBenchmark
	for {
		b := &sbv1.StorageBenchmark{}
		err := c.Get(ctx, key, b)
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
		case err == nil:
			last = b
			if Completed(b) {
				return b, nil
			}
		case ctx.Err() != nil:
			return last, ctx.Err()
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-ticker.C:
		}
	}
}

// Completed reports whether the run for the benchmark's current spec ended.
func Completed(b *sbv1.StorageBenchmark) bool {
	c := meta.FindStatusCondition(b.Status.Conditions, sbv1.ConditionCompleted)
	return b.Status.ObservedGeneration == b.Generation && c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == b.Generation
}

// Outcome turns a completed benchmark into an exit code and a summary.
func Outcome(b *sbv1.StorageBenchmark) (int, string) {
	var out strings.Builder
	fmt.Fprintf(&out, "StorageBenchmark %s/%s generation %d: ", b.Namespace, b.Name, b.Generation)
	stalled := meta.FindStatusCondition(b.Status.Conditions, sbv1.ConditionStalled)
	code := NotRun
	switch {
	case b.Status.Verdict == sbv1.VerdictPassed:
		code = Passed
		out.WriteString("verdict Passed")
	case b.Status.Verdict == sbv1.VerdictFailed:
		code = Failed
		out.WriteString("verdict Failed")
	case b.Status.Verdict == sbv1.VerdictInconclusive:
		out.WriteString("verdict Inconclusive")
	default:
		out.WriteString("run failed")
	}
	if stalled != nil && stalled.Status == metav1.ConditionTrue {
		fmt.Fprintf(&out, " (%s: %s)", stalled.Reason, stalled.Message)
	}
	out.WriteString("\n")
	for _, v := range b.Status.Violations {
		fmt.Fprintf(&out, "  %-4s %s on %s, %s: %s = %s (limit %s)\n", v.Severity, v.Threshold, v.Target, v.Cell, v.Metric, v.Measured, v.Limit)
	}
	if r := b.Status.Recommendation; r != nil {
		fmt.Fprintf(&out, "Recommendation: %s (%s)\n", r.Target, r.Reason)
	}
	return code, out.String()
}
