package results

import (
	"math/rand/v2"
	"strings"
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/engine/result"
	"github.com/storagebench/storagebench/internal/plan"
)

func testPlan() *plan.Plan {
	spec := sbv1.StorageBenchmarkSpec{
		Repetitions: 1,
		Workloads: []sbv1.WorkloadGroup{{
			Name: "w", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 70},
			QueueDepths: []int32{8}, NumJobs: []int32{1}, DurationSeconds: 1,
		}},
	}
	return &plan.Plan{SchemaVersion: plan.SchemaVersion, Benchmark: "b", Generation: 1, Target: "fast", Clients: 2, Slots: plan.Slots(&spec, "")}
}

// fakeRun builds an engine document as the engine prints it: one job
// (group reporting), fio counters and the extension's histograms.
func fakeRun(cell string, start int64, read, write []int64, backend string) CellRun {
	direction := func(samples []int64) (result.Direction, result.DirectionExtension) {
		if len(samples) == 0 {
			return result.Direction{}, result.DirectionExtension{}
		}
		h := hist.New()
		for _, s := range samples {
			h.Record(s)
		}
		n := int64(len(samples))
		return result.Direction{TotalIOs: n, IOBytes: n * 4096, BwBytes: n * 4096, IOPS: float64(n)},
			result.DirectionExtension{Lat: h.Encode(), Clat: h.Encode()}
	}
	r, rext := direction(read)
	w, wext := direction(write)
	return CellRun{Cell: cell, Repetition: 1, Document: &result.Document{
		Jobs: []result.Job{{JobName: cell, Read: r, Write: w}},
		Storagebench: result.Extension{SchemaVersion: result.SchemaVersion, Jobs: []result.JobExtension{{
			JobName: cell, Backend: backend, StartUnixNano: start, EndUnixNano: start + 1e9, Read: rext, Write: wext,
		}}},
	}}
}

func samples(rng *rand.Rand, n int, scale float64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(rng.ExpFloat64()*scale) + 1000
	}
	return out
}

func TestMergeAddsRatesAndMergesHistogramsExactly(t *testing.T) {
	p := testPlan()
	rng := rand.New(rand.NewPCG(1, 2))
	var all0, all1read, all1write []int64
	reports := make([]*ClientReport, 2)
	for c := range reports {
		r0 := samples(rng, 3000+c*1000, 80_000*float64(c+1))
		r1 := samples(rng, 2000, 50_000)
		w1 := samples(rng, 900+c*100, 200_000)
		all0, all1read, all1write = append(all0, r0...), append(all1read, r1...), append(all1write, w1...)
		reports[c] = &ClientReport{
			SchemaVersion: ClientReportSchema, Benchmark: "b", Generation: 1, Target: "fast", Client: int32(c),
			Runs: []CellRun{
				fakeRun("w-bs4k-r100-qd8-j1", 1_000_000_000+int64(c)*3_000_000, r0, nil, "io_uring"),
				fakeRun("w-bs4k-r70-qd8-j1", 5_000_000_000, r1, w1, "io_uring"),
			},
		}
	}
	tr, err := Merge(p, reports)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Cells) != 2 {
		t.Fatalf("want 2 cells, got %d", len(tr.Cells))
	}
	check := func(name string, got *DirectionStats, want []int64) {
		t.Helper()
		h := hist.New()
		for _, s := range want {
			h.Record(s)
		}
		if got == nil {
			t.Fatalf("%s: missing", name)
		}
		if got.IOs != int64(len(want)) || got.IOPS != float64(len(want)) || got.Bytes != int64(len(want))*4096 {
			t.Errorf("%s: counts %d IOs %v IOPS, want %d", name, got.IOs, got.IOPS, len(want))
		}
		wantLat := LatencyNs{Min: h.Min(), Mean: h.Mean(), Max: h.Max(), P50: h.Percentile(50), P90: h.Percentile(90), P99: h.Percentile(99), P999: h.Percentile(99.9)}
		if got.LatencyNs != wantLat {
			t.Errorf("%s: merged latency %+v, want that of all samples %+v", name, got.LatencyNs, wantLat)
		}
		if got.LatencyHistogram != h.Encode() {
			t.Errorf("%s: merged histogram differs from the histogram of all samples", name)
		}
	}
	check("cell 0 read", tr.Cells[0].Result().Read, all0)
	check("cell 1 read", tr.Cells[1].Result().Read, all1read)
	check("cell 1 write", tr.Cells[1].Result().Write, all1write)
	if tr.Cells[0].Result().Write != nil {
		t.Errorf("a read-only cell has no write results")
	}
	if got := tr.Cells[0].Result().StartSkewMicroseconds; got != 3000 {
		t.Errorf("start skew %d µs, want 3000", got)
	}
	if tr.StartSkewMicroseconds != 3000 || tr.Cells[0].Result().Clients[1].StartOffsetMicroseconds != 3000 {
		t.Errorf("per-client start offsets not recorded: %+v", tr.Cells[0].Result().Clients)
	}
	if len(tr.Backends) != 1 || tr.Backends[0] != "io_uring" {
		t.Errorf("backends %v", tr.Backends)
	}
}

func TestMergeRejectsReportsThatDoNotFitThePlan(t *testing.T) {
	good := func(client int32) *ClientReport {
		return &ClientReport{SchemaVersion: ClientReportSchema, Generation: 1, Target: "fast", Client: client, Runs: []CellRun{
			fakeRun("w-bs4k-r100-qd8-j1", 1, []int64{1000}, nil, "psync"),
			fakeRun("w-bs4k-r70-qd8-j1", 1, []int64{1000}, []int64{2000}, "psync"),
		}}
	}
	cases := map[string]struct {
		reports []*ClientReport
		want    string
	}{
		"missing client":   {[]*ClientReport{good(0)}, "no report from client 1"},
		"duplicate client": {[]*ClientReport{good(0), good(0)}, "two reports from client 0"},
		"index out of range": {[]*ClientReport{good(0), func() *ClientReport { r := good(1); r.Client = 7; return r }()},
			"client index 7 outside 0..1"},
		"other target":     {[]*ClientReport{good(0), func() *ClientReport { r := good(1); r.Target = "slow"; return r }()}, `target "slow"`},
		"old generation":   {[]*ClientReport{good(0), func() *ClientReport { r := good(1); r.Generation = 0; return r }()}, "generation 0"},
		"client error":     {[]*ClientReport{good(0), func() *ClientReport { r := good(1); r.Error = "ENOSPC"; return r }()}, "client 1 failed: ENOSPC"},
		"missing cell run": {[]*ClientReport{good(0), func() *ClientReport { r := good(1); r.Runs = r.Runs[:1]; return r }()}, "client 1 has no result for cell w-bs4k-r70-qd8-j1"},
		"bad histogram": {[]*ClientReport{good(0), func() *ClientReport {
			r := good(1)
			r.Runs[0].Document.Storagebench.Jobs[0].Read.Lat = "garbage"
			return r
		}()}, "client 1, cell w-bs4k-r100-qd8-j1: job w-bs4k-r100-qd8-j1 read: lat histogram"},
		"negative counters": {[]*ClientReport{good(0), func() *ClientReport {
			r := good(1)
			r.Runs[0].Document.Jobs[0].Read.TotalIOs = -5
			return r
		}()}, "negative or non-finite"},
		"partial engine run": {[]*ClientReport{good(0), func() *ClientReport {
			r := good(1)
			r.Runs[1].Document.Storagebench.Partial = true
			r.Runs[1].Document.Storagebench.Error = "EIO"
			return r
		}()}, "engine run incomplete: EIO"},
		"nil report": {[]*ClientReport{good(0), nil}, "missing client report"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Merge(testPlan(), tc.reports)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestRepetitionsUseTheMedianAndReportTheSpread(t *testing.T) {
	c := CellResult{Repetitions: []RepetitionResult{
		{Repetition: 1, Read: &DirectionStats{IOPS: 1000}},
		{Repetition: 2, Read: &DirectionStats{IOPS: 1200}},
		{Repetition: 3, Read: &DirectionStats{IOPS: 900}},
	}}
	chooseMedian(&c)
	if c.Chosen != 0 {
		t.Fatalf("median repetition should be the 1000 IOPS one, got index %d", c.Chosen)
	}
	if c.SpreadPercent != 30 {
		t.Fatalf("spread (1200-900)/1000 = 30%%, got %v", c.SpreadPercent)
	}
}
