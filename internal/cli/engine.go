package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/storagebench/storagebench/engine"
)

func init() { register(newEngineCommand) }

// exitRunFailed is returned when the run failed after it started; the
// partial result has been printed.
const exitRunFailed = 1

// newEngineCommand is `storagebench engine`: fio-compatible options (parsed
// by the engine package, not cobra, so that fio's syntax works as is),
// then run and print.
func newEngineCommand() *cobra.Command {
	return &cobra.Command{
		Use:                "engine [fio options] [jobfile...]",
		Short:              "Run fio-compatible IO jobs with storagebench's engine",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if planFlagGiven(args) {
				return runPlanMode(cmd.OutOrStdout(), args)
			}
			for _, a := range args {
				if a == "--help" || a == "-h" || a == "-help" {
					_, err := fmt.Fprint(cmd.OutOrStdout(), engine.HelpText())
					return err
				}
			}
			jobs, opts, err := engine.ParseArgs(args)
			if err != nil {
				return &ExitError{Code: exitUsage, Err: err}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			doc, runErr := engine.Run(ctx, jobs, opts)
			if doc != nil {
				if err := engine.WriteOutput(cmd.OutOrStdout(), doc, opts.OutputFormat); err != nil {
					return &ExitError{Code: exitRunFailed, Err: fmt.Errorf("writing the result: %w", err)}
				}
			}
			switch {
			case runErr == nil:
				return nil
			case errors.Is(runErr, engine.ErrUsage):
				return &ExitError{Code: exitUsage, Err: runErr}
			case errors.Is(runErr, context.Canceled) && doc != nil:
				return &ExitError{Code: exitRunFailed, Err: fmt.Errorf("interrupted; partial result printed: %w", runErr)}
			}
			return &ExitError{Code: exitRunFailed, Err: runErr}
		},
	}
}
