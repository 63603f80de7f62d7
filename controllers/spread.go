package controllers

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// targetClientsSelector selects the clients of one target in one generation.
func targetClientsSelector(b *sbv1.StorageBenchmark, t *sbv1.Target) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{
		labelBenchmark: labelValue(b.Name), labelTarget: t.Name, labelGeneration: generationLabel(b.Generation),
	}}
}

// spreadConstraints spread a target's clients over nodes when the scheduler
// can (Preferred). Required is anti-affinity instead (clientAffinity): a
// spread with maxSkew 1 still puts 2 clients on each of 2 nodes.
func spreadConstraints(b *sbv1.StorageBenchmark, t *sbv1.Target) []corev1.TopologySpreadConstraint {
	if b.Spec.Clients.Spread != sbv1.SpreadPreferred && b.Spec.Clients.Spread != "" {
		return nil
	}
	return []corev1.TopologySpreadConstraint{{
		MaxSkew:           1,
		TopologyKey:       corev1.LabelHostname,
		WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector:     targetClientsSelector(b, t),
	}}
}

// clientAffinity is the user's affinity; for spread Required, a rule that
// no two clients of the target share a node ("every client on its own
// node", as the API says); and with colocateTargets, for the clients of
// every target but the first, a rule that client i runs on the node of
// the first target's client i (client -1: a Job of several clients, which
// colocateTargets never makes).
func clientAffinity(b *sbv1.StorageBenchmark, t *sbv1.Target, client int32) *corev1.Affinity {
	colocate := b.Spec.Clients.ColocateTargets && client >= 0 && len(b.Spec.Targets) > 0 && t.Name != b.Spec.Targets[0].Name
	if b.Spec.Clients.Spread != sbv1.SpreadRequired && !colocate {
		return b.Spec.Clients.Affinity
	}
	a := b.Spec.Clients.Affinity.DeepCopy()
	if a == nil {
		a = &corev1.Affinity{}
	}
	if b.Spec.Clients.Spread == sbv1.SpreadRequired {
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{LabelSelector: targetClientsSelector(b, t), TopologyKey: corev1.LabelHostname})
	}
	if colocate {
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		first := targetClientsSelector(b, &b.Spec.Targets[0])
		first.MatchLabels[labelClient] = strconv.Itoa(int(client))
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
			corev1.PodAffinityTerm{LabelSelector: first, TopologyKey: corev1.LabelHostname})
	}
	return a
}

// unschedulable reports whether the scheduler found no node for the pod.
func podUnschedulable(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// nodesFor lists the nodes a client pod could run on as far as its node
// selector, its tolerations and cordons go (resources and the user's node
// affinity aside: the count is an upper bound). Taints of the node
// lifecycle (node.kubernetes.io/not-ready, unreachable, ...) come and go
// and do not take a node out; a cordon does unless the pod tolerates it.
func nodesFor(pod *corev1.Pod, nodes []corev1.Node) []string {
	selector := labels.SelectorFromSet(pod.Spec.NodeSelector)
	cordon := &corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	var out []string
	for i := range nodes {
		n := &nodes[i]
		if !selector.Matches(labels.Set(n.Labels)) || untolerated(n.Spec.Taints, pod.Spec.Tolerations) ||
			(n.Spec.Unschedulable && !tolerated(cordon, pod.Spec.Tolerations)) {
			continue
		}
		out = append(out, n.Name)
	}
	sort.Strings(out)
	return out
}

func untolerated(taints []corev1.Taint, tolerations []corev1.Toleration) bool {
	for i := range taints {
		taint := &taints[i]
		if taint.Effect == corev1.TaintEffectPreferNoSchedule || strings.HasPrefix(taint.Key, "node.kubernetes.io/") {
			continue
		}
		if !tolerated(taint, tolerations) {
			return true
		}
	}
	return false
}

func tolerated(taint *corev1.Taint, tolerations []corev1.Toleration) bool {
	for k := range tolerations {
		// Comparison operators on: the count is an upper bound.
		if tolerations[k].ToleratesTaint(logr.Discard(), taint, true) {
			return true
		}
	}
	return false
}

// spreadShortfall explains why spread Required cannot place every client,
// or returns "" when enough nodes could take them. The scheduler alone
// would leave the extra clients Pending until the preparation timeout (a
// cluster autoscaler is not waited for: with one, use spread Preferred).
// Nodes already running one of the target's clients count whatever their
// taints say now.
func spreadShortfall(target string, clients int, pod *corev1.Pod, nodes []corev1.Node, hosting []string) string {
	fit := nodesFor(pod, nodes)
	for _, h := range hosting {
		if h != "" && !slices.Contains(fit, h) {
			fit = append(fit, h)
		}
	}
	sort.Strings(fit)
	if clients <= len(fit) {
		return ""
	}
	names := strings.Join(fit, ", ")
	if len(fit) > 8 {
		names = strings.Join(fit[:8], ", ") + ", ..."
	}
	advice := fmt.Sprintf("lower clients.count to %d or", len(fit))
	if len(fit) == 0 {
		advice = "check clients.nodeSelector and tolerations, or"
	}
	return fmt.Sprintf("target %s: clients.spread Required puts each of the %d clients on a node of its own, but %d node(s) can take them (%s): %s set clients.spread Preferred",
		target, clients, len(fit), names, advice)
}
