package controllers

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list
// +kubebuilder:rbac:groups="",resources=persistentvolumes,verbs=get

// maxFingerprintEntries bounds maps copied from the cluster into status.
const maxFingerprintEntries = 32

// fingerprint records what a target's results depend on besides the
// workload: the class and its parameters, the volume's driver, and the
// nodes (zone, instance type, kernel). It also returns each client node's
// memory, for the page-cache warning. A detail that cannot be read is left
// out rather than failing a finished measurement.
func (r *StorageBenchmarkReconciler) fingerprint(ctx context.Context, b *sbv1.StorageBenchmark, t *sbv1.Target, s *snapshot, pods []*corev1.Pod, engineVersion string) (*sbv1.Environment, map[string]int64, error) {
	logger := log.FromContext(ctx)
	env := &sbv1.Environment{EngineVersion: engineVersion}

	claim := r.firstClaim(ctx, b, t, s)
	className := ""
	if claim != nil && claim.Spec.StorageClassName != nil {
		className = *claim.Spec.StorageClassName
	} else if t.StorageClassName != nil {
		className = *t.StorageClassName
	}
	if className != "" {
		env.StorageClassName = className
		if class, err := r.storageClass(ctx, b, className); err == nil {
			env.Provisioner = class.Provisioner
			env.Parameters = boundedMap(class.Parameters)
		} else {
			logger.Info("Storage class not readable for the fingerprint", "storageClass", className, "err", err.Error())
		}
	}
	if claim != nil && claim.Spec.VolumeName != "" {
		pv := &corev1.PersistentVolume{}
		if err := r.APIReader.Get(ctx, types.NamespacedName{Name: claim.Spec.VolumeName}, pv); err == nil {
			env.Driver, env.VolumeAttributes = volumeDriver(pv)
		} else {
			logger.Info("Volume not readable for the fingerprint", "persistentVolume", claim.Spec.VolumeName, "err", err.Error())
		}
	}

	memory := map[string]int64{}
	perNode := map[string]int32{}
	for _, pod := range pods {
		perNode[pod.Spec.NodeName]++
	}
	names := make([]string, 0, len(perNode))
	for n := range perNode {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		fp := sbv1.NodeFingerprint{Name: name, Clients: perNode[name]}
		node := &corev1.Node{}
		if err := r.APIReader.Get(ctx, types.NamespacedName{Name: name}, node); err == nil {
			fp.Zone = node.Labels[corev1.LabelTopologyZone]
			fp.InstanceType = node.Labels[corev1.LabelInstanceTypeStable]
			fp.KernelVersion = node.Status.NodeInfo.KernelVersion
			if m, ok := node.Status.Capacity[corev1.ResourceMemory]; ok {
				memory[name] = m.Value()
			}
		} else {
			logger.Info("Node not readable for the fingerprint", "node", name, "err", err.Error())
		}
		if len(env.Nodes) < 64 {
			env.Nodes = append(env.Nodes, fp)
		}
	}
	return env, memory, nil
}

// storageClass is the class as read when the generation was validated;
// read again only if this process did not validate it (a claim of an
// existing-claim target names its own class).
func (r *StorageBenchmarkReconciler) storageClass(ctx context.Context, b *sbv1.StorageBenchmark, name string) (*storagev1.StorageClass, error) {
	if class, ok := r.references.class(b, name); ok {
		return class, nil
	}
	class := &storagev1.StorageClass{}
	if err := r.APIReader.Get(ctx, types.NamespacedName{Name: name}, class); err != nil {
		return nil, err
	}
	return class, nil
}

func (r *StorageBenchmarkReconciler) firstClaim(ctx context.Context, b *sbv1.StorageBenchmark, t *sbv1.Target, s *snapshot) *corev1.PersistentVolumeClaim {
	name := claimNames(b, t)[0]
	if c := s.claims[name]; c != nil {
		return c
	}
	claim := &corev1.PersistentVolumeClaim{}
	if err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: b.Namespace, Name: name}, claim); err != nil {
		return nil
	}
	return claim
}

// volumeDriver names what serves a volume: its CSI driver and attributes,
// or the in-tree volume type.
func volumeDriver(pv *corev1.PersistentVolume) (string, map[string]string) {
	src := pv.Spec.PersistentVolumeSource
	switch {
	case src.CSI != nil:
		return src.CSI.Driver, boundedMap(src.CSI.VolumeAttributes)
	case src.Local != nil:
		return "local", map[string]string{"path": src.Local.Path}
	case src.HostPath != nil:
		return "hostPath", map[string]string{"path": src.HostPath.Path}
	case src.NFS != nil:
		return "nfs", map[string]string{"server": src.NFS.Server, "path": src.NFS.Path}
	}
	return "", nil
}

func boundedMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]string{}
	for _, k := range keys[:min(len(keys), maxFingerprintEntries)] {
		out[k] = truncate(m[k], 256)
	}
	return out
}
