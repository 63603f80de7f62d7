package plan

import (
	corev1 "k8s.io/api/core/v1"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Paths where a cluster client finds its volume.
const (
	MountPath  = "/data"
	DevicePath = "/dev/storagebench-target"
)

// Shared reports whether all clients of a target use one volume.
func Shared(t *sbv1.Target) bool {
	return t.AccessMode == corev1.ReadWriteMany || t.ExistingClaimName != nil
}

// roundWaitMargin is what a client waits for a search round beyond the
// controller's collection timeout: a publication's lead, and a manager
// restarting.
const roundWaitMargin = 120

// Build makes a target's plan from the spec. path is where the volume is
// (MountPath or DevicePath in a pod, a directory for the local runner).
func Build(b *sbv1.StorageBenchmark, t *sbv1.Target, path string) *Plan {
	spec := &b.Spec
	mode := string(corev1.PersistentVolumeFilesystem)
	if t.VolumeMode == corev1.PersistentVolumeBlock {
		mode = string(corev1.PersistentVolumeBlock)
	}
	clients := spec.Clients.Count
	if clients < 1 {
		clients = 1
	}
	files := spec.Dataset.FilesPerClient
	if files < 1 || mode == string(corev1.PersistentVolumeBlock) {
		files = 1
	}
	fill := string(spec.Dataset.Fill)
	if fill == "" {
		fill = string(sbv1.FillIfMissing)
	}
	slots := Slots(spec, t.Name)
	p := &Plan{
		SchemaVersion: SchemaVersion,
		Benchmark:     b.Name,
		Namespace:     b.Namespace,
		Generation:    b.Generation,
		Target:        t.Name,
		Clients:       clients,
		Data: Data{
			Mode:               mode,
			Path:               path,
			Shared:             Shared(t),
			SizePerClientBytes: spec.Dataset.SizePerClient.Bytes(),
			FilesPerClient:     files,
			Fill:               fill,
			ZeroBuffers:        spec.Dataset.Content == sbv1.ContentZeros,
			LargestBlockBytes:  largestBlockBytes(spec, t.Name, slots),
		},
		Slots:                      slots,
		Searches:                   Searches(spec, t.Name),
		WaitForRoundSeconds:        spec.Timeouts.CollectSeconds + roundWaitMargin,
		IOEngine:                   "auto",
		MaxClockOffsetMilliseconds: spec.Clients.MaxClockOffsetMilliseconds,
		WaitForStartSeconds:        spec.Timeouts.VolumeBindSeconds + spec.Timeouts.PrepareSeconds,
	}
	if spec.Dataset.Verify.Enabled() {
		p.Data.Verify = strings.ToLower(string(spec.Dataset.Verify))
		p.Data.VerifyIntervalBytes = spec.VerifyIntervalBytes()
	}
	return p
}
