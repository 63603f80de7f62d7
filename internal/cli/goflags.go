package cli

import (
	"flag"

	"github.com/spf13/cobra"
)

// addGoFlags lets libraries that register Go flags (zap logging options) add
// them to a cobra command: bind fills a Go flag set, which is then copied.
func addGoFlags(cmd *cobra.Command, bind func(*flag.FlagSet)) {
	fs := flag.NewFlagSet(cmd.Name(), flag.ContinueOnError)
	bind(fs)
	cmd.Flags().AddGoFlagSet(fs)
}
