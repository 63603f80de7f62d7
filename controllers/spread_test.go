package controllers

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestClientPlacementBySpread(t *testing.T) {
	b := goldenBenchmark()
	tgt := &b.Spec.Targets[0]
	userTerm := corev1.PodAffinityTerm{TopologyKey: "zone"}
	b.Spec.Clients.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{userTerm}}}

	b.Spec.Clients.Spread = sbv1.SpreadRequired
	a := clientAffinity(b, tgt, 0)
	terms := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(terms) != 2 || terms[0].TopologyKey != "zone" || terms[1].TopologyKey != corev1.LabelHostname ||
		terms[1].LabelSelector.MatchLabels[labelTarget] != tgt.Name {
		t.Fatalf("Required: anti-affinity terms %+v, want the user's and one per node for the target's clients", terms)
	}
	if len(b.Spec.Clients.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatal("Required changed the user's affinity in the spec")
	}
	if c := spreadConstraints(b, tgt); c != nil {
		t.Fatalf("Required: topology spread %+v, want none (anti-affinity places the clients)", c)
	}

	b.Spec.Clients.Spread = sbv1.SpreadPreferred
	if a := clientAffinity(b, tgt, 0); a != b.Spec.Clients.Affinity {
		t.Fatal("Preferred: the user's affinity is not used as it is")
	}
	if c := spreadConstraints(b, tgt); len(c) != 1 || c[0].WhenUnsatisfiable != corev1.ScheduleAnyway || c[0].MaxSkew != 1 {
		t.Fatalf("Preferred: topology spread %+v", c)
	}

	b.Spec.Clients.Spread = sbv1.SpreadNone
	if c := spreadConstraints(b, tgt); c != nil {
		t.Fatalf("None: topology spread %+v", c)
	}
}

func TestSpreadShortfall(t *testing.T) {
	inPool := func(n *corev1.Node, pool string) corev1.Node {
		n.Labels["pool"] = pool
		return *n
	}
	tainted := node("gpu")
	tainted.Spec.Taints = []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	soft := node("soft")
	soft.Spec.Taints = []corev1.Taint{{Key: "busy", Effect: corev1.TaintEffectPreferNoSchedule}}
	nodes := []corev1.Node{inPool(node("a"), "bench"), inPool(node("b"), "bench"), inPool(soft, "bench"),
		inPool(tainted, "bench"), inPool(cordoned(node("c")), "bench"), inPool(node("other"), "web")}
	pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: map[string]string{"pool": "bench"}}}

	if got := nodesFor(pod, nodes); strings.Join(got, ",") != "a,b,soft" {
		t.Errorf("nodes for the pod: %v, want a, b and soft (gpu tainted, c cordoned, other not selected)", got)
	}
	if why := spreadShortfall("t1", 3, pod, nodes, nil); why != "" {
		t.Errorf("3 clients, 3 nodes: %q", why)
	}
	want := "target t1: clients.spread Required puts each of the 4 clients on a node of its own, but 3 node(s) can take them (a, b, soft): lower clients.count to 3 or set clients.spread Preferred"
	if why := spreadShortfall("t1", 4, pod, nodes, nil); why != want {
		t.Errorf("4 clients, 3 nodes:\n  %q\nwant\n  %q", why, want)
	}
	// A node already running a client counts, whatever its taints now; a
	// node that is not ready (a lifecycle taint) still counts.
	if why := spreadShortfall("t1", 4, pod, nodes, []string{"gpu", "a", ""}); why != "" {
		t.Errorf("4 clients, one of them already on the tainted node: %q", why)
	}
	notReady := inPool(node("d"), "bench")
	notReady.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}
	if got := nodesFor(pod, append(nodes, notReady)); strings.Join(got, ",") != "a,b,d,soft" {
		t.Errorf("a node not ready for a moment is left out: %v", got)
	}
	// A cordon is tolerated like any taint.
	pod.Spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists}}
	if got := nodesFor(pod, nodes); strings.Join(got, ",") != "a,b,c,soft" {
		t.Errorf("with the cordon tolerated: %v", got)
	}
	pod.Spec.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists}}
	if why := spreadShortfall("t1", 4, pod, nodes, nil); why != "" {
		t.Errorf("with the taint tolerated, 4 nodes fit: %q", why)
	}
	pod.Spec.NodeSelector = map[string]string{"pool": "none"}
	if why := spreadShortfall("t1", 1, pod, nodes, nil); !strings.Contains(why, "0 node(s) can take them (): check clients.nodeSelector and tolerations, or set clients.spread Preferred") {
		t.Errorf("no node fits: %q", why)
	}
}

// colocateTargets: client i of every target after the first must run on
// the node of the first target's client i; a shared volume's clients get
// a Job each, so that every pod carries its client's label.
func TestColocatedTargetsPlaceClientIWithTheFirstTargetsClientI(t *testing.T) {
	b := goldenBenchmark()
	b.Spec.TargetExecution = sbv1.TargetsParallel
	b.Spec.Clients.ColocateTargets = true
	ssd, nfs := &b.Spec.Targets[0], &b.Spec.Targets[1]
	if a := clientAffinity(b, ssd, 1); a.PodAffinity != nil {
		t.Fatalf("the first target's clients follow no one: %+v", a.PodAffinity)
	}
	a := clientAffinity(b, nfs, 1)
	terms := a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(terms) != 1 || terms[0].TopologyKey != corev1.LabelHostname ||
		terms[0].LabelSelector.MatchLabels[labelTarget] != "ssd" || terms[0].LabelSelector.MatchLabels[labelClient] != "1" {
		t.Fatalf("nfs client 1: pod affinity %+v, want the node of ssd's client 1", terms)
	}
	if anti := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution; len(anti) != 1 || anti[0].LabelSelector.MatchLabels[labelTarget] != "nfs" {
		t.Fatalf("spread Required still keeps nfs's own clients apart: %+v", anti)
	}
	if b.Spec.Clients.Affinity != nil {
		t.Fatal("colocateTargets changed the spec's affinity")
	}
	jobs := clientJobs(b, nfs) // ReadWriteMany: one shared claim
	if len(jobs) != 2 || jobs[0].client() != 0 || jobs[1].client() != 1 || jobs[0].claim != jobs[1].claim {
		t.Fatalf("shared nfs, colocated: jobs %+v, want one per client on the one claim", jobs)
	}
	b.Spec.Clients.ColocateTargets = false
	if jobs := clientJobs(b, nfs); len(jobs) != 1 || jobs[0].client() != -1 {
		t.Fatalf("shared nfs: jobs %+v, want one Job of both clients", jobs)
	}
}
