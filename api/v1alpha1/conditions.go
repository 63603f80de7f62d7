package v1alpha1

// Condition types, chosen so that kstatus (Flux), Argo CD health checks and
// `kubectl wait` read the benchmark's state without custom code:
// Reconciling and Stalled are "abnormal-true" (present only while true).
const (
	// ConditionReconciling is True while a run is in progress.
	ConditionReconciling = "Reconciling"
	// ConditionCompleted is True once the run for the current generation
	// ended, whether it passed, failed its thresholds or failed to run:
	// `kubectl wait --for=condition=Completed`, then read the verdict.
	ConditionCompleted = "Completed"
	// ConditionReady is True when the run completed and the thresholds hold.
	ConditionReady = "Ready"
	// ConditionStalled is True when the run failed or the thresholds failed.
	ConditionStalled = "Stalled"
	// ConditionThresholdsMet says whether every Fail threshold holds.
	ConditionThresholdsMet = "ThresholdsMet"
	// ConditionDrifted, on a StorageBenchmarkSchedule, is True when its
	// latest completed run broke a threshold that compares with earlier
	// runs; the message names target, cell, metric, then and now.
	ConditionDrifted = "Drifted"
)

// Condition reasons (CamelCase, as the API conventions ask).
const (
	ReasonInvalidSpec     = "InvalidSpec"
	ReasonRunStarted      = "RunStarted"
	ReasonRunning         = "Running"
	ReasonSucceeded       = "Succeeded"
	ReasonRunFailed       = "RunFailed"
	ReasonVolumeNotBound  = "VolumeNotBound"
	ReasonClientFailed    = "ClientFailed"
	ReasonClientsNotReady = "ClientsNotReady"
	// ReasonClientsUnschedulable: spread Required and fewer nodes than
	// clients can take them.
	ReasonClientsUnschedulable = "ClientsUnschedulable"
	ReasonResultsUnreadable    = "ResultsUnreadable"
	ReasonTimedOut             = "TimedOut"
	ReasonThresholdsPassed     = "ThresholdsPassed"
	ReasonThresholdsFailed     = "ThresholdsFailed"
	ReasonNoThresholds         = "NoThresholds"
	ReasonResultsIncomplete    = "ResultsIncomplete"
	ReasonPending              = "Pending"
	ReasonClaimNotFound        = "ClaimNotFound"
	ReasonStorageClassMissing  = "StorageClassNotFound"
)

// Event reasons beside the condition reasons above (events of a failed or
// finished run reuse those): what `kubectl describe` and event filters show
// for each step of a run.
const (
	EventVolumeRequested      = "VolumeRequested"
	EventVolumesBound         = "VolumesBound"
	EventClientsCreated       = "ClientsCreated"
	EventMeasurementScheduled = "MeasurementScheduled"
	EventResultsCollected     = "ResultsCollected"
	EventVolumesDeleted       = "VolumesDeleted"
)

// Event actions: the phase of the run an event was recorded in.
const (
	ActionValidate  = "Validate"
	ActionProvision = "Provision"
	ActionStart     = "Start"
	ActionCollect   = "Collect"
	ActionCleanup   = "Cleanup"
	ActionComplete  = "Complete"
	ActionFail      = "Fail"
)
