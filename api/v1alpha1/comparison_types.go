package v1alpha1

// ComparisonSummary is the part of the comparison kept in status: the best
// target of each cell and each target's summary.
type ComparisonSummary struct {
	// baseline the ratios are relative to; empty when spec.baseline is
	// unset.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Baseline string `json:"baseline,omitempty"`

	// cells name the best target of each cell, in spec order (atomic, as
	// it is written whole with the outcome).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Cells []CellBest `json:"cells,omitempty"`

	// targets sums each target up over all cells.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Targets []TargetSummary `json:"targets,omitempty"`

	// compareTo sums up the comparison with spec.compareTo's run (the
	// comparison ConfigMap has it cell by cell).
	// +optional
	CompareTo *RunComparisonSummary `json:"compareTo,omitempty"`

	// searches ranks the targets by each capacity search's answer.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Searches []SearchComparison `json:"searches,omitempty"`
}

// RunComparisonSummary is the part of a comparison with another run kept
// in status.
type RunComparisonSummary struct {
	// source names the other run.
	// +kubebuilder:validation:MaxLength=512
	Source string `json:"source"`
	// targets relates each target to the same target in the other run.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Targets []RunTargetComparison `json:"targets,omitempty"`
	// unmatchedCells counts the target/cell pairs of either run with no
	// counterpart in the other (listed in the comparison ConfigMap).
	// +optional
	UnmatchedCells int32 `json:"unmatchedCells,omitempty"`
}

// RunComparison compares a run with another one (spec.compareTo, or
// `report --compare`): the same target and cell in both, this run's values
// against the other's as against a baseline.
type RunComparison struct {
	// source names the other run.
	// +kubebuilder:validation:MaxLength=512
	Source string `json:"source"`
	// cells relates each target's cell to the same target's cell in the
	// other run (target: this run's target; ratios are this / other).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=1024
	Cells []RunCellComparison `json:"cells,omitempty"`
	// targets sums each target up over its matching cells.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Targets []RunTargetComparison `json:"targets,omitempty"`
	// unmatched lists "this: target/cell" and "other: target/cell" pairs
	// with no counterpart.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=2048
	// +kubebuilder:validation:items:MaxLength=160
	Unmatched []string `json:"unmatched,omitempty"`
}

// RunCellComparison is one target's cell against the other run's.
type RunCellComparison struct {
	// cell compared.
	// +kubebuilder:validation:MaxLength=96
	Cell string `json:"cell"`
	// delta of this run's target against the other run's (its target is
	// the target of both).
	Delta BaselineDelta `json:"delta"`
}

// RunTargetComparison sums a target up against the other run.
type RunTargetComparison struct {
	// target of both runs.
	// +kubebuilder:validation:MaxLength=32
	Target string `json:"target"`
	// matchedCells is how many of its cells both runs have.
	MatchedCells int32 `json:"matchedCells"`
	// geomeanIOPSRatio is the geometric mean over matched cells of this
	// run's total IOPS / the other's.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	GeomeanIOPSRatio string `json:"geomeanIOPSRatio,omitempty"`
	// geomeanLatencyP99Ratio is the same for the p99 of all IOs.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	GeomeanLatencyP99Ratio string `json:"geomeanLatencyP99Ratio,omitempty"`
}

// CellBest names the target with the highest total IOPS in a cell.
type CellBest struct {
	// cell compared.
	// +kubebuilder:validation:MaxLength=96
	Cell string `json:"cell"`
	// best is the target with the highest total IOPS in this cell.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Best string `json:"best,omitempty"`
}

// Comparison relates the targets to each other, cell by cell, and sums each
// target up over all cells. Numbers are decimal strings. Status keeps its
// summary (ComparisonSummary); the whole of it is in the run's comparison
// ConfigMap and in `storagebench run -o json`.
type Comparison struct {
	// baseline the deltas are relative to; empty when spec.baseline is unset.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Baseline string `json:"baseline,omitempty"`

	// cells compares the targets in each cell.
	// +optional
	// +listType=map
	// +listMapKey=cell
	// +kubebuilder:validation:MaxItems=64
	Cells []CellComparison `json:"cells,omitempty"`

	// targets sums each target up over all cells.
	// +optional
	// +listType=map
	// +listMapKey=target
	// +kubebuilder:validation:MaxItems=16
	Targets []TargetSummary `json:"targets,omitempty"`

	// searches ranks the targets by each capacity search's answer.
	// +optional
	// +listType=map
	// +listMapKey=search
	// +kubebuilder:validation:MaxItems=16
	Searches []SearchComparison `json:"searches,omitempty"`
}

// SearchComparison ranks the targets by what one capacity search found:
// the most IOPS within the latency bound.
type SearchComparison struct {
	// search compared.
	// +kubebuilder:validation:MaxLength=64
	Search string `json:"search"`
	// best is the target with the highest capacity; empty when no target
	// met the bound at any load.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Best string `json:"best,omitempty"`
	// byCapacity ranks the targets by capacity, highest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=32
	ByCapacity []string `json:"byCapacity,omitempty"`
	// capacityIOPS are the targets' capacities in the order of byCapacity
	// (0: the bound held at no load), decimal strings.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=32
	CapacityIOPS []string `json:"capacityIOPS,omitempty"`
}

// CellComparison ranks the targets in one cell.
type CellComparison struct {
	// cell compared.
	// +kubebuilder:validation:MaxLength=96
	Cell string `json:"cell"`
	// best is the target with the highest total IOPS in this cell.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Best string `json:"best,omitempty"`
	// byIOPS ranks the targets by total IOPS, highest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=32
	ByIOPS []string `json:"byIOPS,omitempty"`
	// byLatencyP99 ranks the targets by p99 latency (the worse of reads and
	// writes), lowest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=32
	ByLatencyP99 []string `json:"byLatencyP99,omitempty"`
	// vsBaseline relates each other target to the baseline in this cell.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	VsBaseline []BaselineDelta `json:"vsBaseline,omitempty"`
}

// BaselineDelta relates one target to the baseline in one cell. Ratios are
// target / baseline. Overheads follow the convention of published
// replication-overhead tables: throughput overhead = (baseline - target) /
// baseline, latency overhead = (target - baseline) / target; positive means
// the target is worse.
type BaselineDelta struct {
	// target related to the baseline.
	// +kubebuilder:validation:MaxLength=32
	Target string `json:"target"`
	// iopsRatio is the target's total IOPS over the baseline's.
	// +kubebuilder:validation:MaxLength=24
	IOPSRatio string `json:"iopsRatio"`
	// bytesPerSecondRatio is the target's total throughput over the
	// baseline's.
	// +kubebuilder:validation:MaxLength=24
	BytesPerSecondRatio string `json:"bytesPerSecondRatio"`
	// throughputOverheadPercent is (baseline - target) / baseline x 100 of
	// total bytes per second.
	// +kubebuilder:validation:MaxLength=24
	ThroughputOverheadPercent string `json:"throughputOverheadPercent"`
	// latencyRatio is the target's latency over the baseline's, per
	// percentile (the worse of reads and writes).
	LatencyRatio LatencySummary `json:"latencyRatio"`
	// latencyOverheadPercent is (target - baseline) / target x 100, per
	// percentile.
	LatencyOverheadPercent LatencySummary `json:"latencyOverheadPercent"`
}

// TargetSummary sums one target up over all cells.
type TargetSummary struct {
	// target summed up.
	// +kubebuilder:validation:MaxLength=32
	Target string `json:"target"`
	// bestCells is the number of cells where this target has the highest
	// total IOPS.
	BestCells int32 `json:"bestCells"`
	// geomeanIOPSRatio is the geometric mean over cells of the IOPS ratio to
	// the baseline.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	GeomeanIOPSRatio string `json:"geomeanIOPSRatio,omitempty"`
	// geomeanLatencyP99Ratio is the geometric mean over cells of the p99
	// latency ratio to the baseline.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	GeomeanLatencyP99Ratio string `json:"geomeanLatencyP99Ratio,omitempty"`
	// peakIOPS is the highest total IOPS over all cells.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	PeakIOPS string `json:"peakIOPS,omitempty"`
	// peakMiBPerSecond is the highest total throughput over all cells.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	PeakMiBPerSecond string `json:"peakMiBPerSecond,omitempty"`
	// iopsPerPrice is peakIOPS per unit of the target's price.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	IOPSPerPrice string `json:"iopsPerPrice,omitempty"`
	// miBPerSecondPerPrice is peakMiBPerSecond per unit of the target's
	// price.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	MiBPerSecondPerPrice string `json:"miBPerSecondPerPrice,omitempty"`
	// meetsThresholds is true when no Fail threshold is broken on this
	// target.
	// +optional
	MeetsThresholds *bool `json:"meetsThresholds,omitempty"`
}
