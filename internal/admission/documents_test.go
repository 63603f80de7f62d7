package admission_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/storagebench/storagebench/internal/admission"
)

const oneBenchmark = `apiVersion: storagebench.io/v1alpha1
kind: StorageBenchmark
metadata: {name: one}
spec:
  targets: [{name: a, storageClassName: standard, size: 1Gi}]
  workloads: [{name: w, blockSizes: [4Ki], readPercents: [100]}]
`

// What `kubectl apply -f` reads from a file decides what Admit reads: a
// stream of documents, each decoded on its own.
func TestAdmitReadsAManifestAsKubectlDoes(t *testing.T) {
	asJSON := `{"apiVersion":"storagebench.io/v1alpha1","kind":"StorageBenchmark","metadata":{"name":"one"},` +
		`"spec":{"targets":[{"name":"a","storageClassName":"standard","size":"1Gi"}],"workloads":[{"name":"w","blockSizes":["4Ki"],"readPercents":[100]}]}}`
	cases := []struct {
		name     string
		manifest string
		wantErr  string // empty: accepted
	}{
		{"one YAML document", oneBenchmark, ""},
		{"empty documents and comments around it", "---\n# a comment\n---\n" + oneBenchmark + "---\n", ""},
		{"one JSON object", asJSON, ""},
		{"two documents", oneBenchmark + "---\n" + strings.Replace(oneBenchmark, "name: one", "name: two", 1),
			`the manifest holds 2 objects (StorageBenchmark "one", StorageBenchmark "two"); give one StorageBenchmark per file`},
		{"a benchmark and another kind", oneBenchmark + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n",
			`the manifest holds 2 objects (StorageBenchmark "one", ConfigMap "extra")`},
		{"JSON with trailing garbage", asJSON + " garbage", "document 2: invalid character 'g' looking for beginning of value"},
		{"JSON with a field given twice", strings.Replace(asJSON, `"name":"one"`, `"name":"one","name":"two"`, 1), `strict decoding error: duplicate field "metadata.name"`},
		{"a document that is not an object", oneBenchmark + "---\njust words\n", `document 2 is not an object: "\"just words\""`},
		{"nothing at all", "# only a comment\n", "the manifest holds no object"},
		{"a YAML syntax error", "apiVersion: [unclosed\n", "document 1:"},
		{"more than the API server accepts in one request", oneBenchmark + "# " + strings.Repeat("x", admission.MaxManifestBytes) + "\n",
			"more than the 3145728 bytes (3 MiB) the API server accepts in one request"},
		{"unknown field", strings.Replace(oneBenchmark, "spec:", "spec:\n  repetition: 3", 1), `unknown field "spec.repetition"`},
		{"duplicate field", strings.Replace(oneBenchmark, "metadata: {name: one}", "metadata: {name: one, name: two}", 1), `key "name" already set in map`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := admission.Admit([]byte(tc.manifest))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantErr == "" && (b.Name != "one" || b.Namespace != "default"):
				t.Fatalf("admitted %s/%s, want default/one", b.Namespace, b.Name)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("accepted, want an error containing %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("error %q lacks %q", err, tc.wantErr)
			}
		})
	}
}

// A list far beyond its bound is reported by the bound alone: neither the
// per-item rules nor the controller's checks run over its items, as the API
// server stops after such an error.
func TestAdmitReportsAListBoundBeforeLookingAtTheItems(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(strings.Split(oneBenchmark, "  workloads:")[0], "\n") + "\n  workloads:\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "    - {name: w%d, blockSizes: [4Ki], readPercents: [100]}\n", i)
	}
	began := time.Now()
	_, err := admission.Admit([]byte(b.String()))
	t.Logf("answered %d bytes in %s", b.Len(), time.Since(began))
	if err == nil {
		t.Fatal("accepted 20000 workloads")
	}
	msg := err.Error()
	if !strings.Contains(msg, "spec.workloads: Too many: 20000: must have at most 16 items") {
		t.Fatalf("the bound is not reported: %v", err)
	}
	if !strings.Contains(msg, "some validation rules were not checked") || strings.Contains(msg, "matrix expands") {
		t.Fatalf("validation went on past the bound: %v", err)
	}
}
