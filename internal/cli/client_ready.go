package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func init() { register(newClientReadyCommand) }

// newClientReadyCommand is the client pods' startup probe: the engine in
// plan mode creates its ready file once its data set is laid out, and the
// controller starts the measurement when every client is Ready. An exec
// probe needs no network path from the kubelet to the pod.
func newClientReadyCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "client-ready FILE",
		Short:  "Exit 0 when a client's ready file exists (startup probe of client pods)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if _, err := os.Stat(args[0]); err != nil {
				return &ExitError{Code: 1, Err: fmt.Errorf("not ready: %w", err)}
			}
			return nil
		},
	}
}
