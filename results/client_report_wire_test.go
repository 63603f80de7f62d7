package results

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/storagebench/storagebench/engine/result"
)

// The manager decodes a report's documents partly; what it merges must be
// what merging the whole documents gives.
func TestAReportReadFromALogMergesAsTheWholeReport(t *testing.T) {
	p := testPlan()
	rng := rand.New(rand.NewPCG(3, 4))
	var whole, read []*ClientReport
	for client := int32(0); client < p.Clients; client++ {
		r := &ClientReport{SchemaVersion: ClientReportSchema, Benchmark: "b", Generation: 1, Target: "fast", Client: client, EngineVersion: "test"}
		for i, cell := range []string{"w-bs4k-r100-qd8-j1", "w-bs4k-r70-qd8-j1"} {
			var writes []int64
			if i == 1 {
				writes = samples(rng, 300, 40_000)
			}
			run := fakeRun(cell, int64(1e15)+int64(client)*1000, samples(rng, 500, 20_000), writes, "io_uring")
			// What the engine prints besides: fio's tables, job options,
			// time series, rusage.
			job := &run.Document.Jobs[0]
			job.JobOptions = map[string]string{"rw": "randrw", "bs": "4k"}
			job.IODepth = map[string]float64{"8": 100}
			job.LatencyUs = map[string]float64{"50": 40, "100": 60}
			job.UsrCPU, job.SysCPU = 12.5, 30.25
			job.Read.ClatNs.Percentile = map[string]int64{"99.000000": 123456}
			run.Document.Storagebench.Jobs[0].TimeSeries = []result.Interval{{OffsetMs: 1000, ReadIOs: 500}}
			r.Runs = append(r.Runs, run)
		}
		whole = append(whole, r)
		var log bytes.Buffer
		if err := WriteClientReport(&log, r); err != nil {
			t.Fatal(err)
		}
		back, err := ReadClientReport(&log, MaxReportBytes)
		if err != nil {
			t.Fatal(err)
		}
		read = append(read, back)
	}
	want, err := Merge(p, whole)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Merge(p, read)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merging reports read from logs differs from merging the whole reports:\ngot  %+v\nwant %+v", got.Cells, want.Cells)
	}
}
