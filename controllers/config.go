package controllers

import (
	corev1 "k8s.io/api/core/v1"
)

// ClientPodConfig is what the operator's installation decides about client
// pods (Helm values / manager flags); spec.clients overrides the defaults.
type ClientPodConfig struct {
	// Image runs the engine: the operator's own image, so the clients and
	// the controller are always the same version.
	Image           string
	ImagePullPolicy corev1.PullPolicy
	// DefaultResources apply when spec.clients.resources is unset.
	DefaultResources corev1.ResourceRequirements
	// DefaultNodeSelector and DefaultTolerations are merged with the spec's.
	DefaultNodeSelector map[string]string
	DefaultTolerations  []corev1.Toleration
}

// engineContainer is the client pods' one container: it measures and
// writes its report to its log.
const engineContainer = "engine"

// clientBinary is where the image keeps the storagebench binary.
const clientBinary = "/storagebench"

// Paths inside client pods.
const (
	planMountPath = "/etc/storagebench/plan"
	tmpMountPath  = "/tmp"
	readyFile     = "/tmp/storagebench/ready"
)

// readyProbeWait is how long each startup probe of a client looks for the
// ready file: most of the probe's 1 s period, well within its timeout.
const readyProbeWait = "900ms"

// clientUID is the non-root user client pods run as (distroless "nonroot").
const clientUID = 65532
