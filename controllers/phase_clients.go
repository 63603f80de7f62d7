package controllers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// ensureClients creates the target's client Jobs and fails the run as soon
// as a client pod fails or disappears: a measurement with a client missing
// would compare unlike with like.
func (r *StorageBenchmarkReconciler) ensureClients(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	var missing []clientJob
	var toCreate []client.Object
	for _, j := range clientJobs(b, t.spec) {
		job := s.jobs[j.name]
		if job == nil {
			missing = append(missing, j)
			toCreate = append(toCreate, buildClientJob(b, t.spec, t.plan, j, r.ClientPods))
			continue
		}
		if c := jobCondition(job, batchv1.JobFailed); c != nil {
			reason := sbv1.ReasonClientFailed
			if c.Reason == batchv1.JobReasonDeadlineExceeded {
				reason = sbv1.ReasonTimedOut
			}
			return targetStep{failure: &runFailure{reason, fmt.Sprintf("target %s: job %s failed (%s): %s%s",
				t.spec.Name, job.Name, c.Reason, c.Message, failedPodDetail(s.targetPods(b, t.spec)))}}, nil
		}
	}
	created, err := r.createAllOwned(ctx, b, toCreate)
	if err != nil {
		return targetStep{}, err
	}
	for i, j := range missing {
		if created[i] {
			p.normal(sbv1.EventClientsCreated, sbv1.ActionStart, fmt.Sprintf("target %s: job %s runs %s", t.spec.Name, j.name, describeJob(j)))
		}
	}
	for _, pod := range s.targetPods(b, t.spec) {
		switch {
		case pod.Status.Phase == corev1.PodFailed:
			return targetStep{failure: &runFailure{sbv1.ReasonClientFailed, fmt.Sprintf("target %s: %s", t.spec.Name, podFailure(pod))}}, nil
		case pod.DeletionTimestamp != nil && !clientFinished(pod):
			// The cleanup after an early read (see earlyReading) deletes
			// pods still running: if this target's results are stored, the
			// cache has shown the deletion before the results ConfigMap.
			stored, err := r.resultsStored(ctx, b, t.spec)
			if err != nil {
				return targetStep{}, err
			}
			if stored {
				return targetStep{wait: shortRequeue}, nil
			}
			return targetStep{failure: &runFailure{sbv1.ReasonClientFailed, fmt.Sprintf("target %s: pod %s (%s) was deleted during the run", t.spec.Name, pod.Name, clientOf(pod))}}, nil
		}
	}
	return targetStep{}, nil
}

// startWhenReady publishes the start once every client has laid out its
// data and is ready, so that no client measures while another still writes
// its data set.
func (r *StorageBenchmarkReconciler) startWhenReady(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	pods := s.targetPods(b, t.spec)
	var waiting []string
	ready := 0
	for _, pod := range pods {
		if podReady(pod) {
			ready++
			continue
		}
		waiting = append(waiting, fmt.Sprintf("%s (%s)", pod.Name, podWaitReason(pod)))
	}
	sort.Strings(waiting)
	clients := int(b.Spec.Clients.Count)
	allReady := ready == clients && len(pods) == clients
	if allReady && t.startAfter == "" {
		return r.publishStart(ctx, p, s, t)
	}
	if t.status.VolumesBoundMilliseconds != nil {
		t.status.State = sbv1.TargetPreparing
	}
	if allReady {
		// The earlier target's pods finishing, and its cleanup, start
		// the next passes; the timeout is the earlier target's
		// (timeouts.collectSeconds). Readiness is timed now, not when
		// the start is published.
		if t.status.ClientsReadyMilliseconds == nil && t.status.ProvisioningStartTime != nil {
			t.status.ClientsReadyMilliseconds = ptr.To(p.sinceProvisioningStart(t, p.now).Milliseconds())
		}
		t.status.Message = fmt.Sprintf("all %d clients ready; the start waits for target %s's clients to hand over their results and its cleanup", clients, t.startAfter)
		return targetStep{wait: shortRequeue}, nil
	}
	t.status.Message = fmt.Sprintf("%d of %d clients ready", ready, clients)
	if len(waiting) > 0 {
		t.status.Message += "; waiting for " + strings.Join(waiting, ", ")
	}
	if why, err := r.spreadUnsatisfiable(ctx, b, t, pods); err != nil || why != "" {
		if err != nil {
			return targetStep{}, err
		}
		return targetStep{failure: &runFailure{sbv1.ReasonClientsUnschedulable, why}}, nil
	}
	limit := time.Duration(b.Spec.Timeouts.VolumeBindSeconds+b.Spec.Timeouts.PrepareSeconds) * time.Second
	elapsed := p.sinceProvisioningStart(t, p.now)
	if elapsed > limit {
		return targetStep{failure: &runFailure{sbv1.ReasonClientsNotReady, fmt.Sprintf(
			"target %s: %d of %d clients ready after %s (timeouts.volumeBindSeconds + prepareSeconds): %s",
			t.spec.Name, ready, clients, limit, strings.Join(waiting, ", "))}}, nil
	}
	return targetStep{wait: limit - elapsed + time.Second}, nil
}

// spreadUnsatisfiable: with spread Required, a client the scheduler could
// not place and fewer nodes than clients that could take them is a failure
// now, not a Pending pod until the preparation timeout. Nodes are listed
// only then (uncached: the manager keeps no node informer).
func (r *StorageBenchmarkReconciler) spreadUnsatisfiable(ctx context.Context, b *sbv1.StorageBenchmark, t *targetRun, pods []*corev1.Pod) (string, error) {
	if b.Spec.Clients.Spread != sbv1.SpreadRequired {
		return "", nil
	}
	for _, pod := range pods {
		if !podUnschedulable(pod) {
			continue
		}
		var nodes corev1.NodeList
		if err := r.APIReader.List(ctx, &nodes); err != nil {
			return "", fmt.Errorf("listing nodes for clients.spread Required: %w", err)
		}
		var hosting []string
		for _, other := range pods {
			hosting = append(hosting, other.Spec.NodeName)
		}
		return spreadShortfall(t.spec.Name, int(b.Spec.Clients.Count), pod, nodes.Items, hosting), nil
	}
	return "", nil
}

func jobCondition(job *batchv1.Job, kind batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if c := &job.Status.Conditions[i]; c.Type == kind && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

func podReady(pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// clientFinished reports whether a client pod has handed over its results:
// its engine exited 0, so its log holds its whole report. The kubelet says
// so in the container's status about a second before it turns the pod
// Succeeded (it first tears the pod's sandbox down), and collection need not
// wait for that.
func clientFinished(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodSucceeded {
		return true
	}
	for _, c := range pod.Status.ContainerStatuses {
		if c.Name == engineContainer {
			return c.State.Terminated != nil && c.State.Terminated.ExitCode == 0
		}
	}
	return false
}

// podWaitReason says what a pod that is not ready waits for.
func podWaitReason(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
			return "not scheduled: " + c.Message
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			return strings.TrimSpace(w.Reason + " " + w.Message)
		}
	}
	if pod.Status.Phase == corev1.PodRunning {
		return "laying out its data set"
	}
	return string(pod.Status.Phase)
}

// podFailure describes a failed client pod with what its container said.
func podFailure(pod *corev1.Pod) string {
	detail := pod.Status.Reason + " " + pod.Status.Message
	for _, cs := range pod.Status.ContainerStatuses {
		if term := cs.State.Terminated; term != nil {
			detail = fmt.Sprintf("exit code %d (%s)", term.ExitCode, term.Reason)
			if msg := strings.TrimSpace(term.Message); msg != "" {
				detail += ": " + msg
			}
		}
	}
	node := pod.Spec.NodeName
	if node == "" {
		node = "no node"
	}
	return fmt.Sprintf("pod %s (%s on %s) failed: %s", pod.Name, clientOf(pod), node, strings.TrimSpace(detail))
}

func failedPodDetail(pods []*corev1.Pod) string {
	for _, pod := range pods {
		if pod.Status.Phase == corev1.PodFailed {
			return "; " + podFailure(pod)
		}
	}
	return ""
}

// clientOf names the client a pod runs.
func clientOf(pod *corev1.Pod) string {
	if c, ok := pod.Labels[labelClient]; ok {
		return "client " + c
	}
	if i, ok := pod.Annotations[batchv1.JobCompletionIndexAnnotation]; ok {
		return "client " + i
	}
	return "client ?"
}
