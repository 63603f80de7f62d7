package localrun

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine"
)

// atTheMaxima is a spec at the API's documented bounds: 16 targets, 64
// clients, 64 jobs per client.
func atTheMaxima(execution sbv1.TargetExecution) *sbv1.StorageBenchmark {
	b := &sbv1.StorageBenchmark{Spec: sbv1.StorageBenchmarkSpec{
		Clients:         sbv1.Clients{Count: sbv1.MaxClients},
		TargetExecution: execution,
		Dataset:         sbv1.Dataset{SizePerClient: "1Mi", FilesPerClient: 1},
		Workloads: []sbv1.WorkloadGroup{{
			Name: "w", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100}, QueueDepths: []int32{1}, NumJobs: []int32{64},
			DurationSeconds: 1,
		}},
	}}
	for i := 0; i < sbv1.MaxTargets; i++ {
		b.Spec.Targets = append(b.Spec.Targets, sbv1.Target{Name: fmt.Sprintf("t%d", i), StorageClassName: ptr.To("x"), Size: ptr.To(resource.MustParse("1Gi"))})
	}
	return b
}

func TestParallelTargetsAtTheMaximaAreRefusedNamingWhatToLower(t *testing.T) {
	err := checkThreads(atTheMaxima(sbv1.TargetsParallel))
	if err == nil {
		t.Fatal("16 targets x 64 clients x 64 jobs in one process were accepted")
	}
	for _, want := range []string{"65536 engine threads", "16 targets in parallel", "clients.count 64 x 64 threads per client",
		"spec.clients.count", "numJobs", "spec.targetExecution: Sequential"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if !errors.Is(err, engine.ErrUsage) {
		t.Errorf("not a usage error: %v", err)
	}
}

func TestSequentialTargetsAtTheMaximaFitTheBudget(t *testing.T) {
	if err := checkThreads(atTheMaxima(sbv1.TargetsSequential)); err != nil {
		t.Fatalf("64 clients x 64 jobs (%d threads, the bound) refused: %v", 64*64, err)
	}
	b := atTheMaxima(sbv1.TargetsSequential)
	b.Spec.Workloads = append(b.Spec.Workloads, sbv1.WorkloadGroup{
		Name: "writer", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{0}, QueueDepths: []int32{1}, NumJobs: []int32{1},
		DurationSeconds: 1, ConcurrentWith: "w",
	})
	if err := checkThreads(b); err == nil || !strings.Contains(err.Error(), "4160 engine threads") {
		t.Fatalf("a concurrent writer on top of the bound must be refused, got %v", err)
	}
}
