package clientrun

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

func smallBenchmark(clients int32, shared bool) *sbv1.StorageBenchmark {
	b := &sbv1.StorageBenchmark{}
	b.Name, b.Generation = "t", 1
	access := "ReadWriteOnce"
	if shared {
		access = "ReadWriteMany"
	}
	b.Spec = sbv1.StorageBenchmarkSpec{
		Targets: []sbv1.Target{{Name: "dir", AccessMode: sbv1AccessMode(access)}},
		Clients: sbv1.Clients{Count: clients, MaxClockOffsetMilliseconds: 500},
		Dataset: sbv1.Dataset{SizePerClient: "8Mi", FilesPerClient: 2, Fill: sbv1.FillIfMissing},
		Workloads: []sbv1.WorkloadGroup{
			{Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 50}, QueueDepths: []int32{4}, NumJobs: []int32{1}, DurationSeconds: 1},
			{Name: "writer", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{0, 0 + 10}, QueueDepths: []int32{1}, NumJobs: []int32{1}, DurationSeconds: 1, RateIOPS: ptr32(200), ConcurrentWith: "rand"},
		},
		Timeouts: sbv1.Timeouts{VolumeBindSeconds: 10, PrepareSeconds: 20},
	}
	return b
}

func ptr32(v int32) *int32 { return &v }

// runClients runs every client of the plan in-process, as the local runner
// does, and merges their reports.
func runClients(t *testing.T, p *plan.Plan) (*results.TargetResult, []*results.ClientReport) {
	t.Helper()
	barrier := NewBarrier(int(p.Clients), 300*time.Millisecond)
	reports := make([]*results.ClientReport, p.Clients)
	var wg sync.WaitGroup
	var log strings.Builder
	var logMu sync.Mutex
	for i := int32(0); i < p.Clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Client{Plan: p, Index: i, Signal: barrier, Ready: barrier.Ready, Log: &lockedWriter{w: &log, mu: &logMu}}
			reports[i] = c.Run(context.Background())
		}()
	}
	wg.Wait()
	for _, r := range reports {
		if r.Error != "" {
			t.Fatalf("client %d failed: %s\nlog:\n%s", r.Client, r.Error, log.String())
		}
	}
	tr, err := results.Merge(p, reports)
	if err != nil {
		t.Fatal(err)
	}
	return tr, reports
}

type lockedWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func TestClientsRunThePlanTogetherAndTheirReportsMerge(t *testing.T) {
	b := smallBenchmark(2, true)
	p := plan.Build(b, &b.Spec.Targets[0], t.TempDir())
	if len(p.Slots) != 2 || len(p.Slots[0].Cells) != 2 {
		t.Fatalf("concurrent workloads should share slots: %+v", p.Slots)
	}
	began := time.Now()
	tr, reports := runClients(t, p)
	elapsed := time.Since(began)

	// Two slots of 1 s each with a gap between them: the timetable, not the
	// clients' speed, decides the run's length.
	if min := p.Duration(); elapsed < min {
		t.Fatalf("run took %s, shorter than its timetable %s", elapsed, min)
	}
	if len(tr.Cells) != 4 {
		t.Fatalf("want 4 cells (2 rand + 2 writer), got %d", len(tr.Cells))
	}
	for _, c := range tr.Cells {
		rep := c.Result()
		if c.Cell.Reads() && (rep.Read == nil || rep.Read.IOs == 0) {
			t.Errorf("cell %s: no reads measured", c.Cell.Name)
		}
		if c.Cell.Writes() && (rep.Write == nil || rep.Write.IOs == 0) {
			t.Errorf("cell %s: no writes measured", c.Cell.Name)
		}
		if len(rep.Clients) != 2 {
			t.Errorf("cell %s: %d client results, want 2", c.Cell.Name, len(rep.Clients))
		}
		// Clients share one clock here: they must start within a few ms.
		if rep.StartSkewMicroseconds > 50_000 {
			t.Errorf("cell %s: start skew %d µs", c.Cell.Name, rep.StartSkewMicroseconds)
		}
	}
	for _, r := range reports {
		if r.PrepareMilliseconds <= 0 && r.StartUnixNano == 0 {
			t.Errorf("client %d did not record its preparation and start", r.Client)
		}
	}
	for _, c := range tr.Cells {
		if c.Cell.Workload == "writer" && c.Result().RateMet == nil {
			t.Errorf("rate-limited cell %s does not record whether its rate was met", c.Cell.Name)
		}
	}
}

func TestClientReportsAnUnusableDataPath(t *testing.T) {
	b := smallBenchmark(1, false)
	p := plan.Build(b, &b.Spec.Targets[0], "/proc/storagebench-cannot-write-here")
	c := &Client{Plan: p, Signal: NewBarrier(1, 0)}
	r := c.Run(context.Background())
	if r.Error == "" || !strings.Contains(r.Error, "/proc/storagebench-cannot-write-here") {
		t.Fatalf("want an error naming the path, got %q", r.Error)
	}
}

// A blockSizeRange admission accepts runs: sizes step by its alignment, so
// a minimum that is not a power of two still gives O_DIRECT-aligned IOs.
func TestABlockSizeRangeThatAdmissionAcceptsRuns(t *testing.T) {
	b := smallBenchmark(1, false)
	align := sbv1.BlockSize("4Ki")
	b.Spec.Workloads = []sbv1.WorkloadGroup{{Name: "range", BlockSizeRange: &sbv1.BlockSizeRange{Min: "12Ki", Max: "64Ki", Alignment: &align},
		ReadPercents: []int32{100}, QueueDepths: []int32{4}, NumJobs: []int32{1}, DurationSeconds: 1, Direct: ptrBool(true)}}
	if errs := b.Spec.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	tr, _ := runClients(t, plan.Build(b, &b.Spec.Targets[0], t.TempDir()))
	if r := tr.Cells[0].Result().Read; r == nil || r.IOs == 0 || r.Bytes%4096 != 0 {
		t.Fatalf("reads %+v", r)
	}
}

func ptrBool(v bool) *bool { return &v }
