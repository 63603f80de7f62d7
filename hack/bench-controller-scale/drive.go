package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/fakecluster"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/internal/testenv"
)

// shape is a benchmark's size: targets x clients x cells.
type shape struct{ targets, clients, cells int }

func (s shape) String() string { return fmt.Sprintf("%dx%dx%d", s.targets, s.clients, s.cells) }

// benchmarkFor is a benchmark of the shape: one workload group whose block
// sizes, read mixes and queue depths multiply to the cell count (1 to 64),
// one claim and client Job per client (ReadWriteOnce), targets in sequence,
// one-second cells.
func benchmarkFor(ns, name, class string, s shape) (*sbv1.StorageBenchmark, error) {
	blockSizes := []sbv1.BlockSize{"4Ki", "8Ki", "16Ki", "64Ki"}
	reads := []int32{100, 0, 70, 30}
	depths := []int32{1, 4, 16, 64}
	var nb, nr, nq int
	for nb = 1; nb <= 4; nb++ {
		for nr = 1; nr <= 4; nr++ {
			for nq = 1; nq <= 4; nq++ {
				if nb*nr*nq == s.cells {
					goto found
				}
			}
		}
	}
	return nil, fmt.Errorf("%d cells is not a product of up to 4 block sizes, 4 read mixes and 4 queue depths", s.cells)
found:
	b := &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: sbv1.StorageBenchmarkSpec{
			Clients: sbv1.Clients{Count: int32(s.clients)},
			Dataset: sbv1.Dataset{SizePerClient: "64Mi"},
			Workloads: []sbv1.WorkloadGroup{{
				Name: "w", BlockSizes: blockSizes[:nb], ReadPercents: reads[:nr], QueueDepths: depths[:nq],
				DurationSeconds: 1, RampSeconds: ptr.To[int32](0),
			}},
		},
	}
	for i := 0; i < s.targets; i++ {
		b.Spec.Targets = append(b.Spec.Targets, sbv1.Target{Name: fmt.Sprintf("target-%02d", i), StorageClassName: ptr.To(class), Size: ptr.To(resource.MustParse("1Gi"))})
	}
	return b, nil
}

// harness plays the cluster for the benchmarks of one measurement and
// accounts its own time, so that what remains of the wall time is the
// time the benchmark waited on the manager.
type harness struct {
	cluster *fakecluster.Cluster
	manager *managerProcess

	mu    sync.Mutex
	busy  time.Duration // time spent in the harness's own actions
	turns turnWaits     // where the waits on the manager went
}

// turnWaits splits the time a benchmark waited on the manager by what it
// waited for: per target its Jobs (after the clients of the
// target before finished, or after the create), its start (after its pods
// were ready), and per benchmark Completed after the last clients
// finished. Each includes up to one harness poll interval.
type turnWaits struct {
	jobs, start, completed []time.Duration
}

// waited records a wait on the manager under what it was for.
func (h *harness) waited(list *[]time.Duration, since time.Time) {
	h.mu.Lock()
	*list = append(*list, time.Since(since))
	h.mu.Unlock()
}

// timed runs one of the harness's own actions and accounts its time.
func (h *harness) timed(action func() error) error {
	began := time.Now()
	err := action()
	h.mu.Lock()
	h.busy += time.Since(began)
	h.mu.Unlock()
	return err
}

// clientLogs writes the logs of every client of a target.
func (h *harness) clientLogs(p *plan.Plan, start plan.StartRecord) ([]string, error) {
	logs := make([]string, p.Clients)
	for i := range logs {
		log, err := fakecluster.ClientLog(p, int32(i), start)
		if err != nil {
			return nil, err
		}
		logs[i] = log
	}
	return logs, nil
}

// drive runs one benchmark through: for each target in turn its Jobs,
// claims, ready pods, the start, the timetable passed, the pods finished
// with their logs; then it waits for Completed.
func (h *harness) drive(ctx context.Context, b *sbv1.StorageBenchmark, timeout time.Duration) error {
	c := h.cluster
	handedOver := time.Now() // the clients of the target before finished
	for _, t := range b.Spec.Targets {
		jobs, err := c.TargetJobs(ctx, b.Namespace, b.Name, t.Name, 1, int(b.Spec.Clients.Count), timeout)
		if err != nil {
			return fmt.Errorf("%s: %w", b.Name, err)
		}
		h.waited(&h.turns.jobs, handedOver)
		var pods []*corev1.Pod
		if err := h.timed(func() error {
			if err := c.BindClaims(ctx, b.Namespace, b.Name, t.Name); err != nil {
				return err
			}
			pods, err = c.StartPods(ctx, jobs)
			return err
		}); err != nil {
			return err
		}
		ready := time.Now()
		p, err := c.TargetPlan(ctx, b.Namespace, b.Name, t.Name, 1, timeout)
		if err != nil {
			return err
		}
		start, err := c.WaitForStart(ctx, b.Namespace, b.Name, t.Name, p, timeout)
		if err != nil {
			return fmt.Errorf("%s: %w", b.Name, err)
		}
		h.waited(&h.turns.start, ready)
		if err := h.timed(func() error {
			if err := h.manager.advanceTo(start.Start.Add(p.Duration() + time.Second)); err != nil {
				return err
			}
			logs, err := h.clientLogs(p, start)
			if err != nil {
				return err
			}
			for i, pod := range pods {
				if err := c.FinishPod(ctx, pod, logs[i]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		handedOver = time.Now()
	}
	got := &sbv1.StorageBenchmark{}
	if err := testenv.Poll(ctx, timeout, 20*time.Millisecond, func() error {
		if err := c.Client.Get(ctx, client.ObjectKeyFromObject(b), got); err != nil {
			return err
		}
		cond := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionCompleted)
		if cond == nil || cond.Status != metav1.ConditionTrue || cond.ObservedGeneration != got.Generation {
			return fmt.Errorf("%s not Completed: %v", b.Name, got.Status.Conditions)
		}
		return nil
	}); err != nil {
		return err
	}
	h.waited(&h.turns.completed, handedOver)
	if stalled := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionStalled); stalled != nil {
		return fmt.Errorf("%s completed but stalled: %s", b.Name, stalled.Message)
	}
	return nil
}
