package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StorageBenchmark compares the performance of storage classes (or existing
// volumes) under a matrix of IO workloads run by synchronized client pods, and
// turns thresholds into conditions a rollout can be gated on.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=sbench,categories=storagebench
// +kubebuilder:printcolumn:name="Targets",type=string,JSONPath=`.status.targetNames`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress.summary`
// +kubebuilder:printcolumn:name="Verdict",type=string,JSONPath=`.status.verdict`
// +kubebuilder:printcolumn:name="Best",type=string,JSONPath=`.status.recommendation.target`
// +kubebuilder:printcolumn:name="Capacity",type=string,JSONPath=`.status.capacity`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type StorageBenchmark struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what to benchmark and how; a change to it starts a new run.
	// +required
	Spec StorageBenchmarkSpec `json:"spec"`

	// status is written by the controller: progress, results, comparison and
	// verdict of the run for status.observedGeneration.
	// +optional
	// +kubebuilder:default={observedGeneration:-1}
	Status StorageBenchmarkStatus `json:"status,omitempty"`
}

// StorageBenchmarkList is a list of StorageBenchmarks.
//
// +kubebuilder:object:root=true
type StorageBenchmarkList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the StorageBenchmarks.
	Items []StorageBenchmark `json:"items"`
}
