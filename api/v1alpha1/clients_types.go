package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// Clients says how many client pods load each target and where they run.
type Clients struct {
	// count is the number of client pods per target. They start every cell
	// at the same instant and their results are merged exactly.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	Count int32 `json:"count,omitempty"`

	// spread places the clients of a target on different nodes: Preferred
	// (when possible), Required (fail to schedule otherwise) or None.
	// +optional
	// +kubebuilder:default=Preferred
	Spread SpreadPolicy `json:"spread,omitempty"`

	// nodeSelector restricts the nodes clients run on.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations let clients run on tainted nodes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// affinity adds scheduling constraints to the clients' pods.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// resources of each client's engine container. Go sizes its thread pool
	// from the CPU limit, so a limit below the number of jobs per client
	// makes the clients CPU-bound.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// priorityClassName of the client pods.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PriorityClassName string `json:"priorityClassName,omitempty"`

	// maxClockOffsetMilliseconds is how far a client's clock may be from the
	// controller's: a client further off refuses to start, because its cells
	// would not overlap with the others'.
	// +optional
	// +kubebuilder:default=500
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=60000
	MaxClockOffsetMilliseconds int32 `json:"maxClockOffsetMilliseconds,omitempty"`
}

// SpreadPolicy says how to place the clients of a target across nodes.
// +kubebuilder:validation:Enum=Preferred;Required;None
type SpreadPolicy string

const (
	// SpreadPreferred spreads clients across nodes when the scheduler can.
	SpreadPreferred SpreadPolicy = "Preferred"
	// SpreadRequired puts every client on its own node.
	SpreadRequired SpreadPolicy = "Required"
	// SpreadNone leaves placement to the scheduler.
	SpreadNone SpreadPolicy = "None"
)
