// Package results turns what clients measured into what users read: it
// parses client reports (untrusted: they come from pod logs), merges them
// exactly through their histograms, sums them up for status, compares
// targets and judges thresholds. Pure functions, shared by the controller and
// the local runner; no Kubernetes clients.
package results

import (
	"github.com/storagebench/storagebench/engine/result"
)

// ClientReportSchema identifies the client report layout.
const ClientReportSchema = "storagebench.io/client-report/v1"

// ClientReport is everything one client measured for one target: one engine
// document per cell run. A client prints it on stdout at the end, also when
// it failed (then Error says why and the runs cover what ran).
type ClientReport struct {
	SchemaVersion string `json:"schemaVersion"`
	Benchmark     string `json:"benchmark"`
	Generation    int64  `json:"generation"`
	Target        string `json:"target"`
	Client        int32  `json:"client"`
	Node          string `json:"node,omitempty"`
	Pod           string `json:"pod,omitempty"`
	EngineVersion string `json:"engineVersion"`
	// PrepareMilliseconds is how long laying out the data set took.
	PrepareMilliseconds int64 `json:"prepareMilliseconds"`
	// Round is the search round the report is of: a client of a target
	// with searches writes one report per round (0: the plan's own slots)
	// and stays up for the next. 0 otherwise.
	Round int32 `json:"round,omitempty"`
	// StartUnixNano is the shared start instant the client received (of
	// the round).
	StartUnixNano int64 `json:"startUnixNano"`
	// ClockOffsetMilliseconds is the client's estimate of how far its clock
	// is from the controller's (positive: ahead).
	ClockOffsetMilliseconds int64     `json:"clockOffsetMilliseconds"`
	Runs                    []CellRun `json:"runs"`
	// Error is set when the client failed; Runs then hold what ran.
	Error string `json:"error,omitempty"`
}

// CellRun is one cell run on one client.
type CellRun struct {
	Cell       string `json:"cell"`
	Repetition int32  `json:"repetition"`
	// ScheduledUnixNano is when the cell was due to start (its ramp
	// included); the engine's own job times say when measurement began.
	ScheduledUnixNano int64            `json:"scheduledUnixNano"`
	Document          *result.Document `json:"document,omitempty"`
	Error             string           `json:"error,omitempty"`
}
