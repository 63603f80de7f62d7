// Package fakecluster plays, through the API, the parts of a cluster that
// envtest (a bare etcd and kube-apiserver) lacks and a benchmark run needs:
// the volume binder, the Job controller, the scheduler and the kubelet. The
// controller's integration tests and the controller scale benchmark
// (hack/bench-controller-scale) drive runs with it: bind the claims, create
// the Jobs' pods and make them ready, wait for the start, and finish the
// pods with the log a client would have written.
package fakecluster

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/internal/testenv"
)

// pollInterval is how often the waits below look again.
const pollInterval = 50 * time.Millisecond

// Cluster is the API to act on and where the fake kubelet keeps the logs
// it serves.
type Cluster struct {
	Client client.Client
	Logs   LogStore
}

// LogStore keeps the logs of finished pods.
type LogStore interface {
	Set(namespace, pod, log string)
}

// BindClaims marks every claim of a benchmark's target Bound, as the
// binder would.
func (c *Cluster) BindClaims(ctx context.Context, ns, bench, target string) error {
	var claims corev1.PersistentVolumeClaimList
	if err := c.Client.List(ctx, &claims, client.InNamespace(ns), ofTarget(bench, target)); err != nil {
		return err
	}
	for i := range claims.Items {
		claim := &claims.Items[i]
		if claim.Status.Phase == corev1.ClaimBound {
			continue
		}
		claim.Status.Phase = corev1.ClaimBound
		if err := c.Client.Status().Update(ctx, claim); err != nil {
			return fmt.Errorf("binding claim %s: %w", claim.Name, err)
		}
	}
	return nil
}

// ofTarget selects the objects of a benchmark's target; an empty bench
// selects the target's objects of every benchmark in the namespace.
func ofTarget(bench, target string) client.MatchingLabels {
	labels := client.MatchingLabels{"storagebench.io/target": target}
	if bench != "" {
		labels["storagebench.io/benchmark"] = bench
	}
	return labels
}

// TargetJobs waits until a benchmark target's client Jobs of a generation
// number want, and returns them.
func (c *Cluster) TargetJobs(ctx context.Context, ns, bench, target string, generation int64, want int, timeout time.Duration) ([]batchv1.Job, error) {
	var jobs batchv1.JobList
	err := testenv.Poll(ctx, timeout, pollInterval, func() error {
		labels := ofTarget(bench, target)
		labels["storagebench.io/generation"] = strconv.FormatInt(generation, 10)
		if err := c.Client.List(ctx, &jobs, client.InNamespace(ns), labels); err != nil {
			return err
		}
		if len(jobs.Items) != want {
			return fmt.Errorf("%d of %d jobs of target %s", len(jobs.Items), want, target)
		}
		return nil
	})
	return jobs.Items, err
}

// StartPods creates each Job's pods, scheduled on node-1 and Ready, as the
// Job controller, the scheduler and the kubelet would.
func (c *Cluster) StartPods(ctx context.Context, jobs []batchv1.Job) ([]*corev1.Pod, error) {
	var pods []*corev1.Pod
	for _, job := range jobs {
		for i := int32(0); i < *job.Spec.Completions; i++ {
			tmpl := job.Spec.Template.DeepCopy()
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("%s-%d-abcde", job.Name, i), Namespace: job.Namespace,
					Labels: tmpl.Labels, Annotations: tmpl.Annotations,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}},
				},
				Spec: tmpl.Spec,
			}
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(int(i))
			pod.Spec.NodeName = "node-1"
			if err := c.Client.Create(ctx, pod); err != nil {
				return nil, fmt.Errorf("creating pod %s: %w", pod.Name, err)
			}
			pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue},
			}}
			if err := c.Client.Status().Update(ctx, pod); err != nil {
				return nil, fmt.Errorf("starting pod %s: %w", pod.Name, err)
			}
			pods = append(pods, pod)
		}
	}
	return pods, nil
}

// FinishPod ends a pod successfully with the given log.
func (c *Cluster) FinishPod(ctx context.Context, pod *corev1.Pod, log string) error {
	c.Logs.Set(pod.Namespace, pod.Name, log)
	return c.SetPodPhase(ctx, pod, corev1.PodSucceeded, 0, "")
}

// SetPodPhase ends a pod with an exit code and termination message.
func (c *Cluster) SetPodPhase(ctx context.Context, pod *corev1.Pod, phase corev1.PodPhase, exitCode int32, message string) error {
	current := &corev1.Pod{}
	if err := c.Client.Get(ctx, client.ObjectKeyFromObject(pod), current); err != nil {
		return err
	}
	current.Status.Phase = phase
	current.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	current.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "engine", State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: map[bool]string{true: "Completed", false: "Error"}[exitCode == 0], Message: message},
	}}}
	if err := c.Client.Status().Update(ctx, current); err != nil {
		return fmt.Errorf("ending pod %s: %w", pod.Name, err)
	}
	return nil
}

// TargetPlan waits for the plan the controller handed to a target's clients.
func (c *Cluster) TargetPlan(ctx context.Context, ns, bench, target string, generation int64, timeout time.Duration) (*plan.Plan, error) {
	cm := &corev1.ConfigMap{}
	name := fmt.Sprintf("%s-plan-g%d", bench, generation)
	if err := testenv.Poll(ctx, timeout, pollInterval, func() error {
		return c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)
	}); err != nil {
		return nil, fmt.Errorf("plan configmap %s: %w", name, err)
	}
	return plan.Parse([]byte(cm.Data[target+".json"]))
}

// WaitForStart waits until the controller published the target's start for
// the plan's generation.
func (c *Cluster) WaitForStart(ctx context.Context, ns, bench, target string, p *plan.Plan, timeout time.Duration) (plan.StartRecord, error) {
	var record plan.StartRecord
	err := testenv.Poll(ctx, timeout, pollInterval, func() error {
		cm := &corev1.ConfigMap{}
		if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: bench + "-start"}, cm); err != nil {
			return err
		}
		value, ok := cm.Data[target]
		if !ok {
			return fmt.Errorf("start of target %s not published", target)
		}
		var err error
		record, err = plan.DecodeStartRecord(value)
		if err == nil && record.Generation != p.Generation {
			return fmt.Errorf("start record for generation %d", record.Generation)
		}
		return err
	})
	return record, err
}

// Logs serves the client logs a kubelet would (a controllers.LogReader).
type Logs struct {
	mu   sync.Mutex
	logs map[string]string
}

// NewLogs is an empty log store.
func NewLogs() *Logs { return &Logs{logs: map[string]string{}} }

// Set stores a pod's log.
func (l *Logs) Set(namespace, pod, log string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.logs[namespace+"/"+pod] = log
}

// ReadLog returns at most limitBytes of a pod's log.
func (l *Logs) ReadLog(_ context.Context, namespace, pod, _ string, limitBytes int64) (io.ReadCloser, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	log, ok := l.logs[namespace+"/"+pod]
	if !ok {
		return nil, fmt.Errorf("pods %q not found", pod)
	}
	if int64(len(log)) > limitBytes {
		log = log[:limitBytes]
	}
	return io.NopCloser(strings.NewReader(log)), nil
}
