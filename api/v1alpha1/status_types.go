package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StorageBenchmarkStatus is the state and the results of the run for
// observedGeneration: what `kubectl get`, gates and GitOps tools read
// (conditions, progress, verdict, violations, one summary per target and
// cell, the comparison's summary, the recommendation). Its size is bounded
// by a budget (docs/status-budget.md): at the documented maxima, with the
// longest valid names, the whole object stays under 384 KiB, a quarter of
// etcd's default request limit, managedFields included. Everything else is
// in ConfigMaps: per target (targets[].resultsConfigMap) the full results
// with per-client numbers, merged histograms and every node's fingerprint;
// per run (comparisonConfigMap) the full comparison and every violation and
// warning.
type StorageBenchmarkStatus struct {
	// observedGeneration is the spec generation this status describes. It
	// starts at -1 so that tools reading status (kstatus, Flux) see the
	// benchmark as in progress until the controller has written it.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Reconciling (a run is in progress), Completed (the run
	// ended, whatever its outcome), Ready (completed and thresholds met),
	// Stalled (the run failed or thresholds failed) and ThresholdsMet.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// startTime is when the run for observedGeneration started.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when it ended.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// progress counts the cells run so far over all targets.
	// +optional
	Progress *Progress `json:"progress,omitempty"`

	// targetNames lists the targets of the run, comma-separated, for
	// `kubectl get` (a printer column cannot join a list).
	// +optional
	// +kubebuilder:validation:MaxLength=600
	TargetNames string `json:"targetNames,omitempty"`

	// capacity is the first capacity search's answer for `kubectl get -o
	// wide`: the targets by the IOPS they carry within its latency bound,
	// highest first (comparison.searches has every search).
	// +optional
	// +kubebuilder:validation:MaxLength=600
	Capacity string `json:"capacity,omitempty"`

	// targets holds each target's state, timings, environment and per-cell
	// results merged over all clients.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Targets []TargetStatus `json:"targets,omitempty"`

	// comparison sums the comparison of the targets up: the best target of
	// each cell and each target over all cells (comparisonConfigMap has the
	// rankings and baseline deltas per cell).
	// +optional
	Comparison *ComparisonSummary `json:"comparison,omitempty"`

	// verdict is Passed (every Fail threshold holds), Failed (one does not)
	// or Inconclusive (the run did not produce the results a threshold
	// needs). Empty until the run completes.
	// +optional
	Verdict Verdict `json:"verdict,omitempty"`

	// violations lists the broken thresholds, at most 64 (all of them are
	// in comparisonConfigMap).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Violations []Violation `json:"violations,omitempty"`

	// warnings are reasons to doubt a result: a data set the page cache can
	// hold, a slower engine backend, skewed clients, an unmet rate.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	Warnings []Warning `json:"warnings,omitempty"`

	// recommendation names the cheapest target that meets every threshold
	// (the fastest when no prices are given), and why. A target that breaks
	// a Warn threshold is recommended only when every target breaks one
	// (the reason then says so); one that breaks a Fail threshold never.
	// +optional
	Recommendation *Recommendation `json:"recommendation,omitempty"`

	// comparisonConfigMap names the ConfigMap with the run's whole outcome:
	// the comparison with rankings and baseline deltas per cell, every
	// violation and every warning (status keeps bounded summaries).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ComparisonConfigMap string `json:"comparisonConfigMap,omitempty"`
}

// Progress counts the cells run so far.
type Progress struct {
	// cellsDone is the number of (target, cell, repetition) runs finished.
	CellsDone int32 `json:"cellsDone"`
	// cellsTotal is the number of (target, cell, repetition) runs in all.
	CellsTotal int32 `json:"cellsTotal"`
	// currentTarget is the target being run, empty when none is.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	CurrentTarget string `json:"currentTarget,omitempty"`
	// summary is cellsDone/cellsTotal, for printing, and while capacity
	// searches run the round of each target searching ("5/5, search
	// round 3"): their steps are decided as they go.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Summary string `json:"summary,omitempty"`
}

// TargetState is where a target is in its run.
// +kubebuilder:validation:Enum=Pending;Provisioning;Preparing;Running;Collecting;Succeeded;Failed
type TargetState string

const (
	// TargetPending waits for its turn (targets run one after another).
	TargetPending TargetState = "Pending"
	// TargetProvisioning waits for its volumes to bind and clients to start.
	TargetProvisioning TargetState = "Provisioning"
	// TargetPreparing waits for the clients to lay out their data.
	TargetPreparing TargetState = "Preparing"
	// TargetRunning measures: the clients run the cells.
	TargetRunning TargetState = "Running"
	// TargetCollecting reads and merges the clients' results.
	TargetCollecting TargetState = "Collecting"
	// TargetSucceeded has its results stored.
	TargetSucceeded TargetState = "Succeeded"
	// TargetFailed ended without results; message says why.
	TargetFailed TargetState = "Failed"
)

// TargetStatus is one target's state and results.
type TargetStatus struct {
	// name of the target.
	// +required
	// +kubebuilder:validation:MaxLength=32
	Name string `json:"name"`

	// state is where the target is in its run.
	// +optional
	State TargetState `json:"state,omitempty"`

	// message explains the state: what it waits for or why it failed.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`

	// provisioningStartTime is when the target's volumes were requested.
	// +optional
	ProvisioningStartTime *metav1.Time `json:"provisioningStartTime,omitempty"`

	// volumesBoundMilliseconds is how long all the target's volumes took
	// from request to bound (with WaitForFirstConsumer classes this includes
	// scheduling the first client).
	// +optional
	VolumesBoundMilliseconds *int64 `json:"volumesBoundMilliseconds,omitempty"`

	// clientsReadyMilliseconds is how long from requesting the volumes
	// until every client had laid out its data and was ready to measure.
	// +optional
	ClientsReadyMilliseconds *int64 `json:"clientsReadyMilliseconds,omitempty"`

	// dataLayoutMilliseconds is the slowest client's data layout (writing
	// its data set before the first cell), part of clientsReadyMilliseconds.
	// +optional
	DataLayoutMilliseconds *int64 `json:"dataLayoutMilliseconds,omitempty"`

	// startLeadMilliseconds is how far ahead of its publication the start
	// lay: the time every client had to see it, from the API server's
	// measured latency and clients.maxClockOffsetMilliseconds (about 1.2 s
	// with the default offset bound).
	// +optional
	StartLeadMilliseconds *int64 `json:"startLeadMilliseconds,omitempty"`

	// collectionMilliseconds is how long from the last cell's scheduled end
	// until the clients' reports were read and merged (storing them and the
	// cleanup follow).
	// +optional
	CollectionMilliseconds *int64 `json:"collectionMilliseconds,omitempty"`

	// measurementStartTime is the instant every client started its first
	// cell.
	// +optional
	MeasurementStartTime *metav1.Time `json:"measurementStartTime,omitempty"`

	// startSkewMicroseconds is the largest difference between the clients'
	// actual start of a cell, over all cells.
	// +optional
	StartSkewMicroseconds *int64 `json:"startSkewMicroseconds,omitempty"`

	// backend is the engine backend the clients used (io_uring, libaio,
	// psync); several, comma-separated, when clients differed.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Backend string `json:"backend,omitempty"`

	// resultsConfigMap names the ConfigMap with the full results: merged and
	// per-client numbers and the merged histograms.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ResultsConfigMap string `json:"resultsConfigMap,omitempty"`

	// environment sums up what the results depend on besides the workload
	// (resultsConfigMap has the class parameters, volume attributes and
	// every node's fingerprint).
	// +optional
	Environment *EnvironmentSummary `json:"environment,omitempty"`

	// cells sum up the target's results per cell, merged over all clients
	// and jobs from their histograms (never averaged), in spec order;
	// resultsConfigMap has reads and writes apart, every percentile and
	// every client. The list is atomic (written whole, when the target's
	// results are stored): managedFields then record one field, not one
	// entry per cell, which keeps status within its budget.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Cells []CellSummary `json:"cells,omitempty"`

	// searches are the target's capacity answers, one per search (each
	// search's curve, step by step, is in resultsConfigMap). Atomic, as
	// cells.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Searches []SearchSummary `json:"searches,omitempty"`
}

// SearchSummary is what one capacity search found on one target.
type SearchSummary struct {
	// search is the search's name (workload-bs<size>-r<read%>).
	// +kubebuilder:validation:MaxLength=64
	Search string `json:"search"`
	// outcome is Found (capacityIOPS is the most load that held),
	// HoldsAtMaximum (the bound held at the most the search offers) or
	// NotReachable (not even at the lowest load: capacityIOPS is 0).
	// +kubebuilder:validation:MaxLength=16
	Outcome string `json:"outcome"`
	// capacityIOPS is the IOs per second of reads and writes over all
	// clients at the highest load that held the bound, a decimal string.
	// +kubebuilder:validation:MaxLength=24
	CapacityIOPS string `json:"capacityIOPS"`
	// latencyMicroseconds is the latency at the bound's percentile there.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	LatencyMicroseconds string `json:"latencyMicroseconds,omitempty"`
	// steps is how many steps the search ran.
	Steps int32 `json:"steps"`
}

// EnvironmentSummary is the part of a target's fingerprint kept in status.
type EnvironmentSummary struct {
	// storageClassName the volumes came from.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	StorageClassName string `json:"storageClassName,omitempty"`
	// provisioner of the storage class.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Provisioner string `json:"provisioner,omitempty"`
	// driver is the CSI driver (or in-tree volume type) of the volumes.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Driver string `json:"driver,omitempty"`
	// nodes is the number of nodes the clients ran on.
	// +optional
	Nodes int32 `json:"nodes,omitempty"`
	// engineVersion of the clients.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	EngineVersion string `json:"engineVersion,omitempty"`
}

// CellSummary is one cell's result on one target, merged over all clients:
// reads and writes together.
type CellSummary struct {
	// name of the cell (workload-bs<size>-r<read%>-qd<depth>-j<jobs>).
	// +kubebuilder:validation:MaxLength=96
	Name string `json:"name"`
	// iops is the IOs per second of reads and writes, summed over all
	// clients, a decimal string.
	// +kubebuilder:validation:MaxLength=24
	IOPS string `json:"iops"`
	// bytesPerSecond of reads and writes, summed over all clients.
	BytesPerSecond int64 `json:"bytesPerSecond"`
	// p99Microseconds is the 99th percentile latency of all IOs of all
	// clients (reads and writes merged from their histograms), from each
	// IO's intended start.
	// +kubebuilder:validation:MaxLength=24
	P99Microseconds string `json:"p99Microseconds"`
	// spreadPercent is (max - min) / median of the total IOPS over the
	// repetitions, when there were several.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	SpreadPercent string `json:"spreadPercent,omitempty"`
}

// Environment is the fingerprint recorded with a target's results.
type Environment struct {
	// storageClassName the volumes came from.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	StorageClassName string `json:"storageClassName,omitempty"`
	// provisioner of the storage class.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Provisioner string `json:"provisioner,omitempty"`
	// parameters of the storage class.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Parameters map[string]string `json:"parameters,omitempty"`
	// driver is the CSI driver (or in-tree volume type) of the volumes.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Driver string `json:"driver,omitempty"`
	// volumeAttributes of the first volume (CSI volume attributes).
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty"`
	// nodes the clients ran on.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Nodes []NodeFingerprint `json:"nodes,omitempty"`
	// engineVersion of the clients.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	EngineVersion string `json:"engineVersion,omitempty"`
}

// NodeFingerprint describes a node clients ran on.
type NodeFingerprint struct {
	// name of the node.
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// zone label (topology.kubernetes.io/zone).
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Zone string `json:"zone,omitempty"`
	// instanceType label (node.kubernetes.io/instance-type).
	// +optional
	// +kubebuilder:validation:MaxLength=128
	InstanceType string `json:"instanceType,omitempty"`
	// kernelVersion from the node's status.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	KernelVersion string `json:"kernelVersion,omitempty"`
	// clients is how many of the target's clients ran there.
	// +optional
	Clients int32 `json:"clients,omitempty"`
}

// LatencySummary holds latencies in microseconds as decimal strings.
type LatencySummary struct {
	// mean latency.
	// +kubebuilder:validation:MaxLength=24
	Mean string `json:"mean"`
	// p50 is the median.
	// +kubebuilder:validation:MaxLength=24
	P50 string `json:"p50"`
	// p90 is the 90th percentile.
	// +kubebuilder:validation:MaxLength=24
	P90 string `json:"p90"`
	// p99 is the 99th percentile.
	// +kubebuilder:validation:MaxLength=24
	P99 string `json:"p99"`
	// p999 is the 99.9th percentile.
	// +kubebuilder:validation:MaxLength=24
	P999 string `json:"p999"`
	// max is the slowest IO.
	// +kubebuilder:validation:MaxLength=24
	Max string `json:"max"`
}

// Verdict is the outcome of the thresholds.
// +kubebuilder:validation:Enum=Passed;Failed;Inconclusive
type Verdict string

const (
	// VerdictPassed means every threshold of severity Fail holds.
	VerdictPassed Verdict = "Passed"
	// VerdictFailed means a threshold of severity Fail is broken.
	VerdictFailed Verdict = "Failed"
	// VerdictInconclusive means the results a threshold needs are missing.
	VerdictInconclusive Verdict = "Inconclusive"
)

// Violation is a broken threshold.
type Violation struct {
	// threshold is the name of the broken threshold.
	// +kubebuilder:validation:MaxLength=63
	Threshold string `json:"threshold"`
	// severity of the threshold.
	Severity Severity `json:"severity"`
	// target that broke it.
	// +kubebuilder:validation:MaxLength=32
	Target string `json:"target"`
	// cell that broke it.
	// +kubebuilder:validation:MaxLength=96
	Cell string `json:"cell"`
	// metric compared, e.g. totalIOPS, readLatencyP99Microseconds.
	// +kubebuilder:validation:MaxLength=64
	Metric string `json:"metric"`
	// limit is the threshold's bound, a decimal string.
	// +kubebuilder:validation:MaxLength=32
	Limit string `json:"limit"`
	// measured is the value measured, a decimal string.
	// +kubebuilder:validation:MaxLength=32
	Measured string `json:"measured"`
	// referenceValue is, for a maxRegression, the value compared with (the
	// baseline's, or the earlier runs'): "then" of a drift. IOs/s, bytes/s
	// or microseconds, as the threshold's metric; a decimal string.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	ReferenceValue string `json:"referenceValue,omitempty"`
	// value is, for a maxRegression, the target's own value ("now"), in the
	// unit of referenceValue.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Value string `json:"value,omitempty"`
}

// Warning is a reason to doubt a result.
type Warning struct {
	// reason is a CamelCase code, e.g. DatasetFitsInMemory.
	// +kubebuilder:validation:MaxLength=64
	Reason string `json:"reason"`
	// target concerned, if one.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Target string `json:"target,omitempty"`
	// cell concerned, if one.
	// +optional
	// +kubebuilder:validation:MaxLength=96
	Cell string `json:"cell,omitempty"`
	// message explains it.
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message"`
}

// Recommendation is the answer the user wanted: which target to use.
type Recommendation struct {
	// target recommended.
	// +kubebuilder:validation:MaxLength=32
	Target string `json:"target"`
	// reason it was chosen.
	// +kubebuilder:validation:MaxLength=512
	Reason string `json:"reason"`
}
