package packaging

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/storagebench/storagebench/internal/testenv"
)

// The objects of the test API server are shared by all tests; each test
// uses its own release names and namespaces.
var (
	env      *testenv.Env
	repoRoot = testenv.RepoRoot()
)

func TestMain(m *testing.M) {
	testenv.Main(m, &env, func(*testenv.Env) (func(), error) {
		return func() {
			if binaryDir != "" {
				os.RemoveAll(binaryDir)
			}
		}, nil
	})
}

// objects are the rendered manifests.
type objects []*unstructured.Unstructured

// decode splits multi-document YAML into objects (empty documents dropped).
func decode(t *testing.T, data []byte) objects {
	t.Helper()
	var out objects
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("decoding the rendered manifests: %v", err)
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

func (o objects) ofKind(kind string) objects {
	var out objects
	for _, u := range o {
		if u.GetKind() == kind {
			out = append(out, u)
		}
	}
	return out
}

// one returns the only object of a kind, failing otherwise.
func (o objects) one(t *testing.T, kind string) *unstructured.Unstructured {
	t.Helper()
	found := o.ofKind(kind)
	if len(found) != 1 {
		t.Fatalf("want exactly one %s, got %d", kind, len(found))
	}
	return found[0]
}

func (o objects) kinds() map[string]int {
	out := map[string]int{}
	for _, u := range o {
		out[u.GetKind()]++
	}
	return out
}

// typed converts an object into its Go type, failing on fields the type does
// not have (a typo in a template would otherwise be silently dropped).
func typed[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, out, true); err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return out
}

// kubectl is the kubectl built with the envtest binaries (or $KUBECTL).
func kubectl(t *testing.T) string {
	t.Helper()
	if k := os.Getenv("KUBECTL"); k != "" {
		return k
	}
	k := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	if _, err := os.Stat(k); err != nil {
		t.Fatalf("no kubectl at %s: run `make test`, or set KUBEBUILDER_ASSETS=$(hack/k8s-binaries.sh)", k)
	}
	return k
}

// readTree reads every file under dir. Files that only kubectl or helm read
// are invisible to go test's cache; read here, a change to them reruns the
// tests instead of reporting a stale cached pass.
func readTree(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		_, err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// kustomize renders a kustomization with kubectl kustomize.
func kustomize(t *testing.T, dir string) objects {
	t.Helper()
	readTree(t, filepath.Join(repoRoot, "config"))
	out, err := run(kubectl(t), "kustomize", dir)
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", dir, err)
	}
	return decode(t, out)
}

// helmBinary is $HELM; the chart tests skip without it.
func helmBinary(t *testing.T) string {
	t.Helper()
	h := os.Getenv("HELM")
	if h == "" {
		t.Skip("HELM is not set: the chart tests need the helm binary; `make helm-lint` builds it (hack/tools/helm) and runs them")
	}
	return h
}

var chartDir = filepath.Join(repoRoot, "charts", "storagebench")

// helmTemplate renders the chart; args are extra helm flags (--values,
// --set). It returns helm's error output on failure.
func helmTemplate(t *testing.T, release, namespace string, args ...string) (objects, error) {
	t.Helper()
	readTree(t, chartDir)
	full := append([]string{"template", release, chartDir, "--namespace", namespace}, args...)
	out, err := run(helmBinary(t), full...)
	if err != nil {
		return nil, err
	}
	return decode(t, out), nil
}

func mustHelmTemplate(t *testing.T, release, namespace string, args ...string) objects {
	t.Helper()
	objs, err := helmTemplate(t, release, namespace, args...)
	if err != nil {
		t.Fatalf("helm template %s: %v", strings.Join(args, " "), err)
	}
	return objs
}

func run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = repoRoot
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// serverValidate has the API server check every object: a server-side apply
// in dry-run mode with strict field validation, so unknown fields, invalid
// values and a selector that does not match its pod template all fail.
// Namespaces are created for real. Kinds the test server does not know
// (ServiceMonitor) are skipped.
func serverValidate(t *testing.T, objs objects) {
	t.Helper()
	ctx := context.Background()
	c := client.WithFieldValidation(env.Client, metav1.FieldValidationStrict)
	for _, u := range objs {
		if u.GroupVersionKind().Group == "monitoring.coreos.com" {
			continue
		}
		if ns := u.GetNamespace(); ns != "" {
			ensureNamespace(t, ns)
		}
		opts := []client.ApplyOption{client.FieldOwner("packaging-test"), client.ForceOwnership}
		if u.GetKind() != "Namespace" {
			opts = append(opts, client.DryRunAll)
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), opts...); err != nil {
			t.Errorf("the API server rejects %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// apply creates or updates the objects for real (server-side apply).
func apply(t *testing.T, objs objects) {
	t.Helper()
	for _, u := range objs {
		if ns := u.GetNamespace(); ns != "" {
			ensureNamespace(t, ns)
		}
		err := env.Client.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u.DeepCopy()),
			client.FieldOwner("packaging-test"), client.ForceOwnership)
		if err != nil {
			t.Fatalf("applying %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := env.Client.Create(context.Background(), ns); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
}

// The storagebench binary, built once for the tests that run the manager.
var (
	binaryOnce sync.Once
	binaryDir  string
	binaryPath string
	binaryErr  error
)

func storagebenchBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		if binaryDir, binaryErr = os.MkdirTemp("", "storagebench-packaging-"); binaryErr != nil {
			return
		}
		binaryPath = filepath.Join(binaryDir, "storagebench")
		// Built as the tests are (same cgo setting), so the build cache of
		// the test run is reused.
		cmd := exec.Command("go", "build", "-o", binaryPath, ".")
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			binaryErr = fmt.Errorf("building storagebench: %w\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}
