package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
	// (spread evenly when the scheduler can), Required (every client on a
	// node of its own; the run fails at once, naming the nodes, when fewer
	// nodes can take them) or None.
	// +optional
	// +kubebuilder:default=Preferred
	Spread SpreadPolicy `json:"spread,omitempty"`

	// colocateTargets places client i of every target on the node of
	// client i of the first target (a required pod affinity), so that
	// groups joined across targets by concurrentWith load one node's
	// volumes together: seed 001's reader of one disk and writer of
	// another, which measure the VM's limit. Needs targetExecution
	// Parallel.
	// +optional
	ColocateTargets bool `json:"colocateTargets,omitempty"`

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
	Resources *ClientResources `json:"resources,omitempty"`

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

// ClientResources are the resource requests and limits of each client's
// engine container, as in a container's resources, for the resources an IO
// engine uses. They are checked here rather than when the client pods are
// created, where a bad value would only show as a Job that cannot start its
// pods.
//
// +kubebuilder:validation:XValidation:rule="!has(self.limits) || !has(self.requests) || !has(self.limits.cpu) || !has(self.requests.cpu) || !isQuantity(string(self.limits.cpu)) || !isQuantity(string(self.requests.cpu)) || quantity(string(self.requests.cpu)).compareTo(quantity(string(self.limits.cpu))) <= 0",messageExpression="'requests.cpu ' + string(self.requests.cpu) + ' exceeds limits.cpu ' + string(self.limits.cpu) + ': a request may not exceed its limit'",fieldPath=".requests.cpu"
// +kubebuilder:validation:XValidation:rule="!has(self.limits) || !has(self.requests) || !has(self.limits.memory) || !has(self.requests.memory) || !isQuantity(string(self.limits.memory)) || !isQuantity(string(self.requests.memory)) || quantity(string(self.requests.memory)).compareTo(quantity(string(self.limits.memory))) <= 0",messageExpression="'requests.memory ' + string(self.requests.memory) + ' exceeds limits.memory ' + string(self.limits.memory) + ': a request may not exceed its limit'",fieldPath=".requests.memory"
// +kubebuilder:validation:XValidation:rule="!has(self.limits) || !has(self.requests) || !has(self.limits.ephemeral__dash__storage) || !has(self.requests.ephemeral__dash__storage) || !isQuantity(string(self.limits.ephemeral__dash__storage)) || !isQuantity(string(self.requests.ephemeral__dash__storage)) || quantity(string(self.requests.ephemeral__dash__storage)).compareTo(quantity(string(self.limits.ephemeral__dash__storage))) <= 0",messageExpression="'requests.ephemeral-storage ' + string(self.requests.ephemeral__dash__storage) + ' exceeds limits.ephemeral-storage ' + string(self.limits.ephemeral__dash__storage) + ': a request may not exceed its limit'",fieldPath=".requests.ephemeral-storage"
type ClientResources struct {
	// limits are the most of each resource the engine container may use;
	// unset means no limit.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.cpu) || !isQuantity(string(self.cpu)) || quantity(string(self.cpu)).compareTo(quantity('0')) > 0",messageExpression="'cpu ' + string(self.cpu) + ' must be positive (leave the limit out for none)'",fieldPath=".cpu"
	// +kubebuilder:validation:XValidation:rule="!has(self.memory) || !isQuantity(string(self.memory)) || quantity(string(self.memory)).compareTo(quantity('0')) > 0",messageExpression="'memory ' + string(self.memory) + ' must be positive (leave the limit out for none)'",fieldPath=".memory"
	// +kubebuilder:validation:XValidation:rule="!has(self.ephemeral__dash__storage) || !isQuantity(string(self.ephemeral__dash__storage)) || quantity(string(self.ephemeral__dash__storage)).compareTo(quantity('0')) > 0",messageExpression="'ephemeral-storage ' + string(self.ephemeral__dash__storage) + ' must be positive (leave the limit out for none)'",fieldPath=".ephemeral-storage"
	Limits *ResourceAmounts `json:"limits,omitempty"`
	// requests are what the scheduler reserves for the engine container.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.cpu) || !isQuantity(string(self.cpu)) || quantity(string(self.cpu)).compareTo(quantity('0')) >= 0",messageExpression="'cpu ' + string(self.cpu) + ' must not be negative'",fieldPath=".cpu"
	// +kubebuilder:validation:XValidation:rule="!has(self.memory) || !isQuantity(string(self.memory)) || quantity(string(self.memory)).compareTo(quantity('0')) >= 0",messageExpression="'memory ' + string(self.memory) + ' must not be negative'",fieldPath=".memory"
	// +kubebuilder:validation:XValidation:rule="!has(self.ephemeral__dash__storage) || !isQuantity(string(self.ephemeral__dash__storage)) || quantity(string(self.ephemeral__dash__storage)).compareTo(quantity('0')) >= 0",messageExpression="'ephemeral-storage ' + string(self.ephemeral__dash__storage) + ' must not be negative'",fieldPath=".ephemeral-storage"
	Requests *ResourceAmounts `json:"requests,omitempty"`
}

// ResourceAmounts are amounts of the resources a client container uses.
type ResourceAmounts struct {
	// cpu in cores ("2", "500m").
	// +optional
	CPU *resource.Quantity `json:"cpu,omitempty"`
	// memory in bytes ("4Gi").
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
	// ephemeral-storage in bytes, for the container's writable layer and
	// logs.
	// +optional
	EphemeralStorage *resource.Quantity `json:"ephemeral-storage,omitempty"`
}

// Requirements converts them for a container.
func (r *ClientResources) Requirements() corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Limits: r.Limits.list(), Requests: r.Requests.list()}
}

func (a *ResourceAmounts) list() corev1.ResourceList {
	if a == nil {
		return nil
	}
	out := corev1.ResourceList{}
	for name, q := range map[corev1.ResourceName]*resource.Quantity{
		corev1.ResourceCPU: a.CPU, corev1.ResourceMemory: a.Memory, corev1.ResourceEphemeralStorage: a.EphemeralStorage,
	} {
		if q != nil {
			out[name] = q.DeepCopy()
		}
	}
	return out
}
