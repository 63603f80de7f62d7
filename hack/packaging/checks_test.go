package packaging

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/storagebench/storagebench/internal/podsecurity"
	"github.com/storagebench/storagebench/internal/testenv"
)

// flagValue finds --name=value (or a bare --name, value "true") in args; the
// last one wins, as for the manager's flag parser.
func flagValue(args []string, name string) (string, bool) {
	value, found := "", false
	for _, a := range args {
		if a == "--"+name {
			value, found = "true", true
		} else if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			value, found = v, true
		}
	}
	return value, found
}

// clientPodDefaults is what the manager accepts in --client-pod-defaults
// (internal/cli/manager.go), decoded as strictly.
type clientPodDefaults struct {
	Resources    corev1.ResourceRequirements `json:"resources"`
	NodeSelector map[string]string           `json:"nodeSelector"`
	Tolerations  []corev1.Toleration         `json:"tolerations"`
}

func parseClientPodDefaults(t *testing.T, args []string) *clientPodDefaults {
	t.Helper()
	v, ok := flagValue(args, "client-pod-defaults")
	if !ok {
		return nil
	}
	d := &clientPodDefaults{}
	if err := yaml.UnmarshalStrict([]byte(v), d); err != nil {
		t.Fatalf("--client-pod-defaults is not what the manager accepts: %v", err)
	}
	return d
}

// managerContainer checks the manager Deployment's pod and returns its
// container: restricted Pod Security (with Kubernetes' own checks, and each
// setting spelled out), probes on the endpoints the manager serves,
// resources, and client pods running the manager's own image.
func managerContainer(t *testing.T, d *appsv1.Deployment) corev1.Container {
	t.Helper()
	pod := d.Spec.Template
	problems, err := podsecurity.RestrictedViolations(&pod.ObjectMeta, &pod.Spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("the manager pod breaks the restricted Pod Security Standard: %v", problems)
	}
	psc := pod.Spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and seccomp RuntimeDefault", psc)
	}
	if pod.Spec.HostNetwork || pod.Spec.HostPID || pod.Spec.HostIPC {
		t.Error("the manager pod shares host namespaces")
	}
	if len(pod.Spec.Containers) != 1 || pod.Spec.Containers[0].Name != "manager" || len(pod.Spec.InitContainers) > 0 {
		t.Fatalf("want one container named manager, got %d (+%d init)", len(pod.Spec.Containers), len(pod.Spec.InitContainers))
	}
	c := pod.Spec.Containers[0]
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("the manager container has no securityContext")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("allowPrivilegeEscalation must be false")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("readOnlyRootFilesystem must be true")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("capabilities %+v: want drop [ALL], add none", sc.Capabilities)
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("privileged")
	}
	if len(c.Args) == 0 || c.Args[0] != "manager" {
		t.Errorf("args %q: want the manager subcommand first", c.Args)
	}
	if c.Image == "" || strings.HasSuffix(c.Image, ":latest") || !strings.Contains(c.Image, ":") {
		t.Errorf("image %q: want an explicit, non-latest tag (client pods use the same)", c.Image)
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := c.Resources.Requests[r]; !ok {
			t.Errorf("no %s request", r)
		}
	}
	if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
		t.Error("no memory limit")
	}

	// Probes hit the endpoints the manager serves, on its probe port.
	probeAddr, _ := flagValue(c.Args, "health-probe-bind-address")
	if probeAddr == "" {
		probeAddr = ":8081" // the flag's default
	}
	probePort := portOf(t, probeAddr)
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", p.name)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || containerPort(t, c, p.probe.HTTPGet.Port) != probePort {
			t.Errorf("%s probe %s on port %v: want %s on %d", p.name, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path, probePort)
		}
	}

	// Client pods run the manager's own image.
	clientImage, ok := flagValue(c.Args, "client-image")
	if !ok {
		for _, e := range c.Env {
			if e.Name == "STORAGEBENCH_CLIENT_IMAGE" {
				clientImage = e.Value
			}
		}
	}
	if clientImage != c.Image {
		t.Errorf("client pods would run %q, the manager runs %q", clientImage, c.Image)
	}
	if policy, _ := flagValue(c.Args, "client-image-pull-policy"); policy != "" && !slices.Contains([]string{"Always", "IfNotPresent", "Never"}, policy) {
		t.Errorf("--client-image-pull-policy=%s", policy)
	}
	return c
}

func portOf(t *testing.T, addr string) int32 {
	t.Helper()
	i := strings.LastIndex(addr, ":")
	p, err := strconv.Atoi(addr[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("address %q has no port", addr)
	}
	return int32(p)
}

// containerPort resolves a probe's or Service's target port.
func containerPort(t *testing.T, c corev1.Container, port intstr.IntOrString) int32 {
	t.Helper()
	if port.Type == intstr.Int {
		return port.IntVal
	}
	for _, p := range c.Ports {
		if p.Name == port.StrVal {
			return p.ContainerPort
		}
	}
	t.Fatalf("container has no port named %q", port.StrVal)
	return 0
}

// checkMetricsService: the Service selects the manager pods and targets the
// port the manager serves metrics on.
func checkMetricsService(t *testing.T, objs objects, d *appsv1.Deployment, c corev1.Container) *corev1.Service {
	t.Helper()
	addr, _ := flagValue(c.Args, "metrics-bind-address")
	services := objs.ofKind("Service")
	if addr == "0" {
		if len(services) > 0 {
			t.Error("metrics are off, but a Service is rendered")
		}
		return nil
	}
	if len(services) != 1 {
		t.Fatalf("want one metrics Service, got %d", len(services))
	}
	svc := typed[corev1.Service](t, services[0])
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, the manager pods have %q", k, v, d.Spec.Template.Labels[k])
		}
	}
	if len(svc.Spec.Ports) != 1 || containerPort(t, c, svc.Spec.Ports[0].TargetPort) != portOf(t, addr) || svc.Spec.Ports[0].Name != "metrics" {
		t.Errorf("Service ports %+v do not reach the metrics endpoint %s", svc.Spec.Ports, addr)
	}
	return svc
}

// triple is one permission.
type triple struct{ group, resource, verb string }

func (p triple) String() string { return fmt.Sprintf("%s %s/%s", p.verb, p.group, p.resource) }

func triples(rules []rbacv1.PolicyRule) map[triple]bool {
	out := map[triple]bool{}
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out[triple{g, res, v}] = true
				}
			}
		}
	}
	return out
}

func sortedTriples(m map[triple]bool) []string {
	var out []string
	for p := range m {
		out = append(out, p.String())
	}
	sort.Strings(out)
	return out
}

func diffTriples(t *testing.T, what string, got, want map[triple]bool) {
	t.Helper()
	extra, missing := map[triple]bool{}, map[triple]bool{}
	for p := range got {
		if !want[p] {
			extra[p] = true
		}
	}
	for p := range want {
		if !got[p] {
			missing[p] = true
		}
	}
	if len(extra) > 0 || len(missing) > 0 {
		t.Errorf("%s: grants %q more and %q less than wanted", what, sortedTriples(extra), sortedTriples(missing))
	}
}

// configRules reads the rules of a Role or ClusterRole under config/rbac.
func configRules(t *testing.T, file string) []rbacv1.PolicyRule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "config", "rbac", file))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return role.Rules
}

// clusterScoped asks the API server whether a resource is cluster-scoped.
func clusterScoped(t *testing.T, group, resource string) bool {
	t.Helper()
	base, _, _ := strings.Cut(resource, "/")
	mapper := env.Client.RESTMapper()
	gvk, err := mapper.KindFor(schema.GroupVersionResource{Group: group, Resource: base})
	if err != nil {
		t.Fatalf("resource %s/%s: %v", group, base, err)
	}
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatal(err)
	}
	return m.Scope.Name() == meta.RESTScopeNameRoot
}

// grants is what the RBAC objects give the manager's ServiceAccount:
// cluster-wide, and per namespace (leader election kept apart).
type grants struct {
	cluster        map[triple]bool
	namespaced     map[string]map[triple]bool
	leaderElection map[string]map[triple]bool
}

// checkRBAC checks every rule rendered (least privilege) and works out what
// the manager's ServiceAccount is granted.
func checkRBAC(t *testing.T, objs objects, saNamespace, saName string) grants {
	t.Helper()
	g := grants{cluster: map[triple]bool{}, namespaced: map[string]map[triple]bool{}, leaderElection: map[string]map[triple]bool{}}
	clusterRoles := map[string][]rbacv1.PolicyRule{}
	roles := map[string][]rbacv1.PolicyRule{}
	for _, u := range objs {
		var rules []rbacv1.PolicyRule
		switch u.GetKind() {
		case "ClusterRole":
			rules = typed[rbacv1.ClusterRole](t, u).Rules
			clusterRoles[u.GetName()] = rules
		case "Role":
			rules = typed[rbacv1.Role](t, u).Rules
			roles[u.GetNamespace()+"/"+u.GetName()] = rules
		default:
			continue
		}
		for _, r := range rules {
			all := slices.Concat(r.APIGroups, r.Resources, r.Verbs, r.ResourceNames)
			switch {
			case slices.Contains(all, "*") || slices.ContainsFunc(r.Resources, func(s string) bool { return strings.Contains(s, "*") }):
				t.Errorf("%s %s: wildcard in %+v", u.GetKind(), u.GetName(), r)
			case len(r.NonResourceURLs) > 0:
				t.Errorf("%s %s: non-resource URLs %q", u.GetKind(), u.GetName(), r.NonResourceURLs)
			case slices.ContainsFunc(r.Resources, func(s string) bool { return s == "secrets" || strings.HasPrefix(s, "secrets/") }):
				t.Errorf("%s %s: access to secrets: %+v", u.GetKind(), u.GetName(), r)
			case slices.ContainsFunc(r.Verbs, func(v string) bool { return v == "escalate" || v == "bind" || v == "impersonate" }):
				t.Errorf("%s %s: privilege-escalating verb in %+v", u.GetKind(), u.GetName(), r)
			}
		}
	}
	boundToManager := func(subjects []rbacv1.Subject) bool {
		return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Name == saName && s.Namespace == saNamespace
		})
	}
	for _, u := range objs {
		switch u.GetKind() {
		case "ClusterRoleBinding":
			b := typed[rbacv1.ClusterRoleBinding](t, u)
			if !boundToManager(b.Subjects) {
				t.Errorf("ClusterRoleBinding %s binds %+v, not the manager's ServiceAccount", b.Name, b.Subjects)
				continue
			}
			rules, ok := clusterRoles[b.RoleRef.Name]
			if b.RoleRef.Kind != "ClusterRole" || !ok {
				t.Fatalf("ClusterRoleBinding %s refers to %s %s, which is not rendered", b.Name, b.RoleRef.Kind, b.RoleRef.Name)
			}
			for p := range triples(rules) {
				g.cluster[p] = true
			}
		case "RoleBinding":
			b := typed[rbacv1.RoleBinding](t, u)
			if !boundToManager(b.Subjects) {
				t.Errorf("RoleBinding %s/%s binds %+v, not the manager's ServiceAccount", b.Namespace, b.Name, b.Subjects)
				continue
			}
			rules, ok := roles[b.Namespace+"/"+b.RoleRef.Name]
			if b.RoleRef.Kind != "Role" || !ok {
				t.Fatalf("RoleBinding %s/%s refers to %s %s, which is not rendered in its namespace", b.Namespace, b.Name, b.RoleRef.Kind, b.RoleRef.Name)
			}
			into := g.namespaced
			if strings.HasSuffix(b.RoleRef.Name, "-leader-election") {
				into = g.leaderElection
			}
			if into[b.Namespace] == nil {
				into[b.Namespace] = map[triple]bool{}
			}
			for p := range triples(rules) {
				into[b.Namespace][p] = true
			}
		}
	}
	return g
}

// checkManagerGrants: the manager gets exactly the generated rules
// (config/rbac/role.yaml) and the leader election rules, no more, no less.
// With watchNamespaces, the namespaced rules are granted in each watched
// namespace only and the cluster-wide grant holds only cluster-scoped
// resources.
func checkManagerGrants(t *testing.T, g grants, releaseNamespace string, leaderElection bool, watch []string) {
	t.Helper()
	want := triples(configRules(t, "role.yaml"))
	wantLeader := triples(configRules(t, "leader_election_role.yaml"))
	if leaderElection {
		if len(g.leaderElection) != 1 || g.leaderElection[releaseNamespace] == nil {
			t.Errorf("leader election grants in %d namespaces, want only %s", len(g.leaderElection), releaseNamespace)
		}
		diffTriples(t, "leader election Role", g.leaderElection[releaseNamespace], wantLeader)
	} else if len(g.leaderElection) > 0 {
		t.Error("leader election is off, but its Role is rendered")
	}
	if len(watch) == 0 {
		if len(g.namespaced) > 0 {
			t.Errorf("namespaced Roles without watchNamespaces: %v", g.namespaced)
		}
		diffTriples(t, "ClusterRole", g.cluster, want)
		return
	}
	wantCluster, wantNamespaced := map[triple]bool{}, map[triple]bool{}
	for p := range want {
		if clusterScoped(t, p.group, p.resource) {
			wantCluster[p] = true
		} else {
			wantNamespaced[p] = true
		}
	}
	for p := range g.cluster {
		if !clusterScoped(t, p.group, p.resource) {
			t.Errorf("watching namespaces %q, the ClusterRole still grants %s on a namespaced resource everywhere", watch, p)
		}
	}
	diffTriples(t, "ClusterRole (cluster-scoped rules)", g.cluster, wantCluster)
	if len(g.namespaced) != len(watch) {
		t.Errorf("Roles in %d namespaces, want the %d watched", len(g.namespaced), len(watch))
	}
	for _, ns := range watch {
		diffTriples(t, "Role in "+ns, g.namespaced[ns], wantNamespaced)
	}
}

// checkAuthorizer asks the API server's RBAC authorizer (the RBAC objects must
// be applied) what the manager's ServiceAccount may do.
func checkAuthorizer(t *testing.T, saNamespace, saName string, watch []string) {
	t.Helper()
	can := func(ns string, p triple) bool {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:" + saNamespace + ":" + saName,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + saNamespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Group: p.group, Verb: p.verb, Resource: strings.Split(p.resource, "/")[0],
				Subresource: func() string { _, sub, _ := strings.Cut(p.resource, "/"); return sub }(),
			},
		}}
		if err := env.Client.Create(context.Background(), sar); err != nil {
			t.Fatal(err)
		}
		return sar.Status.Allowed
	}
	benchNamespaces := watch
	if len(benchNamespaces) == 0 {
		benchNamespaces = []string{"any-namespace"}
	}
	rules := triples(configRules(t, "role.yaml"))
	// The RBAC authorizer works from informers: objects applied a moment
	// ago may not be in its cache yet, so the grants are awaited.
	testenv.Eventually(t, 10*time.Second, 100*time.Millisecond, "the RBAC authorizer to grant the manager its rules", func() error {
		var denied []string
		for p := range rules {
			namespaces := benchNamespaces
			if clusterScoped(t, p.group, p.resource) {
				namespaces = []string{""}
			}
			for _, ns := range namespaces {
				if !can(ns, p) {
					denied = append(denied, fmt.Sprintf("%s in %q", p, ns))
				}
			}
		}
		if len(denied) > 0 {
			sort.Strings(denied)
			return fmt.Errorf("the manager may not %s", strings.Join(denied, "; "))
		}
		return nil
	})
	for p := range rules {
		if !clusterScoped(t, p.group, p.resource) && len(watch) > 0 && (can("", p) || can("not-watched", p)) {
			t.Errorf("watching %q, the manager may still %s outside them", watch, p)
		}
	}
	for _, ns := range append([]string{"", saNamespace}, benchNamespaces...) {
		for _, verb := range []string{"get", "list", "watch", "create"} {
			if can(ns, triple{"", "secrets", verb}) {
				t.Errorf("the manager may %s secrets in namespace %q", verb, ns)
			}
		}
	}
}
