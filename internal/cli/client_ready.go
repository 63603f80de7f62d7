package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
)

func init() { register(newClientReadyCommand) }

// readyPollInterval is how often client-ready --wait looks for the file.
const readyPollInterval = 10 * time.Millisecond

// newClientReadyCommand is the client pods' startup probe: the engine in
// plan mode creates its ready file once its data set is laid out, and the
// controller starts the measurement when every client is Ready. An exec
// probe needs no network path from the kubelet to the pod. With --wait a
// probe that finds no file keeps looking for a while before it fails: the
// kubelet probes once a second at most, so a probe that only looked once
// would see readiness up to a second late.
func newClientReadyCommand() *cobra.Command {
	var wait time.Duration
	cmd := &cobra.Command{
		Use:    "client-ready FILE",
		Short:  "Exit 0 when a client's ready file exists (startup probe of client pods)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if wait < 0 {
				return &ExitError{Code: 2, Err: fmt.Errorf("--wait %s: must not be negative", wait)}
			}
			return waitForFile(args[0], wait)
		},
	}
	cmd.Flags().DurationVar(&wait, "wait", 0, "how long to keep looking for FILE before failing")
	return cmd
}

// waitForFile succeeds as soon as path exists, or fails after wait.
func waitForFile(path string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		_, err := os.Stat(path)
		if err == nil {
			return nil
		}
		if !time.Now().Before(deadline) {
			return &ExitError{Code: 1, Err: fmt.Errorf("not ready: %w", err)}
		}
		time.Sleep(readyPollInterval)
	}
}
