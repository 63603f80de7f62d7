package controllers_test

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/storagebench/storagebench/internal/fakecluster"
	"github.com/storagebench/storagebench/internal/plan"
)

// envtest has no kubelet, scheduler, volume binder or Job controller:
// internal/fakecluster plays their parts through the API. These wrappers
// fail the test on its errors.

func cluster() *fakecluster.Cluster { return &fakecluster.Cluster{Client: k8sClient, Logs: podLogs} }

// The tests run one benchmark per namespace, so they select by target.
func bindClaims(t *testing.T, ns, target string) {
	t.Helper()
	if err := cluster().BindClaims(context.Background(), ns, "", target); err != nil {
		t.Fatal(err)
	}
}

// targetJobs waits for the target's client Jobs of a generation.
func targetJobs(t *testing.T, ns, target string, generation int64, want int) []batchv1.Job {
	t.Helper()
	jobs, err := cluster().TargetJobs(context.Background(), ns, "", target, generation, want, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func startPods(t *testing.T, jobs []batchv1.Job) []*corev1.Pod {
	t.Helper()
	pods, err := cluster().StartPods(context.Background(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

func finishPod(t *testing.T, pod *corev1.Pod, log string) {
	t.Helper()
	if err := cluster().FinishPod(context.Background(), pod, log); err != nil {
		t.Fatal(err)
	}
}

func setPodPhase(t *testing.T, pod *corev1.Pod, phase corev1.PodPhase, exitCode int32, message string) {
	t.Helper()
	if err := cluster().SetPodPhase(context.Background(), pod, phase, exitCode, message); err != nil {
		t.Fatal(err)
	}
}

func targetPlan(t *testing.T, ns, bench, target string, generation int64) *plan.Plan {
	t.Helper()
	p, err := cluster().TargetPlan(context.Background(), ns, bench, target, generation, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitForStartAndRunThrough waits until the controller published the
// target's start and steps the clock past the timetable's end.
func waitForStartAndRunThrough(t *testing.T, ns, bench, target string, p *plan.Plan) plan.StartRecord {
	t.Helper()
	record, err := cluster().WaitForStart(context.Background(), ns, bench, target, p, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	testClock.Step(record.Start.Sub(testClock.Now()) + p.Duration() + time.Second)
	return record
}

func clientLog(t *testing.T, p *plan.Plan, client int32, start plan.StartRecord) string {
	t.Helper()
	log, err := fakecluster.ClientLog(p, client, start)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

func expectedDirection(clients int32, cellIndex, direction int) (float64, int64) {
	return fakecluster.ExpectedDirection(clients, cellIndex, direction)
}
