// Package version holds the build's identity, set at link time with
//
//	-ldflags "-X github.com/storagebench/storagebench/internal/version.Version=v0.1.0 ..."
//
// so that every result document and image says which engine produced it.
package version

import (
	"fmt"
	"runtime"
)

// Version is the release, a git describe output or "dev" for local builds.
var Version = "dev"

// Commit is the git commit the binary was built from, when known.
var Commit = "unknown"

// String is the one-line form printed by `storagebench version` and recorded
// in result documents.
func String() string {
	return fmt.Sprintf("storagebench %s (commit %s, %s, %s/%s)", Version, Commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
