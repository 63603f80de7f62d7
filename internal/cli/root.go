// Package cli wires the storagebench subcommands together. Each subcommand
// lives in its own file and only parses flags before handing over to the
// package that does the work.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// ExitError carries a process exit code through cobra, for commands whose
// exit status means something to callers (gate, engine, run).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// exitUsage is returned for bad flags or arguments.
const exitUsage = 3

// newRootCommand builds the command tree; a function so tests get a fresh one.
func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "storagebench",
		Short:         "Benchmark Kubernetes storage and gate storage rollouts on the results",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	for _, add := range subcommands {
		root.AddCommand(add())
	}
	return root
}

// subcommands is filled by each subcommand file's init, so adding a command
// touches only its own file.
var subcommands []func() *cobra.Command

func register(newCommand func() *cobra.Command) { subcommands = append(subcommands, newCommand) }

// Execute runs the command line and returns the process exit code.
func Execute(args []string) int {
	return execute(args, os.Stdin, os.Stdout, os.Stderr)
}

// execute runs a command line with the given streams (tests capture them).
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "storagebench:", err)
	var exitErr *ExitError
	if errors.As(err, &exitErr) {
		return exitErr.Code
	}
	return 1
}
