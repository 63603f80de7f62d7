// Package crd embeds the generated StorageBenchmark CRD, so that the local
// runner admits a spec with exactly the schema, defaults and CEL rules the
// API server applies in a cluster.
package crd

import _ "embed"

// StorageBenchmarks is config/crd/bases/storagebench.io_storagebenchmarks.yaml.
//
//go:embed bases/storagebench.io_storagebenchmarks.yaml
var StorageBenchmarks []byte
