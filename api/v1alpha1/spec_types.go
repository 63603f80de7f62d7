package v1alpha1

// Bounds that keep a run, its child objects and its status a predictable size.
// They are enforced at admission (markers and CEL rules below) and documented
// in the README.
const (
	// MaxTargets is the most targets one benchmark compares.
	MaxTargets = 16
	// MaxClients is the most client pods per target.
	MaxClients = 64
	// MaxCells is the most matrix cells (over all workload groups) per run;
	// with MaxTargets it bounds the per-cell results kept in status.
	MaxCells = 64
)

// StorageBenchmarkSpec says what to benchmark and how.
//
// +kubebuilder:validation:XValidation:rule="!has(self.baseline) || self.targets.exists(t, t.name == self.baseline)",message="baseline must name one of spec.targets",fieldPath=".baseline"
// +kubebuilder:validation:XValidation:rule="!has(self.clients) || !has(self.clients.count) || self.clients.count <= 1 || self.targets.all(t, !has(t.existingClaimName) || t.accessMode == 'ReadWriteMany')",message="a target with existingClaimName is shared by all clients: with clients.count > 1 it must set accessMode: ReadWriteMany",fieldPath=".targets"
// +kubebuilder:validation:XValidation:rule="self.workloads.map(w, has(w.latencyTarget) ? (has(w.blockSizes) ? size(w.blockSizes) : 1) * (has(w.readPercents) ? size(w.readPercents) : 1) : 0).sum() <= 16",message="the workloads with latencyTarget make more than 16 searches (blockSizes x readPercents, summed over them): split them into several benchmarks",fieldPath=".workloads"
// +kubebuilder:validation:XValidation:rule="self.workloads.map(w, has(w.latencyTarget) ? 0 : has(w.metadata) ? size(w.metadata.operations) * size(w.numJobs) : (has(w.blockSizes) ? size(w.blockSizes) : 1) * (has(w.readPercents) ? size(w.readPercents) : 1) * size(w.queueDepths) * size(w.numJobs)).sum() <= 64",message="the workload matrix expands to more than 64 cells (the product of blockSizes, readPercents, queueDepths and numJobs, or of metadata.operations and numJobs, summed over workloads without latencyTarget): split it into several benchmarks",fieldPath=".workloads"
// +kubebuilder:validation:XValidation:rule="!has(self.thresholds) || self.thresholds.all(t, self.workloads.exists(w, w.name == t.workload))",message="every thresholds[].workload must name one of spec.workloads",fieldPath=".thresholds"
// +kubebuilder:validation:XValidation:rule="!has(self.thresholds) || self.thresholds.all(t, !has(t.targets) || t.targets.all(n, self.targets.exists(x, x.name == n)))",message="every thresholds[].targets entry must name one of spec.targets",fieldPath=".thresholds"
// +kubebuilder:validation:XValidation:rule="!has(self.thresholds) || has(self.baseline) || self.thresholds.all(t, !has(t.maxRegression) || (has(t.maxRegression.against) && t.maxRegression.against != 'Baseline'))",message="thresholds with maxRegression against Baseline (the default) compare against spec.baseline, which is not set",fieldPath=".thresholds"
// +kubebuilder:validation:XValidation:rule="!has(self.thresholds) || self.thresholds.all(t, !has(t.match) || !self.workloads.exists(w, w.name == t.workload) || self.workloads.exists(w, w.name == t.workload && (!has(t.match.readPercent) || (has(w.readPercents) && t.match.readPercent in w.readPercents)) && (!has(t.match.operation) || (has(w.metadata) && t.match.operation in w.metadata.operations)) && (!has(t.match.queueDepth) || t.match.queueDepth in w.queueDepths) && (!has(t.match.numJobs) || t.match.numJobs in w.numJobs) && (!has(t.match.blockSize) || (has(w.blockSizes) && w.blockSizes.exists(b, isQuantity(b) && isQuantity(t.match.blockSize) && quantity(b).compareTo(quantity(t.match.blockSize)) == 0)) || (has(w.blockSizeRange) && isQuantity(t.match.blockSize) && isQuantity(w.blockSizeRange.min) && isQuantity(w.blockSizeRange.max) && quantity(w.blockSizeRange.min).compareTo(quantity(t.match.blockSize)) <= 0 && quantity(w.blockSizeRange.max).compareTo(quantity(t.match.blockSize)) >= 0))))",message="every thresholds[].match must select at least one cell of its workload: it names a blockSize (or one outside its blockSizeRange), readPercent, queueDepth, numJobs or operation the workload does not run",fieldPath=".thresholds"
// +kubebuilder:validation:XValidation:rule="!has(self.thresholds) || !has(self.baseline) || self.thresholds.all(t, !has(t.maxRegression) || (has(t.maxRegression.against) && t.maxRegression.against != 'Baseline') || !has(t.targets) || size(t.targets) == 0 || t.targets.exists(n, n != self.baseline))",message="a maxRegression threshold compares targets with the baseline: its targets must name a target other than the baseline",fieldPath=".thresholds"
// +kubebuilder:validation:XValidation:rule="self.workloads.all(w, !has(w.concurrentWith) || self.workloads.exists(o, o.name == w.concurrentWith && o.name != w.name && !has(o.concurrentWith) && !has(o.metadata)))",message="workloads[].concurrentWith must name another IO workload that is not itself concurrentWith a third",fieldPath=".workloads"
// +kubebuilder:validation:XValidation:rule="self.targets.all(a, !has(a.price) || self.targets.all(b, !has(b.price) || (a.price.currency == b.price.currency && a.price.period == b.price.period)))",message="all target prices must use the same currency and period to be comparable",fieldPath=".targets"
// +kubebuilder:validation:XValidation:rule="!has(self.thresholds) || self.thresholds.all(t, !has(t.minOpsPerSecond) || self.workloads.exists(w, w.name == t.workload && has(w.metadata)))",message="minOpsPerSecond is for the cells of Metadata workloads (IO workloads take minIOPS)",fieldPath=".thresholds"
// +kubebuilder:validation:XValidation:rule="!has(self.thresholds) || self.thresholds.all(t, !(has(t.minIOPS) || has(t.minBytesPerSecond)) || !self.workloads.exists(w, w.name == t.workload && has(w.metadata)))",message="minIOPS and minBytesPerSecond are for IO workloads: a Metadata workload's cells take minOpsPerSecond",fieldPath=".thresholds"
// +kubebuilder:validation:XValidation:rule="!has(self.clients) || !has(self.clients.colocateTargets) || !self.clients.colocateTargets || (has(self.targetExecution) && self.targetExecution == 'Parallel')",message="clients.colocateTargets needs targetExecution Parallel: targets that run one after another share no moment to share a node",fieldPath=".clients.colocateTargets"
// +kubebuilder:validation:XValidation:rule="self.workloads.all(w, !has(w.targets) || w.targets.all(n, self.targets.exists(x, x.name == n)))",message="every workloads[].targets entry must name one of spec.targets",fieldPath=".workloads"
type StorageBenchmarkSpec struct {
	// targets are the storage to benchmark and compare: storage classes (the
	// controller provisions volumes) or existing claims. Several targets of
	// one class with different sizes make a size sweep.
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Targets []Target `json:"targets"`

	// baseline names the target the others are compared against (ratios and
	// percent differences in status.comparison, maxRegression thresholds).
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Baseline string `json:"baseline,omitempty"`

	// clients says how many client pods load each target and where they run.
	// +optional
	// +kubebuilder:default={}
	Clients Clients `json:"clients,omitempty"`

	// workloads are named groups of IO patterns; each group expands to the
	// cartesian product of its lists (its cells). Every cell runs on every
	// target.
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Workloads []WorkloadGroup `json:"workloads"`

	// dataset is the data each client lays out before measuring and then
	// works on.
	// +optional
	// +kubebuilder:default={}
	Dataset Dataset `json:"dataset,omitempty"`

	// thresholds turn results into a verdict: Passed when every threshold of
	// severity Fail holds.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Thresholds []Threshold `json:"thresholds,omitempty"`

	// repetitions runs every cell this many times; the median is reported and
	// the spread between repetitions is recorded.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=9
	Repetitions int32 `json:"repetitions,omitempty"`

	// steadyState is the rule each measured cell's IOPS series is checked
	// against (SNIA PTS): a cell outside it gets a NotSteadyState warning
	// naming both numbers. Cells are not cut short: clients stay in step.
	// Default: the last 5 s within 20 % (max - min) and a trend under 10 %
	// of the mean.
	// +optional
	SteadyState *SteadyStateCheck `json:"steadyState,omitempty"`

	// targetExecution is Sequential (one target after another, so targets
	// that share nodes or backends do not disturb each other) or Parallel.
	// With Sequential, the next target's claims and clients are created
	// once the target before has passed its last cell's end (plus
	// clients.maxClockOffsetMilliseconds), while its clients hand over
	// their results; its measurement starts only once they all have and
	// the target before is cleaned up.
	// +optional
	// +kubebuilder:default=Sequential
	TargetExecution TargetExecution `json:"targetExecution,omitempty"`

	// cleanup says what to keep after the run. Everything the benchmark
	// created is deleted with it in any case.
	// +optional
	// +kubebuilder:default={}
	Cleanup Cleanup `json:"cleanup,omitempty"`

	// timeouts bound each phase of a target's run; a phase that overruns
	// fails the run with a Stalled condition naming it.
	// +optional
	// +kubebuilder:default={}
	Timeouts Timeouts `json:"timeouts,omitempty"`

	// compareTo names another completed run to compare this one with, cell
	// by cell and target by target (same target and cell names): ratios and
	// overheads as against the baseline, in the comparison ConfigMap and
	// summed up in status.comparison.compareTo. Cells without a counterpart
	// are listed, not guessed. Locally: `storagebench run --compare FILE`.
	// +optional
	CompareTo *CompareTo `json:"compareTo,omitempty"`
}

// CompareTo names the run a benchmark is compared with: a StorageBenchmark
// in the same namespace, or a ConfigMap there holding a run's results as
// `storagebench report -o json` or `run -o json` writes them (e.g. the same
// benchmark run in a staging cluster).
//
// +kubebuilder:validation:XValidation:rule="has(self.benchmark) != has(self.configMap)",message="compareTo needs exactly one of benchmark or configMap"
// +kubebuilder:validation:XValidation:rule="!has(self.key) || has(self.configMap)",message="compareTo.key is the configMap's key: it needs compareTo.configMap",fieldPath=".key"
type CompareTo struct {
	// benchmark is a completed StorageBenchmark in the same namespace.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Benchmark string `json:"benchmark,omitempty"`
	// configMap is a ConfigMap in the same namespace with a run's results.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ConfigMap string `json:"configMap,omitempty"`
	// key of the configMap (data or binaryData) holding the results;
	// default run-result.json.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key,omitempty"`
}

// DefaultCompareToKey is the ConfigMap key compareTo reads by default.
const DefaultCompareToKey = "run-result.json"

// KeyOrDefault is the ConfigMap key to read.
func (c *CompareTo) KeyOrDefault() string {
	if c.Key == "" {
		return DefaultCompareToKey
	}
	return c.Key
}

// TargetExecution orders the targets of a run.
// +kubebuilder:validation:Enum=Sequential;Parallel
type TargetExecution string

const (
	// TargetsSequential runs one target after another.
	TargetsSequential TargetExecution = "Sequential"
	// TargetsParallel runs all targets at the same time.
	TargetsParallel TargetExecution = "Parallel"
)

// Cleanup says what to keep after the run.
type Cleanup struct {
	// volumes is Delete (remove the PVCs the benchmark created once its
	// results are stored) or Keep (leave them, e.g. to rerun with fill
	// IfMissing without laying the data out again).
	// +optional
	// +kubebuilder:default=Delete
	Volumes CleanupPolicy `json:"volumes,omitempty"`

	// clientPods is Delete (remove the client Jobs and pods once their
	// results are stored) or Keep (leave them to read logs).
	// +optional
	// +kubebuilder:default=Delete
	ClientPods CleanupPolicy `json:"clientPods,omitempty"`
}

// CleanupPolicy says whether to delete or keep an object after the run.
// +kubebuilder:validation:Enum=Delete;Keep
type CleanupPolicy string

const (
	// CleanupDelete removes the objects after the run.
	CleanupDelete CleanupPolicy = "Delete"
	// CleanupKeep leaves the objects until the benchmark is deleted.
	CleanupKeep CleanupPolicy = "Keep"
)

// Timeouts bound the phases of a target's run.
type Timeouts struct {
	// volumeBindSeconds is how long the volumes and client pods may take to
	// be bound and scheduled.
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=86400
	VolumeBindSeconds int32 `json:"volumeBindSeconds,omitempty"`

	// prepareSeconds is how long the clients may take to lay out their data
	// set and report ready.
	// +optional
	// +kubebuilder:default=3600
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=86400
	PrepareSeconds int32 `json:"prepareSeconds,omitempty"`

	// collectSeconds is how long after the last cell's scheduled end the
	// clients may take to finish and hand over their results.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=86400
	CollectSeconds int32 `json:"collectSeconds,omitempty"`
}
