package fakecluster

import (
	"bytes"
	"fmt"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/engine/result"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// SamplesFor makes a client's latency samples for a cell: different per
// client, cell and direction, so that a wrong merge shows.
func SamplesFor(client int32, cellIndex int, direction int) []int64 {
	n := 200 + int(client)*50 + cellIndex*30 + direction*10
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(20_000 + (i*7919)%50_000*(int(client)+1) + cellIndex*1000 + direction*3000)
	}
	return out
}

// ClientLog is the log of a client that ran its plan: a line of its own,
// then its framed report with one engine document per cell run.
func ClientLog(p *plan.Plan, client int32, start plan.StartRecord) (string, error) {
	report := &results.ClientReport{
		SchemaVersion: results.ClientReportSchema, Benchmark: p.Benchmark, Generation: p.Generation,
		Target: p.Target, Client: client, Node: "node-1", EngineVersion: "test", StartUnixNano: start.Start.UnixNano(),
	}
	cellIndex := 0
	for _, slot := range p.Slots {
		for _, cell := range slot.Cells {
			report.Runs = append(report.Runs, results.CellRun{
				Cell: cell.Name, Repetition: slot.Repetition,
				Document: EngineDocument(cell, client, cellIndex, start.Start.Add(time.Duration(slot.OffsetMilliseconds)*time.Millisecond)),
			})
			cellIndex++
		}
	}
	var buf bytes.Buffer
	buf.WriteString("I1129 client log line before the report\n")
	if err := results.WriteClientReport(&buf, report); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// EngineDocument is one cell's engine result on one client, from SamplesFor:
// 4 KiB IOs, one per sample, over one second. Besides what the merge reads
// it holds what the engine prints too (fio's percentile tables, latency
// distribution, queue-depth levels, job options, a time series), as a real
// client's document does: WriteClientReport, not the harness, decides what
// of it travels in the log.
func EngineDocument(cell sbv1.Cell, client int32, cellIndex int, start time.Time) *result.Document {
	job := result.Job{JobName: cell.Name, JobOptions: map[string]string{"name": cell.Name, "rw": "randrw", "bs": "4k", "iodepth": "32", "direct": "1"},
		IODepth: map[string]float64{"1": 0, "2": 0, "4": 0, "8": 0, "16": 0, "32": 100, ">=64": 0}, UsrCPU: 10, SysCPU: 30}
	job.LatencyNs, job.LatencyUs, job.LatencyMs = map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, k := range []string{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"} {
		job.LatencyNs[k], job.LatencyUs[k], job.LatencyMs[k] = 0, 10, 0
	}
	ext := result.JobExtension{JobName: cell.Name, Backend: "io_uring", StartUnixNano: start.UnixNano() + int64(client)*1000, EndUnixNano: start.Add(time.Second).UnixNano(),
		TimeSeries: []result.Interval{{OffsetMs: 1000, ReadIOs: 1, WriteIOs: 1, ReadBytes: 4096, WriteBytes: 4096, P99LatencyNs: 1000}}}
	percentiles := func(h *hist.Histogram) map[string]int64 {
		out := map[string]int64{}
		for _, p := range []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99} {
			out[fmt.Sprintf("%f", p)] = h.Percentile(p)
		}
		return out
	}
	fill := func(d *result.Direction, e *result.DirectionExtension, direction int) {
		h := hist.New()
		for _, s := range SamplesFor(client, cellIndex, direction) {
			h.Record(s)
		}
		n := h.Count()
		stats := result.LatencyStats{Min: h.Min(), Max: h.Max(), Mean: h.Mean(), Stddev: h.Stddev(), N: n, Percentile: percentiles(h)}
		*d = result.Direction{TotalIOs: n, IOBytes: n * 4096, BwBytes: n * 4096, IOPS: float64(n), ClatNs: stats, LatNs: stats,
			SlatNs: result.LatencyStats{Min: 1000, Max: 5000, Mean: 2000, N: n}}
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

// ExpectedDirection is what merging the clients' samples must give.
func ExpectedDirection(clients int32, cellIndex, direction int) (iops float64, p99 int64) {
	h := hist.New()
	for c := int32(0); c < clients; c++ {
		for _, s := range SamplesFor(c, cellIndex, direction) {
			h.Record(s)
		}
	}
	return float64(h.Count()), h.Percentile(99)
}

// ExpectedTotals is what merging the clients' samples of a cell's
// directions (reads and writes together) must give.
func ExpectedTotals(clients int32, cellIndex int, reads, writes bool) (iops float64, p99 int64) {
	h := hist.New()
	for c := int32(0); c < clients; c++ {
		for d, runs := range []bool{reads, writes} {
			if !runs {
				continue
			}
			for _, s := range SamplesFor(c, cellIndex, d) {
				h.Record(s)
			}
		}
	}
	return float64(h.Count()), h.Percentile(99)
}

// StepModel is what a modelled storage gives one client in a step cell:
// IOs in its one second, and the latency of every one of them.
type StepModel func(cell sbv1.Cell, clients int32) (ios int64, latencyNs int64)

// RoundLog is the framed report a client of a target with searches writes
// after a round (0: the plan's own slots, from SamplesFor as ClientLog's;
// later rounds: the round's step cells, from the model).
func RoundLog(p *plan.Plan, client, round int32, start time.Time, slots []plan.Slot, model StepModel) (string, error) {
	report := &results.ClientReport{
		SchemaVersion: results.ClientReportSchema, Benchmark: p.Benchmark, Generation: p.Generation,
		Target: p.Target, Client: client, Node: "node-1", EngineVersion: "test", StartUnixNano: start.UnixNano(), Round: round,
	}
	for k, slot := range slots {
		for _, cell := range slot.Cells {
			at := start.Add(time.Duration(slot.OffsetMilliseconds) * time.Millisecond)
			doc := EngineDocument(cell, client, k, at)
			if round > 0 {
				ios, latency := model(cell, p.Clients)
				doc = modelDocument(cell, client, at, ios, latency)
			}
			report.Runs = append(report.Runs, results.CellRun{Cell: cell.Name, Repetition: slot.Repetition, Document: doc})
		}
	}
	var buf bytes.Buffer
	if err := results.WriteClientReport(&buf, report); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// modelDocument is a one-second engine result of ios reads (or writes, for
// a write-only cell) that all took latencyNs.
func modelDocument(cell sbv1.Cell, client int32, start time.Time, ios, latencyNs int64) *result.Document {
	h := hist.New()
	for range ios {
		h.Record(latencyNs)
	}
	job := result.Job{JobName: cell.Name, UsrCPU: 10, SysCPU: 30}
	ext := result.JobExtension{JobName: cell.Name, Backend: "io_uring", StartUnixNano: start.UnixNano() + int64(client)*1000, EndUnixNano: start.Add(time.Second).UnixNano()}
	d, e := &job.Read, &ext.Read
	if !cell.Reads() {
		d, e = &job.Write, &ext.Write
	}
	*d = result.Direction{TotalIOs: ios, IOBytes: ios * 4096, BwBytes: ios * 4096, IOPS: float64(ios)}
	*e = result.DirectionExtension{Lat: h.Encode(), Clat: h.Encode()}
	return &result.Document{Jobs: []result.Job{job}, Storagebench: result.Extension{SchemaVersion: result.SchemaVersion, Jobs: []result.JobExtension{ext}}}
}
