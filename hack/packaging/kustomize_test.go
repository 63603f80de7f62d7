package packaging

import (
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

const kustomizeNamespace = "storagebench-system"

func TestKustomizeDefaultInstallsARestrictedLeastPrivilegeOperatorThatRuns(t *testing.T) {
	objs := kustomize(t, filepath.Join(repoRoot, "config", "default"))
	wantKinds := map[string]int{
		"Namespace": 1, "CustomResourceDefinition": 2, "ServiceAccount": 1, "ClusterRole": 1,
		"ClusterRoleBinding": 1, "Role": 1, "RoleBinding": 1, "Deployment": 1, "Service": 1,
	}
	if got := objs.kinds(); !equalCounts(got, wantKinds) {
		t.Errorf("kinds %v, want %v", got, wantKinds)
	}
	for _, u := range objs {
		switch u.GetKind() {
		case "Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding":
		default:
			if u.GetNamespace() != kustomizeNamespace {
				t.Errorf("%s %s is in namespace %q, want %s", u.GetKind(), u.GetName(), u.GetNamespace(), kustomizeNamespace)
			}
		}
	}
	ns := typed[corev1.Namespace](t, objs.one(t, "Namespace"))
	if ns.Name != kustomizeNamespace || ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("namespace %s labels %v: want %s enforcing restricted Pod Security", ns.Name, ns.Labels, kustomizeNamespace)
	}
	d := typed[appsv1.Deployment](t, objs.one(t, "Deployment"))
	c := managerContainer(t, d)
	if v, _ := flagValue(c.Args, "leader-elect"); v != "true" {
		t.Error("no --leader-elect")
	}
	checkMetricsService(t, objs, d, c)
	checkCRDs(t, objs, false)
	g := checkRBAC(t, objs, kustomizeNamespace, d.Spec.Template.Spec.ServiceAccountName)
	checkManagerGrants(t, g, kustomizeNamespace, true, nil)
	serverValidate(t, objs)
	applyRBAC(t, objs)
	checkAuthorizer(t, kustomizeNamespace, d.Spec.Template.Spec.ServiceAccountName, nil)
	runsABenchmark(t, objs, "kustomize-bench", "")
}

// An overlay that changes the image changes the client pods' image too
// (config/manager/kustomizeconfig.yaml), without repeating it.
func TestKustomizeOverlayImageAlsoSetsTheClientImage(t *testing.T) {
	dir := t.TempDir()
	base, err := filepath.Rel(dir, filepath.Join(repoRoot, "config", "default"))
	if err != nil {
		t.Fatal(err)
	}
	overlay := "resources:\n  - " + base + "\nimages:\n  - name: ghcr.io/storagebench/storagebench\n" +
		"    newName: localhost/storagebench/storagebench\n    newTag: v9.9.9-test\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	d := typed[appsv1.Deployment](t, kustomize(t, dir).one(t, "Deployment"))
	c := managerContainer(t, d)
	if c.Image != "localhost/storagebench/storagebench:v9.9.9-test" {
		t.Errorf("image %q: the overlay's images were not applied", c.Image)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
