package result

// Extension is the "storagebench" object: everything a reader needs to merge
// documents exactly and to judge whether a measurement is valid.
type Extension struct {
	SchemaVersion string `json:"schemaVersion"`
	EngineVersion string `json:"engineVersion"`
	// Partial is true when the run stopped early (error, signal, ENOSPC):
	// the numbers cover only what ran and must not be read as complete.
	Partial bool `json:"partial"`
	// Error is the one-line cause when the run failed or stopped early.
	Error       string         `json:"error,omitempty"`
	Environment Environment    `json:"environment"`
	Jobs        []JobExtension `json:"jobs"`
}

// Environment is the part of the fingerprint the engine can see itself.
type Environment struct {
	Hostname       string `json:"hostname"`
	Kernel         string `json:"kernel"`
	CPUs           int    `json:"cpus"`
	GOMAXPROCS     int    `json:"gomaxprocs"`
	MemoryBytes    int64  `json:"memoryBytes"`
	FilesystemType string `json:"filesystemType,omitempty"`
	// DirectIOAlignmentBytes is the alignment O_DIRECT needs on the target
	// (statx STATX_DIOALIGN), 0 when unknown.
	DirectIOAlignmentBytes int64 `json:"directIOAlignmentBytes,omitempty"`
}

// JobExtension matches jobs[i] of the fio layout by position and name.
type JobExtension struct {
	JobName string `json:"jobname"`
	// Backend is the IO backend that ran (io_uring, libaio, psync) and
	// BackendReason why, including every backend tried and refused.
	Backend       string `json:"backend"`
	BackendReason string `json:"backendReason"`
	// StartUnixNano and EndUnixNano bound the measured interval (after
	// ramp), in wall-clock nanoseconds since the epoch.
	StartUnixNano int64 `json:"startUnixNano"`
	EndUnixNano   int64 `json:"endUnixNano"`
	// RateTargetIOPS is the requested rate (0 = unpaced); RateMet is false
	// when the achieved rate was below 98 % of it.
	RateTargetIOPS int64 `json:"rateTargetIOPS,omitempty"`
	RateMet        *bool `json:"rateMet,omitempty"`
	// UserCPUNanoseconds and SystemCPUNanoseconds are the CPU time of the
	// entry's worker threads while measuring, exactly (fio's usr_cpu and
	// sys_cpu are percentages of a runtime kept in whole milliseconds).
	UserCPUNanoseconds   int64              `json:"userCPUNanoseconds,omitempty"`
	SystemCPUNanoseconds int64              `json:"systemCPUNanoseconds,omitempty"`
	Read                 DirectionExtension `json:"read"`
	Write                DirectionExtension `json:"write"`
	// TimeSeries has one point per interval of the measured phase.
	TimeSeries []Interval `json:"timeSeries,omitempty"`
}

// DirectionExtension carries the mergeable histograms of one direction, in
// the encoding of engine/hist (hist.Encode / hist.Decode). Clat is submit to
// completion; Lat is from the IO's intended start (its scheduled time when
// rate-limited, so coordinated omission is not hidden) to completion.
type DirectionExtension struct {
	Clat string `json:"clat,omitempty"`
	Lat  string `json:"lat,omitempty"`
}

// Interval is one time-series point.
type Interval struct {
	// OffsetMs is the end of the interval, from the start of measurement.
	OffsetMs     int64 `json:"offsetMs"`
	ReadIOs      int64 `json:"readIOs"`
	WriteIOs     int64 `json:"writeIOs"`
	ReadBytes    int64 `json:"readBytes"`
	WriteBytes   int64 `json:"writeBytes"`
	P99LatencyNs int64 `json:"p99LatencyNs"`
	// LatencySumNs is the exact sum of the interval's latencies (from each
	// IO's intended start), so that a mean over clients is exact too.
	LatencySumNs int64 `json:"latencySumNs,omitempty"`
}
