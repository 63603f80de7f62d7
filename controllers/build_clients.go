package controllers

import (
	"fmt"
	"math"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// clientJob is one Job to create for a target: the clients from base to
// base+count-1 on one claim.
type clientJob struct {
	name  string
	base  int32
	count int32
	claim string
}

// clientJobs splits a target's clients into Jobs. A shared volume gets one
// Indexed Job for all clients. Per-client volumes get one Job per client,
// because a Job's pod template cannot give each index its own claim.
func clientJobs(b *sbv1.StorageBenchmark, t *sbv1.Target) []clientJob {
	claims := claimNames(b, t)
	if plan.Shared(t) && !b.Spec.Clients.ColocateTargets {
		return []clientJob{{name: jobName(b, t, -1), base: 0, count: b.Spec.Clients.Count, claim: claims[0]}}
	}
	// A Job per client: each pod then carries its client's label, which
	// colocateTargets' affinity selects (a shared claim is everyone's).
	jobs := make([]clientJob, b.Spec.Clients.Count)
	for i := range jobs {
		jobs[i] = clientJob{name: jobName(b, t, int32(i)), base: int32(i), count: 1, claim: claims[i]}
	}
	return jobs
}

// client is the one client a Job runs, or -1 for a Job of several.
func (j clientJob) client() int32 {
	if j.count == 1 {
		return j.base
	}
	return -1
}

// runDeadline bounds a client Job: binding, preparation, the timetable and
// collection, plus the longest start lead.
func runDeadline(b *sbv1.StorageBenchmark, p *plan.Plan) time.Duration {
	to := b.Spec.Timeouts
	return time.Duration(to.VolumeBindSeconds+to.PrepareSeconds+to.CollectSeconds)*time.Second + plan.MaxStartLead(p.MaxClockOffset()) + p.Duration() + p.MaxSearchDuration()
}

// buildClientJob makes the Job running clients base..base+count-1 of a
// target. The pod passes the "restricted" Pod Security Standard.
func buildClientJob(b *sbv1.StorageBenchmark, t *sbv1.Target, p *plan.Plan, j clientJob, cfg ClientPodConfig) *batchv1.Job {
	labels := runLabels(b, t, componentClient)
	podLabels := runLabels(b, t, componentClient)
	if j.count == 1 {
		labels[labelClient] = strconv.Itoa(int(j.base))
		podLabels[labelClient] = strconv.Itoa(int(j.base))
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: j.name, Namespace: b.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			Completions:    ptr.To(j.count),
			Parallelism:    ptr.To(j.count),
			// A failed client spoils the measurement: no retries.
			BackoffLimit:          ptr.To[int32](0),
			ActiveDeadlineSeconds: ptr.To(int64(math.Ceil(runDeadline(b, p).Seconds()))),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: map[string]string{benchmarkAnnotation: b.Name}},
				Spec:       buildClientPodSpec(b, t, j, cfg),
			},
		},
	}
}

func buildClientPodSpec(b *sbv1.StorageBenchmark, t *sbv1.Target, j clientJob, cfg ClientPodConfig) corev1.PodSpec {
	c := b.Spec.Clients
	resources := cfg.DefaultResources
	if c.Resources != nil {
		resources = c.Resources.Requirements()
	}
	nodeSelector := map[string]string{}
	for k, v := range cfg.DefaultNodeSelector {
		nodeSelector[k] = v
	}
	for k, v := range c.NodeSelector {
		nodeSelector[k] = v
	}
	if len(nodeSelector) == 0 {
		nodeSelector = nil
	}
	container := corev1.Container{
		Name:            engineContainer,
		Image:           cfg.Image,
		ImagePullPolicy: cfg.ImagePullPolicy,
		Args: []string{
			"engine",
			"--plan=" + planMountPath + "/" + planKey(t),
			"--client-index-base=" + strconv.Itoa(int(j.base)),
			"--ready-file=" + readyFile,
		},
		Env: []corev1.EnvVar{
			fieldEnv("NODE_NAME", "spec.nodeName"),
			fieldEnv("POD_NAME", "metadata.name"),
			fieldEnv("POD_NAMESPACE", "metadata.namespace"),
		},
		Resources: resources,
		// A startup probe, not a readiness probe: it stops once the data set
		// is laid out, so no probe process runs beside the engine while it
		// measures. The pod turns Ready when it passes. Each probe looks for
		// the ready file for most of its period, so readiness is seen when it
		// comes, not at the next probe.
		StartupProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{clientBinary, "client-ready", "--wait", readyProbeWait, readyFile}}},
			PeriodSeconds:    1,
			TimeoutSeconds:   5,
			FailureThreshold: b.Spec.Timeouts.VolumeBindSeconds + b.Spec.Timeouts.PrepareSeconds,
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "plan", MountPath: planMountPath, ReadOnly: true},
			{Name: "tmp", MountPath: tmpMountPath},
		},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			ReadOnlyRootFilesystem:   ptr.To(true),
			RunAsNonRoot:             ptr.To(true),
		},
	}
	if t.VolumeMode == corev1.PersistentVolumeBlock {
		container.VolumeDevices = []corev1.VolumeDevice{{Name: "data", DevicePath: plan.DevicePath}}
	} else {
		container.VolumeMounts = append(container.VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: plan.MountPath})
	}
	return corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		ServiceAccountName:            clientAccessName(b),
		AutomountServiceAccountToken:  ptr.To(true),
		TerminationGracePeriodSeconds: ptr.To[int64](10),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:        ptr.To(true),
			RunAsUser:           ptr.To[int64](clientUID),
			RunAsGroup:          ptr.To[int64](clientUID),
			FSGroup:             ptr.To[int64](clientUID),
			FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
			SeccompProfile:      &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers:                []corev1.Container{container},
		NodeSelector:              nodeSelector,
		Tolerations:               append(append([]corev1.Toleration(nil), cfg.DefaultTolerations...), c.Tolerations...),
		Affinity:                  clientAffinity(b, t, j.client()),
		PriorityClassName:         c.PriorityClassName,
		TopologySpreadConstraints: spreadConstraints(b, t),
		Volumes: []corev1.Volume{
			{Name: "plan", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: planConfigMapName(b)},
			}}},
			{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: j.claim}}},
		},
	}
}

func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
}

// buildClientAccess gives client pods an identity that may read the start
// ConfigMap and nothing else: clients never write to the API.
func buildClientAccess(b *sbv1.StorageBenchmark) (*corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding) {
	name := clientAccessName(b)
	meta := metav1.ObjectMeta{Name: name, Namespace: b.Namespace, Labels: benchmarkLabels(b, componentAccess)}
	sa := &corev1.ServiceAccount{ObjectMeta: meta}
	role := &rbacv1.Role{
		ObjectMeta: *meta.DeepCopy(),
		Rules: []rbacv1.PolicyRule{{
			APIGroups:     []string{""},
			Resources:     []string{"configmaps"},
			Verbs:         []string{"get"},
			ResourceNames: []string{startConfigMapName(b)},
		}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: *meta.DeepCopy(),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: b.Namespace}},
	}
	return sa, role, binding
}

// buildPlanConfigMap holds every target's plan for the generation; client
// pods mount it.
func buildPlanConfigMap(b *sbv1.StorageBenchmark, plans map[string]string) *corev1.ConfigMap {
	labels := benchmarkLabels(b, componentPlan)
	labels[labelGeneration] = generationLabel(b.Generation)
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: planConfigMapName(b), Namespace: b.Namespace, Labels: labels},
		Data:       plans,
	}
}

// targetPlan is the plan a target's client pods get.
func targetPlan(b *sbv1.StorageBenchmark, t *sbv1.Target) *plan.Plan {
	path := plan.MountPath
	if t.VolumeMode == corev1.PersistentVolumeBlock {
		path = plan.DevicePath
	}
	p := plan.Build(b, t, path)
	p.StartSignal = plan.StartSignal{ConfigMap: startConfigMapName(b), Key: t.Name}
	return p
}

func describeJob(j clientJob) string {
	if j.count == 1 {
		return fmt.Sprintf("client %d", j.base)
	}
	return fmt.Sprintf("clients %d..%d", j.base, j.base+j.count-1)
}
