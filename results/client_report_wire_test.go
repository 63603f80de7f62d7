package results

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/storagebench/storagebench/engine/result"
)

// reportWithFioTables is a client report whose documents hold what the
// engine prints besides what the merge reads: fio's tables, job options,
// time series, rusage.
func reportWithFioTables(client int32, rng *rand.Rand) *ClientReport {
	r := &ClientReport{SchemaVersion: ClientReportSchema, Benchmark: "b", Generation: 1, Target: "fast", Client: client, EngineVersion: "test"}
	for i, cell := range []string{"w-bs4k-r100-qd8-j1", "w-bs4k-r70-qd8-j1"} {
		var writes []int64
		if i == 1 {
			writes = samples(rng, 300, 40_000)
		}
		run := fakeRun(cell, int64(1e15)+int64(client)*1000, samples(rng, 500, 20_000), writes, "io_uring")
		job := &run.Document.Jobs[0]
		job.JobOptions = map[string]string{"rw": "randrw", "bs": "4k"}
		job.IODepth = map[string]float64{"8": 100}
		job.LatencyUs = map[string]float64{"50": 40, "100": 60}
		job.UsrCPU, job.SysCPU = 12.5, 30.25
		job.Read.ClatNs.Percentile = map[string]int64{"99.000000": 123456}
		run.Document.Storagebench.Jobs[0].TimeSeries = []result.Interval{{OffsetMs: 1000, ReadIOs: 500}}
		r.Runs = append(r.Runs, run)
	}
	return r
}

// The manager reads what the merge uses of a report's documents; what it
// merges must be what merging the whole documents gives, whether the client
// wrote the report as clients do now (without fio's tables) or whole (as
// clients of earlier builds did).
func TestAReportReadFromALogMergesAsTheWholeReport(t *testing.T) {
	p := testPlan()
	writers := map[string]func(*bytes.Buffer, *ClientReport) error{
		"as written now": func(log *bytes.Buffer, r *ClientReport) error { return WriteClientReport(log, r) },
		"whole": func(log *bytes.Buffer, r *ClientReport) error {
			body, err := json.Marshal(r)
			if err != nil {
				return err
			}
			return writeFrame(log, body)
		},
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			var whole, read []*ClientReport
			for client := int32(0); client < p.Clients; client++ {
				r := reportWithFioTables(client, rng)
				whole = append(whole, r)
				var log bytes.Buffer
				if err := write(&log, r); err != nil {
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
		})
	}
}

// What nobody reads of a report does not travel through the pod log.
func TestAWrittenReportLeavesFiosTablesOut(t *testing.T) {
	r := reportWithFioTables(0, rand.New(rand.NewPCG(5, 6)))
	var log bytes.Buffer
	if err := WriteClientReport(&log, r); err != nil {
		t.Fatal(err)
	}
	body, _, err := lastFrame(&log, &frameBuffers{})
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"job options"`, `"iodepth_level"`, `"latency_us"`, `"clat_ns"`} {
		if bytes.Contains(body, []byte(field)) {
			t.Errorf("the written report holds %s, which the merge does not read", field)
		}
	}
	for _, field := range []string{`"total_ios"`, `"io_bytes"`, `"clat":`, `"timeSeries"`, `"backend"`, `"usr_cpu"`, `"sys_cpu"`, `"job_runtime"`} {
		if !bytes.Contains(body, []byte(field)) {
			t.Errorf("the written report lacks %s, which the merge reads", field)
		}
	}
}
