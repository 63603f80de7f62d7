package results

import (
	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// TargetResultSchema identifies the layout of a target's full results, as
// stored in its results ConfigMap and written by `storagebench run -o json`.
const TargetResultSchema = "storagebench.io/target-result/v1"

// TargetResult is one target's results merged over all clients, with the
// per-client numbers and the merged histograms.
type TargetResult struct {
	SchemaVersion string `json:"schemaVersion"`
	Benchmark     string `json:"benchmark"`
	Namespace     string `json:"namespace,omitempty"`
	Generation    int64  `json:"generation"`
	Target        string `json:"target"`
	Clients       int32  `json:"clients"`
	// Backends are the engine backends the clients used, with the reasons
	// they were chosen (one entry per distinct backend and reason).
	Backends      []string `json:"backends"`
	EngineVersion string   `json:"engineVersion"`
	// StartSkewMicroseconds is the largest spread of the clients' measured
	// start of a cell, over all cells.
	StartSkewMicroseconds int64             `json:"startSkewMicroseconds"`
	Environment           *sbv1.Environment `json:"environment,omitempty"`
	Timings               Timings           `json:"timings"`
	Cells                 []CellResult      `json:"cells"`
	// Searches are the capacity searches of the workloads with a
	// latencyTarget: each one's answer and its curve (every step).
	Searches        []SearchResult  `json:"searches,omitempty"`
	ClientSummaries []ClientSummary `json:"clientSummaries"`
	Warnings        []sbv1.Warning  `json:"warnings,omitempty"`
	// Truncated says what was left out to fit a storage limit, if anything.
	Truncated string `json:"truncated,omitempty"`
}

// Timings are how long the phases around the measurement took.
type Timings struct {
	VolumesBoundMilliseconds int64 `json:"volumesBoundMilliseconds,omitempty"`
	ClientsReadyMilliseconds int64 `json:"clientsReadyMilliseconds,omitempty"`
	// PrepareMilliseconds is the slowest client's data layout.
	PrepareMilliseconds int64 `json:"prepareMilliseconds"`
	// StartLeadMilliseconds is how far ahead of its publication the start
	// lay (cluster runs).
	StartLeadMilliseconds int64 `json:"startLeadMilliseconds,omitempty"`
	// CollectionMilliseconds is from the last cell's scheduled end until
	// the merge (cluster runs).
	CollectionMilliseconds int64 `json:"collectionMilliseconds,omitempty"`
}

// ClientSummary is what is known about one client as a whole.
type ClientSummary struct {
	Client                  int32  `json:"client"`
	Node                    string `json:"node,omitempty"`
	Pod                     string `json:"pod,omitempty"`
	PrepareMilliseconds     int64  `json:"prepareMilliseconds"`
	ClockOffsetMilliseconds int64  `json:"clockOffsetMilliseconds"`
}

// CellResult is one cell on one target: every repetition, and which one
// stands for the cell (the median by total IOPS).
type CellResult struct {
	Cell        sbv1.Cell          `json:"cell"`
	Repetitions []RepetitionResult `json:"repetitions"`
	// Chosen indexes Repetitions: the median repetition by total IOPS.
	Chosen int `json:"chosen"`
	// SpreadPercent is (max - min) / median of total IOPS over the
	// repetitions; 0 with one repetition.
	SpreadPercent float64 `json:"spreadPercent"`
}

// Result is the repetition that stands for the cell.
func (c *CellResult) Result() *RepetitionResult {
	if c.Chosen < 0 || c.Chosen >= len(c.Repetitions) {
		return nil
	}
	return &c.Repetitions[c.Chosen]
}

// RepetitionResult is one run of a cell, merged over all clients.
type RepetitionResult struct {
	Repetition int32           `json:"repetition"`
	Read       *DirectionStats `json:"read,omitempty"`
	Write      *DirectionStats `json:"write,omitempty"`
	// StartSkewMicroseconds is max - min of the clients' measured starts.
	StartSkewMicroseconds int64 `json:"startSkewMicroseconds"`
	// RateMet is false when a rate-limited client fell below 98 % of its
	// target rate; absent for unpaced cells.
	RateMet *bool `json:"rateMet,omitempty"`
	// CPU is the engine's CPU time on all clients, beside the throughput
	// it bought (bonnie++ prints %CPU next to every figure).
	CPU     *CPUUsage      `json:"cpu,omitempty"`
	Clients []ClientResult `json:"clients"`
	// Series is the run's time series over all clients (see Series).
	Series *Series `json:"series,omitempty"`
}

// TotalIOPS is reads plus writes.
func (r *RepetitionResult) TotalIOPS() float64 {
	return r.Read.iops() + r.Write.iops()
}

// TotalBytesPerSecond is reads plus writes.
func (r *RepetitionResult) TotalBytesPerSecond() float64 {
	return r.Read.bytesPerSecond() + r.Write.bytesPerSecond()
}

// ClientResult is one client's share of a cell run (no histograms: those
// are merged into the repetition's).
type ClientResult struct {
	Client int32 `json:"client"`
	// StartOffsetMicroseconds is the client's measured start relative to
	// the earliest client's.
	StartOffsetMicroseconds int64           `json:"startOffsetMicroseconds"`
	EndUnixNano             int64           `json:"endUnixNano"`
	Read                    *DirectionStats `json:"read,omitempty"`
	Write                   *DirectionStats `json:"write,omitempty"`
	Backend                 string          `json:"backend"`
	RateMet                 *bool           `json:"rateMet,omitempty"`
	CPU                     *CPUUsage       `json:"cpu,omitempty"`
}

// CPUUsage is CPU time the engine's worker threads used while measuring
// (their own rusage: system time includes what the kernel did on their
// behalf, such as io_uring submissions).
type CPUUsage struct {
	UserSeconds   float64 `json:"userSeconds"`
	SystemSeconds float64 `json:"systemSeconds"`
	// Percent is CPU time over the measured wall time of a client (100 =
	// one core busy all along), as bonnie++'s %CPU; for a repetition the
	// mean over its clients.
	Percent float64 `json:"percent"`
	// MicrosecondsPerIO is CPU time per IO (or metadata operation) over
	// all clients: what a class costs the client nodes per IO.
	MicrosecondsPerIO float64 `json:"microsecondsPerIO"`
}

// DirectionStats are the results of one direction.
type DirectionStats struct {
	IOs            int64   `json:"ios"`
	Bytes          int64   `json:"bytes"`
	IOPS           float64 `json:"iops"`
	BytesPerSecond float64 `json:"bytesPerSecond"`
	// LatencyNs is from each IO's intended start to its completion.
	LatencyNs LatencyNs `json:"latencyNs"`
	// CompletionLatencyNs is from submission to completion (fio's clat).
	CompletionLatencyNs LatencyNs `json:"completionLatencyNs"`
	// Histograms in engine/hist encoding; only on merged results.
	LatencyHistogram           string `json:"latencyHistogram,omitempty"`
	CompletionLatencyHistogram string `json:"completionLatencyHistogram,omitempty"`
}

func (d *DirectionStats) iops() float64 {
	if d == nil {
		return 0
	}
	return d.IOPS
}

func (d *DirectionStats) ios() int64 {
	if d == nil {
		return 0
	}
	return d.IOs
}

func (d *DirectionStats) bytesPerSecond() float64 {
	if d == nil {
		return 0
	}
	return d.BytesPerSecond
}

// LatencyNs summarizes a latency distribution in nanoseconds.
type LatencyNs struct {
	Min  int64   `json:"min"`
	Mean float64 `json:"mean"`
	P50  int64   `json:"p50"`
	P90  int64   `json:"p90"`
	P99  int64   `json:"p99"`
	P999 int64   `json:"p999"`
	Max  int64   `json:"max"`
}

// At returns the latency at a threshold's percentile.
func (l LatencyNs) At(p sbv1.Percentile) int64 {
	switch p {
	case sbv1.PercentileP50:
		return l.P50
	case sbv1.PercentileP90:
		return l.P90
	case sbv1.PercentileP999:
		return l.P999
	case sbv1.PercentileMax:
		return l.Max
	default:
		return l.P99
	}
}
