package packaging

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// chartAppVersion is the default image tag.
func chartAppVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(data, &chart); err != nil {
		t.Fatal(err)
	}
	return chart.AppVersion
}

func valuesFile(name string) string { return filepath.Join(chartDir, "ci", name) }

func checkNamespaces(t *testing.T, objs objects, release string) {
	t.Helper()
	for _, u := range objs {
		switch u.GetKind() {
		case "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
		case "Namespace":
			t.Error("the chart must not create namespaces (helm install --create-namespace does)")
		default:
			if u.GetNamespace() != release {
				t.Errorf("%s %s is in namespace %q, want the release namespace %s", u.GetKind(), u.GetName(), u.GetNamespace(), release)
			}
		}
	}
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

func TestChartDefaultsInstallARestrictedLeastPrivilegeOperatorThatRuns(t *testing.T) {
	const release, namespace = "sbchart", "sbchart-system"
	objs := mustHelmTemplate(t, release, namespace)
	wantKinds := map[string]int{
		"CustomResourceDefinition": 2, "ServiceAccount": 1, "ClusterRole": 1, "ClusterRoleBinding": 1,
		"Role": 1, "RoleBinding": 1, "Deployment": 1, "Service": 1,
	}
	if got := objs.kinds(); !equalCounts(got, wantKinds) {
		t.Errorf("kinds %v, want %v", got, wantKinds)
	}
	checkNamespaces(t, objs, namespace)
	d := typed[appsv1.Deployment](t, objs.one(t, "Deployment"))
	c := managerContainer(t, d)
	if want := "ghcr.io/storagebench/storagebench:" + chartAppVersion(t); c.Image != want {
		t.Errorf("image %s, want %s (tag = appVersion)", c.Image, want)
	}
	if v, _ := flagValue(c.Args, "client-image"); v != c.Image {
		t.Errorf("--client-image=%s, want the manager's image %s", v, c.Image)
	}
	if v, _ := flagValue(c.Args, "leader-elect"); v != "true" {
		t.Error("no --leader-elect")
	}
	if _, ok := flagValue(c.Args, "watch-namespaces"); ok {
		t.Error("--watch-namespaces without watchNamespaces")
	}
	defaults := parseClientPodDefaults(t, c.Args)
	want := &clientPodDefaults{Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("500m"), corev1.ResourceMemory: mustQuantity("256Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: mustQuantity("2Gi")},
	}}
	if !equality.Semantic.DeepEqual(defaults, want) {
		t.Errorf("client pod defaults %+v, want %+v", defaults, want)
	}
	checkMetricsService(t, objs, d, c)
	checkCRDs(t, objs, true)
	sa := d.Spec.Template.Spec.ServiceAccountName
	g := checkRBAC(t, objs, namespace, sa)
	checkManagerGrants(t, g, namespace, true, nil)
	serverValidate(t, objs)
	applyRBAC(t, objs)
	checkAuthorizer(t, namespace, sa, nil)
	runsABenchmark(t, objs, "sbchart-bench", "")
}

func TestChartWithWatchNamespacesGrantsPerNamespaceAndRunsOnlyThere(t *testing.T) {
	const release, namespace = "sbns", "sbns-system"
	objs := mustHelmTemplate(t, release, namespace, "--values", valuesFile("namespaced-values.yaml"))
	watch := []string{"storage-team-a", "storage-team-b"}
	if n := len(objs.ofKind("CustomResourceDefinition")); n != 0 {
		t.Errorf("crds.enabled=false renders %d CRDs", n)
	}
	checkNamespaces(t, objs, namespace)
	d := typed[appsv1.Deployment](t, objs.one(t, "Deployment"))
	c := managerContainer(t, d)
	if c.Image != "registry.example.com/storage/storagebench:v0.2.0-rc.1" || c.ImagePullPolicy != corev1.PullAlways {
		t.Errorf("image %s (%s)", c.Image, c.ImagePullPolicy)
	}
	if v, _ := flagValue(c.Args, "watch-namespaces"); v != strings.Join(watch, ",") {
		t.Errorf("--watch-namespaces=%s, want %s", v, strings.Join(watch, ","))
	}
	if v, _ := flagValue(c.Args, "client-image-pull-policy"); v != "IfNotPresent" {
		t.Errorf("--client-image-pull-policy=%s, want engine.imagePullPolicy IfNotPresent", v)
	}
	if v, _ := flagValue(c.Args, "max-concurrent-reconciles"); v != "4" {
		t.Errorf("--max-concurrent-reconciles=%q, want the chart's default 4", v)
	}
	if v, _ := flagValue(c.Args, "zap-log-level"); v != "debug" {
		t.Errorf("--zap-log-level=%s", v)
	}
	if *d.Spec.Replicas != 2 || d.Spec.Template.Spec.PriorityClassName != "system-cluster-critical" ||
		d.Spec.Template.Spec.NodeSelector["kubernetes.io/os"] != "linux" || len(d.Spec.Template.Spec.Tolerations) != 1 ||
		len(d.Spec.Template.Spec.ImagePullSecrets) != 1 {
		t.Errorf("manager pod scheduling values not applied: %+v", d.Spec.Template.Spec)
	}
	if d.Labels["team"] != "storage" || d.Annotations["owner"] == "" || d.Spec.Template.Labels["sidecar.istio.io/inject"] != "false" ||
		d.Spec.Template.Annotations["prometheus.io/scrape"] != "false" {
		t.Errorf("extra labels/annotations not applied: %v %v %v %v", d.Labels, d.Annotations, d.Spec.Template.Labels, d.Spec.Template.Annotations)
	}
	defaults := parseClientPodDefaults(t, c.Args)
	want := &clientPodDefaults{
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("2"), corev1.ResourceMemory: mustQuantity("1Gi")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: mustQuantity("2"), corev1.ResourceMemory: mustQuantity("4Gi")},
		},
		NodeSelector: map[string]string{"storagebench.io/client": "true"},
		Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "benchmark", Effect: corev1.TaintEffectNoSchedule}},
	}
	if !equality.Semantic.DeepEqual(defaults, want) {
		t.Errorf("client pod defaults %+v, want %+v", defaults, want)
	}
	svc := checkMetricsService(t, objs, d, c)
	sm := objs.one(t, "ServiceMonitor")
	if sm.GetAPIVersion() != "monitoring.coreos.com/v1" || sm.GetLabels()["release"] != "prometheus" {
		t.Errorf("ServiceMonitor %s labels %v", sm.GetAPIVersion(), sm.GetLabels())
	}
	selector, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	for k, v := range selector {
		if svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%v, the Service has %q", k, v, svc.Labels[k])
		}
	}
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(endpoints) != 1 || endpoints[0].(map[string]any)["port"] != "metrics" || endpoints[0].(map[string]any)["interval"] != "30s" {
		t.Errorf("ServiceMonitor endpoints %v", endpoints)
	}
	sa := d.Spec.Template.Spec.ServiceAccountName
	g := checkRBAC(t, objs, namespace, sa)
	checkManagerGrants(t, g, namespace, true, watch)
	serverValidate(t, objs)
	applyRBAC(t, objs)
	checkAuthorizer(t, namespace, sa, watch)
	runsABenchmark(t, objs, watch[0], "sbns-unwatched")
}

func TestChartMinimalTurnsOptionsOff(t *testing.T) {
	const release, namespace = "sbmin", "sbmin-system"
	objs := mustHelmTemplate(t, release, namespace, "--values", valuesFile("minimal-values.yaml"))
	for _, kind := range []string{"ServiceAccount", "Service", "ServiceMonitor", "Role", "RoleBinding"} {
		if n := len(objs.ofKind(kind)); n != 0 {
			t.Errorf("%d %s rendered, want none", n, kind)
		}
	}
	checkNamespaces(t, objs, namespace)
	d := typed[appsv1.Deployment](t, objs.one(t, "Deployment"))
	c := managerContainer(t, d)
	if d.Name != "sb-manager" || d.Spec.Template.Spec.ServiceAccountName != "existing-manager-account" {
		t.Errorf("Deployment %s with ServiceAccount %s", d.Name, d.Spec.Template.Spec.ServiceAccountName)
	}
	if _, ok := flagValue(c.Args, "leader-elect"); ok {
		t.Error("--leader-elect with leaderElection.enabled=false")
	}
	if v, _ := flagValue(c.Args, "metrics-bind-address"); v != "0" {
		t.Errorf("--metrics-bind-address=%s with metrics off", v)
	}
	if slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == "metrics" }) {
		t.Error("a metrics port with metrics off")
	}
	if _, ok := flagValue(c.Args, "client-pod-defaults"); ok {
		t.Error("--client-pod-defaults without engine defaults")
	}
	checkCRDs(t, objs, false)
	g := checkRBAC(t, objs, namespace, "existing-manager-account")
	checkManagerGrants(t, g, namespace, false, nil)
	serverValidate(t, objs)
}

func TestChartImageDigestPinsManagerAndClients(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	objs := mustHelmTemplate(t, "sbdigest", "sbdigest-system", "--set", "image.tag=v1.2.3,image.digest="+digest)
	c := managerContainer(t, typed[appsv1.Deployment](t, objs.one(t, "Deployment")))
	if want := "ghcr.io/storagebench/storagebench:v1.2.3@" + digest; c.Image != want {
		t.Errorf("image %s, want %s", c.Image, want)
	}
}

func TestChartRefusesContradictoryValues(t *testing.T) {
	for _, tc := range []struct{ set, message string }{
		{"replicaCount=2,leaderElection.enabled=false", "replicaCount > 1 needs leaderElection.enabled"},
		{"metrics.enabled=false,metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.enabled needs metrics.enabled"},
		{"serviceAccount.create=false", "serviceAccount.name is required"},
		{"image.repository=", "image.repository is required"},
		{"metrics.enabled=false,monitoring.prometheusRule.enabled=true", "monitoring.prometheusRule.enabled needs metrics.enabled"},
	} {
		_, err := helmTemplate(t, "sbbad", "sbbad-system", "--set", tc.set)
		if err == nil || !strings.Contains(err.Error(), tc.message) {
			t.Errorf("--set %s: got %v, want an error saying %q", tc.set, err, tc.message)
		}
	}
}

// The chart with release name storagebench in storagebench-system installs
// what config/default installs, object for object.
func TestChartMatchesKustomize(t *testing.T) {
	chart := mustHelmTemplate(t, "storagebench", kustomizeNamespace)
	kust := kustomize(t, filepath.Join(repoRoot, "config", "default"))
	names := func(objs objects) []string {
		var out []string
		for _, u := range objs {
			if u.GetKind() != "Namespace" {
				out = append(out, u.GetKind()+" "+u.GetNamespace()+"/"+u.GetName())
			}
		}
		slices.Sort(out)
		return out
	}
	if a, b := names(chart), names(kust); !slices.Equal(a, b) {
		t.Errorf("objects differ:\nchart     %q\nkustomize %q", a, b)
	}
	cd := typed[appsv1.Deployment](t, chart.one(t, "Deployment"))
	kd := typed[appsv1.Deployment](t, kust.one(t, "Deployment"))
	cc, kc := managerContainer(t, cd), managerContainer(t, kd)
	for _, f := range []struct {
		what     string
		chart, k any
	}{
		{"pod securityContext", cd.Spec.Template.Spec.SecurityContext, kd.Spec.Template.Spec.SecurityContext},
		{"container securityContext", cc.SecurityContext, kc.SecurityContext},
		{"liveness probe", cc.LivenessProbe, kc.LivenessProbe},
		{"readiness probe", cc.ReadinessProbe, kc.ReadinessProbe},
		{"ports", cc.Ports, kc.Ports},
		{"resources", cc.Resources, kc.Resources},
		{"image", cc.Image, kc.Image},
		{"pull policy", cc.ImagePullPolicy, kc.ImagePullPolicy},
		{"selector", cd.Spec.Selector.MatchLabels["app.kubernetes.io/component"], kd.Spec.Selector.MatchLabels["app.kubernetes.io/component"]},
		{"client pod defaults", parseClientPodDefaults(t, cc.Args), parseClientPodDefaults(t, kc.Args)},
	} {
		if !equality.Semantic.DeepEqual(f.chart, f.k) {
			t.Errorf("%s differs:\nchart     %+v\nkustomize %+v", f.what, f.chart, f.k)
		}
	}
	// The same flags, except the ones only one of them spells out.
	flags := func(args []string) []string {
		var out []string
		for _, a := range args {
			name, _, _ := strings.Cut(a, "=")
			switch name {
			case "--client-image", "--client-pod-defaults", "--zap-log-level":
			default:
				out = append(out, a)
			}
		}
		slices.Sort(out)
		return out
	}
	if a, b := flags(cc.Args), flags(kc.Args); !slices.Equal(a, b) {
		t.Errorf("manager flags differ:\nchart     %q\nkustomize %q", a, b)
	}
	for _, kind := range []string{"ClusterRole", "Role"} {
		cr := chart.one(t, kind)
		kr := kust.one(t, kind)
		var a, b []rbacv1.PolicyRule
		if kind == "ClusterRole" {
			a, b = typed[rbacv1.ClusterRole](t, cr).Rules, typed[rbacv1.ClusterRole](t, kr).Rules
		} else {
			a, b = typed[rbacv1.Role](t, cr).Rules, typed[rbacv1.Role](t, kr).Rules
		}
		diffTriples(t, kind+" of the chart vs config/", triples(a), triples(b))
	}
}

// The dashboard and the alert rules are the files the monitoring checks
// parse (hack/tools/promtool), shipped unchanged and off by default.
func TestChartShipsTheDashboardAndTheAlertRules(t *testing.T) {
	if objs := mustHelmTemplate(t, "sbmon", "sbmon-system"); len(objs.ofKind("PrometheusRule")) != 0 || len(objs.ofKind("ConfigMap")) != 0 {
		t.Fatal("the dashboard or the rules are rendered by default")
	}
	objs := mustHelmTemplate(t, "sbmon", "sbmon-system", "--set", "monitoring.grafanaDashboard.enabled=true,monitoring.prometheusRule.enabled=true")
	dashboard, err := os.ReadFile(filepath.Join(chartDir, "files", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	cm := typed[corev1.ConfigMap](t, objs.one(t, "ConfigMap"))
	if cm.Labels["grafana_dashboard"] != "1" || strings.TrimSpace(cm.Data["storagebench.json"]) != strings.TrimSpace(string(dashboard)) {
		t.Errorf("dashboard ConfigMap %s: labels %v, its JSON differs from files/grafana-dashboard.json: %t", cm.Name, cm.Labels,
			strings.TrimSpace(cm.Data["storagebench.json"]) != strings.TrimSpace(string(dashboard)))
	}
	rulesFile, err := os.ReadFile(filepath.Join(chartDir, "files", "prometheus-rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := yaml.Unmarshal(rulesFile, &want); err != nil {
		t.Fatal(err)
	}
	rule := objs.one(t, "PrometheusRule")
	if got := rule.Object["spec"]; !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("PrometheusRule spec differs from files/prometheus-rules.yaml:\n%v\n%v", got, want)
	}
	checkNamespaces(t, objs, "sbmon-system")
}
