// Package result defines the engine's output document: fio's JSON layout, so
// that existing fio parsers read it, plus a versioned "storagebench" extension
// carrying what fio's layout cannot: mergeable histograms, the backend that
// ran, time series and the environment. It is the contract between the engine,
// the controller (which reads it from pod logs as untrusted input) and the
// local runner, so it only holds data, no behaviour beyond validation.
package result

// SchemaVersion identifies the extension's layout. Readers refuse documents
// with another version rather than guess at their meaning.
const SchemaVersion = "storagebench.io/engine-result/v1"

// Document is one engine run: fio's top level plus the extension.
type Document struct {
	FioVersion    string         `json:"fio version"`
	Timestamp     int64          `json:"timestamp"`
	TimestampMs   int64          `json:"timestamp_ms"`
	Time          string         `json:"time"`
	GlobalOptions map[string]any `json:"global options,omitempty"`
	Jobs          []Job          `json:"jobs"`
	Storagebench  Extension      `json:"storagebench"`
}

// Job is one fio job (or, with group_reporting, one group) in fio's layout.
type Job struct {
	JobName    string             `json:"jobname"`
	GroupID    int                `json:"groupid"`
	Error      int                `json:"error"`
	Elapsed    int64              `json:"elapsed"` // seconds, as fio
	JobOptions map[string]string  `json:"job options,omitempty"`
	Read       Direction          `json:"read"`
	Write      Direction          `json:"write"`
	Trim       Direction          `json:"trim"`
	Sync       SyncStats          `json:"sync"`
	JobRuntime int64              `json:"job_runtime"`
	UsrCPU     float64            `json:"usr_cpu"`
	SysCPU     float64            `json:"sys_cpu"`
	Ctx        int64              `json:"ctx"`
	MajF       int64              `json:"majf"`
	MinF       int64              `json:"minf"`
	IODepth    map[string]float64 `json:"iodepth_level,omitempty"`
	LatencyNs  map[string]float64 `json:"latency_ns,omitempty"`
	LatencyUs  map[string]float64 `json:"latency_us,omitempty"`
	LatencyMs  map[string]float64 `json:"latency_ms,omitempty"`
	// LatencyTarget is fio's four latency_* fields, inlined at the job's
	// level: a latency_target job's search, or for any other job its
	// queue depth with no target (fio prints them for every job).
	*LatencyTarget
	SteadyState *SteadyState `json:"steadystate,omitempty"`
}

// LatencyTarget is fio's result of a latency_target search, with fio's
// units: the target in nanoseconds, the window in microseconds.
type LatencyTarget struct {
	// Depth is the queue depth the search ended at, or the job's.
	Depth      int     `json:"latency_depth"`
	TargetNs   int64   `json:"latency_target"`
	Percentile float64 `json:"latency_percentile"`
	WindowUs   int64   `json:"latency_window"`
}

// SteadyState is fio's "steadystate" object: the criterion ("ss", as
// iops_slope:0.010000%), the window in seconds, whether it was attained,
// the last judgement ("criterion", with % when the limit is a percentage)
// and its parts, and the window's samples.
type SteadyState struct {
	SS           string          `json:"ss"`
	Duration     int64           `json:"duration"`
	Attained     int             `json:"attained"`
	Criterion    string          `json:"criterion"`
	MaxDeviation float64         `json:"max_deviation"`
	Slope        float64         `json:"slope"`
	Data         SteadyStateData `json:"data"`
}

// SteadyStateData is the window's samples, oldest first: IOPS and
// bandwidth in bytes per second, and their means.
type SteadyStateData struct {
	BwMean   int64   `json:"bw_mean"`
	IOPSMean int64   `json:"iops_mean"`
	IOPS     []int64 `json:"iops"`
	Bw       []int64 `json:"bw"`
}

// Direction is fio's per-direction block ("read", "write", "trim").
type Direction struct {
	IOBytes     int64        `json:"io_bytes"`
	IOKBytes    int64        `json:"io_kbytes"`
	BwBytes     int64        `json:"bw_bytes"`
	Bw          int64        `json:"bw"` // KiB/s, as fio
	IOPS        float64      `json:"iops"`
	Runtime     int64        `json:"runtime"` // milliseconds, as fio
	TotalIOs    int64        `json:"total_ios"`
	ShortIOs    int64        `json:"short_ios"`
	DropIOs     int64        `json:"drop_ios"`
	SlatNs      LatencyStats `json:"slat_ns"`
	ClatNs      LatencyStats `json:"clat_ns"`
	LatNs       LatencyStats `json:"lat_ns"`
	BwMin       int64        `json:"bw_min"`
	BwMax       int64        `json:"bw_max"`
	BwMean      float64      `json:"bw_mean"`
	BwDev       float64      `json:"bw_dev"`
	BwSamples   int64        `json:"bw_samples"`
	IOPSMin     int64        `json:"iops_min"`
	IOPSMax     int64        `json:"iops_max"`
	IOPSMean    float64      `json:"iops_mean"`
	IOPSStddev  float64      `json:"iops_stddev"`
	IOPSSamples int64        `json:"iops_samples"`
}

// LatencyStats is fio's latency object. Percentile keys are formatted like
// fio's ("99.000000"). Bins is only present with --output-format=json+ and
// maps a bucket's value in nanoseconds (as a decimal string) to its count.
type LatencyStats struct {
	Min        int64            `json:"min"`
	Max        int64            `json:"max"`
	Mean       float64          `json:"mean"`
	Stddev     float64          `json:"stddev"`
	N          int64            `json:"N"`
	Percentile map[string]int64 `json:"percentile,omitempty"`
	Bins       map[string]int64 `json:"bins,omitempty"`
}

// SyncStats is fio's "sync" block: the fsyncs a job issued (--fsync).
type SyncStats struct {
	TotalIOs int64        `json:"total_ios"`
	LatNs    LatencyStats `json:"lat_ns"`
}
