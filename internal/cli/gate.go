package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/storagebench/storagebench/internal/gate"
)

func init() { register(newGateCommand) }

func newGateCommand() *cobra.Command {
	var k kubeFlags
	var timeout, poll time.Duration
	cmd := &cobra.Command{
		Use:   "gate NAME",
		Short: "Wait for a StorageBenchmark to complete and exit with its verdict",
		Long: `Wait until the StorageBenchmark's run for its current spec has completed,
print the verdict and the violations, and exit with:

  0  Passed: every threshold of severity Fail holds
  1  Failed: a threshold is broken
  2  the run failed, timed out (--timeout), or its thresholds could not be judged
  3  usage error (bad flags, no such benchmark)

For CI pipelines and job-based analysis (Argo Rollouts / Kargo "job" metric
provider, which passes on exit code 0).`,
		Example: `  storagebench gate new-storage-class -n storage-tests --timeout 30m`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout <= 0 || poll <= 0 {
				return &ExitError{Code: gate.BadUsage, Err: errors.New("--timeout and --poll must be positive")}
			}
			c, namespace, err := k.client()
			if err != nil {
				return &ExitError{Code: gate.BadUsage, Err: err}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return runGate(ctx, cmd, c, client.ObjectKey{Namespace: namespace, Name: args[0]}, poll, timeout)
		},
	}
	k.add(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "how long to wait for the run to complete")
	cmd.Flags().DurationVar(&poll, "poll", 5*time.Second, "how often to read the benchmark")
	return cmd
}

func runGate(ctx context.Context, cmd *cobra.Command, c client.Reader, key client.ObjectKey, poll, timeout time.Duration) error {
	b, err := gate.Wait(ctx, c, key, poll)
	switch {
	case errors.Is(err, gate.ErrNotFound):
		return &ExitError{Code: gate.BadUsage, Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		progress := ""
		if b != nil && b.Status.Progress != nil {
			progress = " (progress " + b.Status.Progress.Summary + ")"
		}
		return &ExitError{Code: gate.NotRun, Err: fmt.Errorf("%s did not complete within %s%s", key, timeout, progress)}
	case err != nil:
		return &ExitError{Code: gate.NotRun, Err: err}
	}
	code, summary := gate.Outcome(b)
	fmt.Fprint(cmd.OutOrStdout(), summary)
	if code != gate.Passed {
		return &ExitError{Code: code, Err: fmt.Errorf("%s: not passed (exit %d)", key, code)}
	}
	return nil
}
