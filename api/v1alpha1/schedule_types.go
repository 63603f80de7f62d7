package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Bounds of a schedule's history, which bound its status and the runs (and
// their results ConfigMaps) a schedule keeps.
const (
	// MaxRunsHistoryLimit is the most successful (and the most failed) runs
	// a schedule keeps.
	MaxRunsHistoryLimit = 20
	// MaxRecentRuns is the most runs a schedule's status lists.
	MaxRecentRuns = 20
)

// StorageBenchmarkSchedule runs a StorageBenchmark on a cron schedule, as a
// CronJob runs Jobs, keeps the latest runs and says when a target drifts
// from its earlier runs (thresholds with maxRegression against Previous or
// MedianOfLast).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=sbsched,categories=storagebench
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Last Run",type=date,JSONPath=`.status.runs[0].scheduledTime`
// +kubebuilder:printcolumn:name="Last Verdict",type=string,JSONPath=`.status.lastVerdict`
// +kubebuilder:printcolumn:name="Drifted",type=string,JSONPath=`.status.conditions[?(@.type=="Drifted")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 52",message="a schedule's name must be at most 52 characters: its runs are named <schedule>-<minutes since 1970>, as a CronJob's Jobs"
type StorageBenchmarkSchedule struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says when to run which benchmark and how many runs to keep.
	// +required
	Spec StorageBenchmarkScheduleSpec `json:"spec"`

	// status is written by the controller: the runs, their verdicts and
	// headline numbers, and whether the latest run drifted.
	// +optional
	// +kubebuilder:default={observedGeneration:-1}
	Status StorageBenchmarkScheduleStatus `json:"status,omitempty"`
}

// StorageBenchmarkScheduleSpec says when to run which benchmark.
type StorageBenchmarkScheduleSpec struct {
	// schedule in cron syntax: five fields (minute hour day-of-month month
	// day-of-week) or a descriptor (@hourly, @daily, @weekly, @every 6h),
	// as a CronJob's schedule.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Schedule string `json:"schedule"`

	// timeZone the schedule is read in, an IANA name (e.g. Europe/Berlin);
	// default the manager's (UTC in its image).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	TimeZone *string `json:"timeZone,omitempty"`

	// startingDeadlineSeconds: a run that could not start within this many
	// seconds of its scheduled time (the manager was down, or Forbid held
	// it back) is skipped, and the next one waits for its own time; default
	// no deadline (the latest missed time runs at once).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=31536000
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// concurrencyPolicy is what happens when a run is due while the
	// previous one is still running: Forbid (default) holds the due run
	// back until the running one ends (it then starts if still within
	// startingDeadlineSeconds; a later scheduled time supersedes it),
	// Replace deletes the running one and starts the new one. Two runs of
	// one schedule never measure at once: they would load the same storage.
	// +optional
	// +kubebuilder:default=Forbid
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// suspend stops new runs; a running one goes on.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// successfulRunsHistoryLimit is how many runs that completed and met
	// their thresholds to keep (default 3); older ones are deleted with
	// their results ConfigMaps. MedianOfLast compares with the runs kept.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=20
	SuccessfulRunsHistoryLimit *int32 `json:"successfulRunsHistoryLimit,omitempty"`

	// failedRunsHistoryLimit is how many runs that failed (to run, or their
	// thresholds) or were inconclusive to keep (default 1). The newest
	// completed run is kept whatever the limits: status describes it.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=20
	FailedRunsHistoryLimit *int32 `json:"failedRunsHistoryLimit,omitempty"`

	// template is the benchmark each run creates.
	// +required
	Template StorageBenchmarkTemplate `json:"template"`
}

// StorageBenchmarkTemplate describes the benchmark a schedule creates.
type StorageBenchmarkTemplate struct {
	// metadata holds labels and annotations copied onto each run.
	// +optional
	Metadata TemplateMetadata `json:"metadata,omitempty"`

	// spec of each run's StorageBenchmark.
	// +required
	Spec StorageBenchmarkSpec `json:"spec"`
}

// TemplateMetadata is the part of object metadata a template may set.
type TemplateMetadata struct {
	// labels copied onto each run.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Labels map[string]string `json:"labels,omitempty"`
	// annotations copied onto each run.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ConcurrencyPolicy says what to do with a run that is due while the
// previous one still runs.
// +kubebuilder:validation:Enum=Forbid;Replace
type ConcurrencyPolicy string

const (
	// ForbidConcurrent holds the due run until the running one ends.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the running run and starts the due one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// StorageBenchmarkScheduleStatus is what the schedule did and what its runs
// found.
type StorageBenchmarkScheduleStatus struct {
	// observedGeneration is the spec generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (the schedule is valid and its latest run passed),
	// Stalled (the spec is invalid, or the latest run failed), Reconciling
	// (a run is in progress) and Drifted (the latest completed run broke a
	// threshold that compares with earlier runs: the message names the
	// target, cell, metric, then and now).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// lastScheduleTime is the latest scheduled time handled: a run was
	// created for it, or it was skipped past startingDeadlineSeconds.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// lastSuccessfulTime is when the latest run that passed completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`

	// nextScheduleTime is when the next run is due (unset while suspended).
	// +optional
	NextScheduleTime *metav1.Time `json:"nextScheduleTime,omitempty"`

	// lastVerdict is the verdict of the latest completed run, Failed for a
	// run that failed to run.
	// +optional
	LastVerdict Verdict `json:"lastVerdict,omitempty"`

	// active names the run in progress, if one is.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Active string `json:"active,omitempty"`

	// runs lists the runs kept, newest first, with their verdict and
	// headline numbers (at most 20).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	Runs []ScheduledRun `json:"runs,omitempty"`
}

// ScheduledRun is one run of a schedule.
type ScheduledRun struct {
	// name of the run's StorageBenchmark.
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// scheduledTime the run was created for.
	ScheduledTime metav1.Time `json:"scheduledTime"`
	// completionTime is when it ended; unset while it runs.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// verdict of the run: Passed, Failed (thresholds, or the run failed)
	// or Inconclusive; empty while it runs.
	// +optional
	Verdict Verdict `json:"verdict,omitempty"`
	// drifted is true when the run broke a threshold that compares with
	// earlier runs.
	// +optional
	Drifted bool `json:"drifted,omitempty"`
	// targets' headline numbers.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Targets []TargetHeadline `json:"targets,omitempty"`
}

// TargetHeadline is a target's result in one number.
type TargetHeadline struct {
	// name of the target.
	// +kubebuilder:validation:MaxLength=32
	Name string `json:"name"`
	// geomeanIOPS is the geometric mean of the target's total IOPS over its
	// IO cells (metadata cells excluded), a decimal string; empty when the
	// target has no IO result.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	GeomeanIOPS string `json:"geomeanIOPS,omitempty"`
}

// StorageBenchmarkScheduleList is a list of StorageBenchmarkSchedules.
//
// +kubebuilder:object:root=true
type StorageBenchmarkScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the StorageBenchmarkSchedules.
	Items []StorageBenchmarkSchedule `json:"items"`
}
