package controllers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestStatusPatchSendsOnlyWhatChangedUnderTheResourceVersionItRead(t *testing.T) {
	before := newBenchmark(withTargets(classTarget("a", "fast"), classTarget("b", "slow")), freshGeneration())
	before.ResourceVersion = "41"
	before.Status.Targets = []sbv1.TargetStatus{
		{Name: "a", State: sbv1.TargetSucceeded, Cells: []sbv1.CellSummary{{Name: "w-bs4k-r100-qd32-j1", IOPS: "1000"}}},
		{Name: "b", State: sbv1.TargetPending},
	}
	after := before.DeepCopy()
	after.Status.Targets[1].State = sbv1.TargetRunning
	after.Status.Targets[1].Message = "measuring"

	patch, err := patchOf(before, after)
	if err != nil {
		t.Fatal(err)
	}
	data, err := patch.Data(after)
	if err != nil {
		t.Fatal(err)
	}
	var ops []map[string]any
	if err := json.Unmarshal(data, &ops); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, op := range ops {
		got[op["op"].(string)+" "+op["path"].(string)] = op["value"]
	}
	want := map[string]any{
		"replace /metadata/resourceVersion": "41",
		"replace /status/targets/1/state":   "Running",
		"add /status/targets/1/message":     "measuring",
	}
	if len(got) != len(want) {
		t.Fatalf("patch %s, want only %v", data, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("patch lacks %s = %v: %s", k, v, data)
		}
	}
	if strings.Contains(string(data), "w-bs4k") {
		t.Errorf("the finished target's results were sent again: %s", data)
	}
}

func TestAStatusPatchFromAStaleReadConflicts(t *testing.T) {
	ctx := context.Background()
	stored := newBenchmark(withTargets(classTarget("a", "fast")), freshGeneration())
	c := fake.NewClientBuilder().WithScheme(testScheme).WithObjects(stored).WithStatusSubresource(stored).Build()
	read := &sbv1.StorageBenchmark{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(stored), read); err != nil {
		t.Fatal(err)
	}
	// A newer pass stores its status first.
	newer := read.DeepCopy()
	newer.Status.TargetNames = "a"
	if err := c.Status().Update(ctx, newer); err != nil {
		t.Fatal(err)
	}
	stale := read.DeepCopy()
	stale.Status.TargetNames = "stale"
	patch, err := patchOf(read, stale)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Patch(ctx, stale, patch); !apierrors.IsConflict(err) {
		t.Fatalf("a patch from a stale read must conflict, got %v", err)
	}
}

// patchOf is the status patch from before to after.
func patchOf(before, after *sbv1.StorageBenchmark) (client.Patch, error) {
	change, err := diffStatus(before, after)
	if err != nil {
		return nil, err
	}
	return change.patch()
}
