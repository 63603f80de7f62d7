// Package gitops_test checks that the GitOps wiring shipped in this folder
// reads StorageBenchmark and StorageBenchmarkSchedule status as intended,
// on status fixtures recorded
// from the controller's integration tests (testdata/): the Argo CD health
// check (run in gopher-lua, base and table libraries only, as Argo CD's
// sandbox), kstatus as Flux computes it, and the Flux healthCheckExprs.
package gitops_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/yaml"
)

// expectations per fixture: Argo CD health, kstatus status, and whether
// `kubectl wait --for=condition=Completed` would return.
var expectations = map[string]struct {
	argo      string
	kstatus   status.Status
	completed bool
}{
	"not-yet-observed.yaml":        {"Progressing", status.InProgressStatus, false},
	"running.yaml":                 {"Progressing", status.InProgressStatus, false},
	"spec-changed.yaml":            {"Progressing", status.InProgressStatus, false},
	"stale-after-spec-change.yaml": {"Progressing", status.InProgressStatus, false},
	"passed.yaml":                  {"Healthy", status.CurrentStatus, true},
	"thresholds-failed.yaml":       {"Degraded", status.FailedStatus, true},
	"run-failed.yaml":              {"Degraded", status.FailedStatus, true},
}

func fixtures(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := fixturesIn(t, "testdata")
	if len(out) != len(expectations) {
		t.Fatalf("%d fixtures, %d expectations", len(out), len(expectations))
	}
	return out
}

// scheduleExpectations per schedule fixture (testdata/schedules, recorded
// by the schedule controller's envtest): Argo CD health, kstatus, and the
// Flux example's healthCheckExprs for schedules.
var scheduleExpectations = map[string]struct {
	argo          string
	kstatus, flux status.Status
}{
	"waiting.yaml": {"Healthy", status.CurrentStatus, status.CurrentStatus},
	// kstatus waits while a run is active; the shipped exprs do not.
	"running.yaml": {"Healthy", status.InProgressStatus, status.CurrentStatus},
	"passed.yaml":  {"Healthy", status.CurrentStatus, status.CurrentStatus},
	"drifted.yaml": {"Degraded", status.FailedStatus, status.FailedStatus},
	"invalid.yaml": {"Degraded", status.FailedStatus, status.FailedStatus},
}

func fixturesIn(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Decode as the API server serves objects: whole numbers are int64.
		asJSON, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		obj := map[string]any{}
		if err := utiljson.Unmarshal(asJSON, &obj); err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = obj
	}
	return out
}

// toLua converts decoded YAML into Lua values.
func toLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case map[string]any:
		t := L.NewTable()
		for k, val := range x {
			t.RawSetString(k, toLua(L, val))
		}
		return t
	case []any:
		t := L.NewTable()
		for _, val := range x {
			t.Append(toLua(L, val))
		}
		return t
	case string:
		return lua.LString(x)
	case float64:
		return lua.LNumber(x)
	case int64:
		return lua.LNumber(x)
	case bool:
		return lua.LBool(x)
	}
	return lua.LNil
}

func argoHealth(t *testing.T, script string, obj map[string]any) (string, string) {
	t.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(script); err != nil {
		t.Fatalf("health check failed to run: %v", err)
	}
	result, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("health check returned %s, not a table", L.Get(-1).Type())
	}
	return result.RawGetString("status").String(), result.RawGetString("message").String()
}

func TestArgoCDHealthCheck(t *testing.T) {
	script, err := os.ReadFile("argocd/storagebenchmark-health.lua")
	if err != nil {
		t.Fatal(err)
	}
	for name, obj := range fixtures(t) {
		got, message := argoHealth(t, string(script), obj)
		if got != expectations[name].argo {
			t.Errorf("%s: %s (%q), want %s", name, got, message, expectations[name].argo)
		}
		if message == "" {
			t.Errorf("%s: no message", name)
		}
	}
	// Never Unknown, whatever the object holds.
	for _, odd := range []map[string]any{{}, {"status": map[string]any{}}, {"metadata": map[string]any{"generation": int64(1)}, "status": map[string]any{"observedGeneration": int64(1), "conditions": []any{}}}} {
		if got, _ := argoHealth(t, string(script), odd); got != "Progressing" {
			t.Errorf("%v: %s, want Progressing", odd, got)
		}
	}
}

func TestKstatusAndKubectlWait(t *testing.T) {
	for name, obj := range fixtures(t) {
		res, err := status.Compute(&unstructured.Unstructured{Object: obj})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Status != expectations[name].kstatus {
			t.Errorf("%s: kstatus %s (%s), want %s", name, res.Status, res.Message, expectations[name].kstatus)
		}
		if got := completedForKubectlWait(obj); got != expectations[name].completed {
			t.Errorf("%s: kubectl wait --for=condition=Completed returns %v, want %v", name, got, expectations[name].completed)
		}
	}
}

// completedForKubectlWait applies kubectl wait's rule: the condition is True
// and not older than the object's generation.
func completedForKubectlWait(obj map[string]any) bool {
	generation, _, _ := unstructured.NestedInt64(obj, "metadata", "generation")
	conditions, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conditions {
		m := c.(map[string]any)
		observed, _, _ := unstructured.NestedInt64(m, "observedGeneration")
		if m["type"] == "Completed" && m["status"] == "True" && observed >= generation {
			return true
		}
	}
	return false
}

func TestFluxHealthCheckExprs(t *testing.T) {
	data, err := os.ReadFile("flux/storage-rollout.yaml")
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string]map[string]string{}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var k struct {
			Spec struct {
				HealthCheckExprs []map[string]string `json:"healthCheckExprs"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &k); err != nil {
			t.Fatal(err)
		}
		for _, e := range k.Spec.HealthCheckExprs {
			byKind[e["kind"]] = e
		}
	}
	exprs, scheduleExprs := byKind["StorageBenchmark"], byKind["StorageBenchmarkSchedule"]
	if exprs == nil || scheduleExprs == nil {
		t.Fatalf("the Flux example lacks healthCheckExprs for StorageBenchmark or StorageBenchmarkSchedule: %v", byKind)
	}
	env, err := cel.NewEnv(cel.Variable("metadata", cel.DynType), cel.Variable("status", cel.DynType), cel.Variable("spec", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	eval := func(expr string, obj map[string]any) bool {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatalf("%q: %v", expr, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := prg.Eval(map[string]any{"metadata": obj["metadata"], "status": obj["status"], "spec": obj["spec"]})
		if err != nil {
			return false // Flux treats an evaluation error as "not this state"
		}
		return out.Value() == true
	}
	// Flux evaluates inProgress, then failed, then current.
	flux := func(exprs map[string]string, obj map[string]any) status.Status {
		switch {
		case eval(exprs["inProgress"], obj):
			return status.InProgressStatus
		case eval(exprs["failed"], obj):
			return status.FailedStatus
		case eval(exprs["current"], obj):
			return status.CurrentStatus
		}
		return status.UnknownStatus
	}
	for name, obj := range fixtures(t) {
		if got := flux(exprs, obj); got != expectations[name].kstatus {
			t.Errorf("%s: healthCheckExprs say %s, want %s", name, got, expectations[name].kstatus)
		}
	}
	for name, obj := range fixturesIn(t, filepath.Join("testdata", "schedules")) {
		if got := flux(scheduleExprs, obj); got != scheduleExpectations[name].flux {
			t.Errorf("schedule %s: healthCheckExprs say %s, want %s", name, got, scheduleExpectations[name].flux)
		}
	}
}

func TestArgoCDAndKstatusReadSchedules(t *testing.T) {
	script, err := os.ReadFile("argocd/storagebenchmarkschedule-health.lua")
	if err != nil {
		t.Fatal(err)
	}
	found := fixturesIn(t, filepath.Join("testdata", "schedules"))
	if len(found) != len(scheduleExpectations) {
		t.Fatalf("%d schedule fixtures, %d expectations", len(found), len(scheduleExpectations))
	}
	for name, obj := range found {
		got, message := argoHealth(t, string(script), obj)
		if got != scheduleExpectations[name].argo || message == "" {
			t.Errorf("%s: Argo CD %s (%q), want %s with a message", name, got, message, scheduleExpectations[name].argo)
		}
		res, err := status.Compute(&unstructured.Unstructured{Object: obj})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Status != scheduleExpectations[name].kstatus {
			t.Errorf("%s: kstatus %s (%s), want %s", name, res.Status, res.Message, scheduleExpectations[name].kstatus)
		}
	}
	for _, odd := range []map[string]any{{}, {"status": map[string]any{}}, {"metadata": map[string]any{"generation": int64(1)}, "status": map[string]any{"observedGeneration": int64(1)}}} {
		if got, _ := argoHealth(t, string(script), odd); got != "Progressing" {
			t.Errorf("%v: %s, want Progressing", odd, got)
		}
	}
}
