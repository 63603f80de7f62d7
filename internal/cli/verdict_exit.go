package cli

import (
	"fmt"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/gate"
)

// verdictExit turns a verdict into the exit status `run` shares with
// `gate`: 0 passed, 1 a threshold failed, 2 not judged.
func verdictExit(verdict sbv1.Verdict) error {
	switch verdict {
	case sbv1.VerdictPassed:
		return nil
	case sbv1.VerdictFailed:
		return &ExitError{Code: gate.Failed, Err: fmt.Errorf("verdict Failed: thresholds broken")}
	case sbv1.VerdictInconclusive:
		return &ExitError{Code: gate.NotRun, Err: fmt.Errorf("verdict Inconclusive: thresholds could not be judged")}
	}
	return &ExitError{Code: gate.NotRun, Err: fmt.Errorf("no verdict")}
}
