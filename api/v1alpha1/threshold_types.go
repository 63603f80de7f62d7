package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// Threshold is a limit on the results of some cells and targets. A run whose
// results break a threshold of severity Fail gets the verdict Failed.
//
// +kubebuilder:validation:XValidation:rule="has(self.minIOPS) || has(self.minOpsPerSecond) || has(self.minBytesPerSecond) || has(self.maxLatency) || has(self.maxRegression) || has(self.minIOPSAtLatency)",message="a threshold needs at least one of minIOPS, minOpsPerSecond, minBytesPerSecond, maxLatency, maxRegression or minIOPSAtLatency"
// +kubebuilder:validation:XValidation:rule="!has(self.minIOPSAtLatency) || !(has(self.minIOPS) || has(self.minOpsPerSecond) || has(self.minBytesPerSecond) || has(self.maxLatency) || has(self.maxRegression))",message="minIOPSAtLatency judges a search's capacity: a threshold with it has no other limit",fieldPath=".minIOPSAtLatency"
// +kubebuilder:validation:XValidation:rule="!has(self.minBytesPerSecond) || !isQuantity(string(self.minBytesPerSecond)) || quantity(string(self.minBytesPerSecond)).compareTo(quantity('0')) >= 0",messageExpression="'minBytesPerSecond ' + string(self.minBytesPerSecond) + ' must not be negative'",fieldPath=".minBytesPerSecond"
type Threshold struct {
	// name identifies the threshold in violations; default: derived from
	// its workload and limits.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name,omitempty"`

	// workload names the workload group whose cells this threshold checks.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=24
	Workload string `json:"workload"`

	// match narrows the cells of the workload to those with these
	// parameters; unset fields match every value.
	// +optional
	Match *CellMatch `json:"match,omitempty"`

	// targets the threshold applies to; default every target (maxRegression:
	// every target but the baseline).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=32
	Targets []string `json:"targets,omitempty"`

	// minIOPS is the least total (read + write) IOs per second a cell must
	// reach, summed over all clients.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinIOPS *int64 `json:"minIOPS,omitempty"`

	// minOpsPerSecond is the least metadata operations per second a cell of
	// a Metadata workload must reach, summed over all clients.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MinOpsPerSecond *int64 `json:"minOpsPerSecond,omitempty"`

	// minBytesPerSecond is the least total (read + write) throughput a cell
	// must reach, summed over all clients.
	// +optional
	MinBytesPerSecond *resource.Quantity `json:"minBytesPerSecond,omitempty"`

	// maxLatency is the highest completion latency allowed at a percentile
	// of the merged latency distribution; it applies to reads and writes
	// separately.
	// +optional
	MaxLatency *LatencyLimit `json:"maxLatency,omitempty"`

	// minIOPSAtLatency is the least capacity a search of a workload with
	// latencyTarget must find: total IOPS over all clients while the
	// latency at the target's percentile stays within its bound. A search
	// whose bound fails even at its lowest load breaks it; match selects
	// searches by blockSize and readPercent.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000000000
	MinIOPSAtLatency *int64 `json:"minIOPSAtLatency,omitempty"`

	// maxRegression is how much worse than the baseline target a target may
	// be, in percent of the baseline's value.
	// +optional
	MaxRegression *Regression `json:"maxRegression,omitempty"`

	// severity is Fail (breaking it fails the verdict) or Warn (it is
	// reported but the verdict can still pass).
	// +optional
	// +kubebuilder:default=Fail
	Severity Severity `json:"severity,omitempty"`
}

// CellMatch selects cells of a workload by their parameters.
type CellMatch struct {
	// blockSize of the cells to select: cells of that block size, and
	// cells of a blockSizeRange that steps through it.
	// +optional
	BlockSize *BlockSize `json:"blockSize,omitempty"`
	// readPercent of the cells to select.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	ReadPercent *int32 `json:"readPercent,omitempty"`
	// queueDepth of the cells to select.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	QueueDepth *int32 `json:"queueDepth,omitempty"`
	// numJobs of the cells to select.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	NumJobs *int32 `json:"numJobs,omitempty"`
	// operation of the cells of a Metadata workload to select.
	// +optional
	Operation *MetadataOperation `json:"operation,omitempty"`
}

// LatencyLimit is a maximum latency at a percentile.
type LatencyLimit struct {
	// percentile of the latency distribution: P50, P90, P99, P99.9 or Max.
	// +optional
	// +kubebuilder:default=P99
	Percentile Percentile `json:"percentile,omitempty"`
	// microseconds is the highest latency allowed at that percentile.
	// +required
	// +kubebuilder:validation:Minimum=1
	Microseconds int64 `json:"microseconds"`
}

// Percentile names a point of a latency distribution reported in status.
// +kubebuilder:validation:Enum=P50;P90;P99;P99.9;Max
type Percentile string

const (
	// PercentileP50 is the median.
	PercentileP50 Percentile = "P50"
	// PercentileP90 is the 90th percentile.
	PercentileP90 Percentile = "P90"
	// PercentileP99 is the 99th percentile.
	PercentileP99 Percentile = "P99"
	// PercentileP999 is the 99.9th percentile.
	PercentileP999 Percentile = "P99.9"
	// PercentileMax is the slowest IO.
	PercentileMax Percentile = "Max"
)

// Regression bounds how much worse than a reference a target may be: the
// run's baseline target, or the same target in earlier runs of the schedule
// that created the benchmark (drift).
//
// +kubebuilder:validation:XValidation:rule="!has(self.runs) || self.against == 'MedianOfLast'",message="runs is the number of earlier runs against: MedianOfLast takes; against Baseline or Previous takes none",fieldPath=".runs"
type Regression struct {
	// against is what the target is compared with: Baseline (spec.baseline
	// in the same run), Previous (the same target and cell in the last
	// completed run of the schedule that created this benchmark) or
	// MedianOfLast (the median over the last `runs` completed runs of it),
	// counting only earlier runs of the same template that stored results.
	// Against history, every target is judged, the baseline included; with
	// no earlier run to compare with (the schedule's first, a benchmark no
	// schedule created, `storagebench run` without --history) the
	// regression is not judged (the threshold's other limits are) and the
	// run gets a NoHistory warning.
	// +optional
	// +kubebuilder:default=Baseline
	Against RegressionReference `json:"against,omitempty"`
	// runs is how many earlier runs MedianOfLast takes the median of (2 to
	// 20, default 3); fewer when fewer are kept (the schedule's history
	// limits) or have the cell.
	// +optional
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=20
	Runs *int32 `json:"runs,omitempty"`
	// metric compared with the baseline: IOPS or BytesPerSecond (lower is
	// worse) or Latency at a percentile (higher is worse).
	// +optional
	// +kubebuilder:default=IOPS
	Metric RegressionMetric `json:"metric,omitempty"`
	// percentile of the latency, for metric Latency.
	// +optional
	// +kubebuilder:default=P99
	Percentile Percentile `json:"percentile,omitempty"`
	// percent is the largest allowed difference, in percent of the
	// baseline's value.
	// +required
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Percent int32 `json:"percent"`
}

// RegressionReference is what a regression threshold compares with.
// +kubebuilder:validation:Enum=Baseline;Previous;MedianOfLast
type RegressionReference string

const (
	// AgainstBaseline compares with spec.baseline in the same run.
	AgainstBaseline RegressionReference = "Baseline"
	// AgainstPrevious compares with the last earlier run.
	AgainstPrevious RegressionReference = "Previous"
	// AgainstMedianOfLast compares with the median of the last runs.
	AgainstMedianOfLast RegressionReference = "MedianOfLast"
)

// DefaultMedianRuns is how many earlier runs MedianOfLast takes by default.
const DefaultMedianRuns = 3

// ComparesWithBaseline reports whether the threshold has a maxRegression
// against the run's baseline target.
func (t *Threshold) ComparesWithBaseline() bool {
	return t.MaxRegression != nil && !t.MaxRegression.AgainstHistory()
}

// AgainstHistory reports whether the regression compares with earlier runs
// rather than with the baseline.
func (r *Regression) AgainstHistory() bool {
	return r != nil && (r.Against == AgainstPrevious || r.Against == AgainstMedianOfLast)
}

// HistoryRuns is how many earlier runs the regression compares with: 1 for
// Previous, runs (default 3) for MedianOfLast, 0 against the baseline.
func (r *Regression) HistoryRuns() int {
	switch {
	case r == nil:
		return 0
	case r.Against == AgainstPrevious:
		return 1
	case r.Against == AgainstMedianOfLast && r.Runs != nil:
		return int(*r.Runs)
	case r.Against == AgainstMedianOfLast:
		return DefaultMedianRuns
	}
	return 0
}

// RegressionMetric is what a regression threshold compares.
// +kubebuilder:validation:Enum=IOPS;BytesPerSecond;Latency
type RegressionMetric string

const (
	// RegressionIOPS compares total IOs per second.
	RegressionIOPS RegressionMetric = "IOPS"
	// RegressionBytesPerSecond compares total throughput.
	RegressionBytesPerSecond RegressionMetric = "BytesPerSecond"
	// RegressionLatency compares latency at a percentile.
	RegressionLatency RegressionMetric = "Latency"
)

// Severity says what a broken threshold does to the verdict.
// +kubebuilder:validation:Enum=Fail;Warn
type Severity string

const (
	// SeverityFail makes the verdict Failed.
	SeverityFail Severity = "Fail"
	// SeverityWarn is reported without failing the verdict, and keeps the
	// target from the recommendation while another target breaks none.
	SeverityWarn Severity = "Warn"
)
