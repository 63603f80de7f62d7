package packaging

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// checkCRDs: the rendered CRDs are exactly config/crd/bases (spec, name,
// annotations; labels may be added), with helm.sh/resource-policy: keep iff
// keep.
func checkCRDs(t *testing.T, objs objects, keep bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	rendered := map[string]map[string]any{}
	for _, u := range objs.ofKind("CustomResourceDefinition") {
		rendered[u.GetName()] = u.Object
	}
	if len(rendered) != len(files) {
		t.Errorf("%d CRDs rendered, config/crd/bases has %d", len(rendered), len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := decode(t, data)[0]
		got, ok := rendered[want.GetName()]
		if !ok {
			t.Errorf("CRD %s is not rendered", want.GetName())
			continue
		}
		if !equality.Semantic.DeepEqual(got["spec"], want.Object["spec"]) {
			t.Errorf("CRD %s: the rendered spec differs from %s (run make manifests)", want.GetName(), f)
		}
		if got["apiVersion"] != want.GetAPIVersion() {
			t.Errorf("CRD %s: apiVersion %v", want.GetName(), got["apiVersion"])
		}
		annotations, _ := got["metadata"].(map[string]any)["annotations"].(map[string]any)
		for k, v := range want.GetAnnotations() {
			if annotations[k] != v {
				t.Errorf("CRD %s: annotation %s=%v, want %s", want.GetName(), k, annotations[k], v)
			}
		}
		if policy := annotations["helm.sh/resource-policy"]; (policy == "keep") != keep {
			t.Errorf("CRD %s: helm.sh/resource-policy=%v, want keep=%v", want.GetName(), policy, keep)
		}
	}
}
