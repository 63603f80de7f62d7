// Command storagebench is one binary for the whole product: the operator
// (manager), the IO engine that runs in client pods, the local runner and the
// reporting and gating tools. One binary in one image keeps the manager and the
// clients it starts on the same version.
package main

import (
	"os"

	"github.com/storagebench/storagebench/internal/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:]))
}
