package controllers_test

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/engine/result"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// envtest has no kubelet, scheduler, volume binder or Job controller. These
// helpers play their parts through the API, as those components would: bind
// claims, create the Jobs' pods, mark them ready, finish them with a log.

func bindClaims(t *testing.T, ns, target string) {
	t.Helper()
	var claims corev1.PersistentVolumeClaimList
	if err := k8sClient.List(context.Background(), &claims, client.InNamespace(ns), client.MatchingLabels{"storagebench.io/target": target}); err != nil {
		t.Fatal(err)
	}
	for i := range claims.Items {
		c := &claims.Items[i]
		if c.Status.Phase == corev1.ClaimBound {
			continue
		}
		c.Status.Phase = corev1.ClaimBound
		if err := k8sClient.Status().Update(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
}

// targetJobs waits for the target's client Jobs of a generation.
func targetJobs(t *testing.T, ns, target string, generation int64, want int) []batchv1.Job {
	t.Helper()
	var jobs batchv1.JobList
	eventually(t, 20*time.Second, fmt.Sprintf("%d jobs of target %s", want, target), func() error {
		if err := k8sClient.List(context.Background(), &jobs, client.InNamespace(ns), client.MatchingLabels{
			"storagebench.io/target": target, "storagebench.io/generation": strconv.FormatInt(generation, 10),
		}); err != nil {
			return err
		}
		if len(jobs.Items) != want {
			return fmt.Errorf("%d jobs", len(jobs.Items))
		}
		return nil
	})
	return jobs.Items
}

// startPods creates each Job's pods, scheduled on a node and Ready, as the
// Job controller, the scheduler and the kubelet would.
func startPods(t *testing.T, jobs []batchv1.Job) []*corev1.Pod {
	t.Helper()
	ctx := context.Background()
	var pods []*corev1.Pod
	for _, job := range jobs {
		for i := int32(0); i < *job.Spec.Completions; i++ {
			tmpl := job.Spec.Template.DeepCopy()
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("%s-%d-abcde", job.Name, i), Namespace: job.Namespace,
					Labels: tmpl.Labels, Annotations: tmpl.Annotations,
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}},
				},
				Spec: tmpl.Spec,
			}
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(int(i))
			pod.Spec.NodeName = "node-1"
			if err := k8sClient.Create(ctx, pod); err != nil {
				t.Fatal(err)
			}
			pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue},
			}}
			if err := k8sClient.Status().Update(ctx, pod); err != nil {
				t.Fatal(err)
			}
			pods = append(pods, pod)
		}
	}
	return pods
}

// finishPod ends a pod successfully with the given log.
func finishPod(t *testing.T, pod *corev1.Pod, log string) {
	t.Helper()
	podLogs.set(pod.Namespace, pod.Name, log)
	setPodPhase(t, pod, corev1.PodSucceeded, 0, "")
}

func setPodPhase(t *testing.T, pod *corev1.Pod, phase corev1.PodPhase, exitCode int32, message string) {
	t.Helper()
	current := &corev1.Pod{}
	if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(pod), current); err != nil {
		t.Fatal(err)
	}
	current.Status.Phase = phase
	current.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	current.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "engine", State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, Reason: map[bool]string{true: "Completed", false: "Error"}[exitCode == 0], Message: message},
	}}}
	if err := k8sClient.Status().Update(context.Background(), current); err != nil {
		t.Fatal(err)
	}
}

// targetPlan reads the plan the controller handed to the target's clients.
func targetPlan(t *testing.T, ns, bench, target string, generation int64) *plan.Plan {
	t.Helper()
	cm := &corev1.ConfigMap{}
	name := fmt.Sprintf("%s-plan-g%d", bench, generation)
	eventually(t, 10*time.Second, "plan configmap "+name, func() error {
		return k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cm)
	})
	p, err := plan.Parse([]byte(cm.Data[target+".json"]))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitForStart waits until the controller published the target's start and
// steps the clock past the timetable's end.
func waitForStartAndRunThrough(t *testing.T, ns, bench, target string, p *plan.Plan) plan.StartRecord {
	t.Helper()
	var record plan.StartRecord
	eventually(t, 20*time.Second, "start of target "+target, func() error {
		cm := &corev1.ConfigMap{}
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: bench + "-start"}, cm); err != nil {
			return err
		}
		value, ok := cm.Data[target]
		if !ok {
			return fmt.Errorf("not published")
		}
		var err error
		record, err = plan.DecodeStartRecord(value)
		if err == nil && record.Generation != p.Generation {
			return fmt.Errorf("record for generation %d", record.Generation)
		}
		return err
	})
	testClock.Step(record.Start.Sub(testClock.Now()) + p.Duration() + time.Second)
	return record
}

// samplesFor makes a client's latency samples for a cell: different per
// client, cell and direction, so a wrong merge shows.
func samplesFor(client int32, cellIndex int, direction int) []int64 {
	n := 200 + int(client)*50 + cellIndex*30 + direction*10
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(20_000 + (i*7919)%50_000*(int(client)+1) + cellIndex*1000 + direction*3000)
	}
	return out
}

// clientLog is the log of a client that ran its plan: its framed report
// with one engine document per cell run.
func clientLog(t *testing.T, p *plan.Plan, client int32, start plan.StartRecord) string {
	t.Helper()
	report := &results.ClientReport{
		SchemaVersion: results.ClientReportSchema, Benchmark: p.Benchmark, Generation: p.Generation,
		Target: p.Target, Client: client, Node: "node-1", EngineVersion: "test", StartUnixNano: start.Start.UnixNano(),
	}
	cellIndex := 0
	for _, slot := range p.Slots {
		for _, cell := range slot.Cells {
			report.Runs = append(report.Runs, results.CellRun{
				Cell: cell.Name, Repetition: slot.Repetition,
				Document: engineDocument(cell, client, cellIndex, start.Start.Add(time.Duration(slot.OffsetMilliseconds)*time.Millisecond)),
			})
			cellIndex++
		}
	}
	var buf bytes.Buffer
	buf.WriteString("I1129 client log line before the report\n")
	if err := results.WriteClientReport(&buf, report); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func engineDocument(cell sbv1.Cell, client int32, cellIndex int, start time.Time) *result.Document {
	job := result.Job{JobName: cell.Name}
	ext := result.JobExtension{JobName: cell.Name, Backend: "io_uring", StartUnixNano: start.UnixNano() + int64(client)*1000, EndUnixNano: start.Add(time.Second).UnixNano()}
	fill := func(d *result.Direction, e *result.DirectionExtension, direction int) {
		h := hist.New()
		for _, s := range samplesFor(client, cellIndex, direction) {
			h.Record(s)
		}
		n := h.Count()
		*d = result.Direction{TotalIOs: n, IOBytes: n * 4096, BwBytes: n * 4096, IOPS: float64(n)}
		*e = result.DirectionExtension{Lat: h.Encode(), Clat: h.Encode()}
	}
	if cell.Reads() {
		fill(&job.Read, &ext.Read, 0)
	}
	if cell.Writes() {
		fill(&job.Write, &ext.Write, 1)
	}
	return &result.Document{Jobs: []result.Job{job}, Storagebench: result.Extension{SchemaVersion: result.SchemaVersion, Jobs: []result.JobExtension{ext}}}
}

// expectedDirection is what merging the clients' samples must give.
func expectedDirection(clients int32, cellIndex, direction int) (iops float64, p99 int64) {
	h := hist.New()
	for c := int32(0); c < clients; c++ {
		for _, s := range samplesFor(c, cellIndex, direction) {
			h.Record(s)
		}
	}
	return float64(h.Count()), h.Percentile(99)
}
