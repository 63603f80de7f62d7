package cli

import (
	"fmt"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Exit codes of `run` and `gate`, for CI pipelines and job-based analysis
// (Argo Rollouts, Kargo): 0 the thresholds passed, 1 a threshold failed,
// 2 the run failed, timed out or could not be judged, 3 usage error.
const (
	exitPassed       = 0
	exitFailed       = 1
	exitNotJudged    = 2
	exitUsageProblem = exitUsage
)

// verdictExit turns a verdict into the exit status callers gate on.
func verdictExit(verdict sbv1.Verdict) error {
	switch verdict {
	case sbv1.VerdictPassed:
		return nil
	case sbv1.VerdictFailed:
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("verdict Failed: thresholds broken")}
	case sbv1.VerdictInconclusive:
		return &ExitError{Code: exitNotJudged, Err: fmt.Errorf("verdict Inconclusive: thresholds could not be judged")}
	}
	return &ExitError{Code: exitNotJudged, Err: fmt.Errorf("no verdict")}
}
