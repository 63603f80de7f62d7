package results

import (
	"github.com/storagebench/storagebench/engine/result"
)

// A client report is read by the manager for the merge alone, so it carries
// only what Merge uses of each engine document: fio's per-job counters and
// the storagebench extension (histograms, backend, times, rate). The rest
// of fio's layout (percentile tables, latency distributions, queue-depth
// levels, job options) is derived from the histograms and never read from a
// report: clients leave it out when writing, and the manager skips it when
// a client of an older build sent it. At 64 clients x 64 cells it was half
// of every report's bytes, and scanning and skipping it was most of the
// manager's CPU at the maxima. `storagebench engine` and the local runner
// keep whole documents. A field the merge starts to use must be added here.
type wireClientReport struct {
	ClientReport
	Runs []wireCellRun `json:"runs"`
}

type wireCellRun struct {
	CellRun
	Document *wireDocument `json:"document,omitempty"`
}

type wireDocument struct {
	Jobs         []wireJob        `json:"jobs"`
	Storagebench result.Extension `json:"storagebench"`
}

type wireJob struct {
	JobName    string        `json:"jobname"`
	Error      int           `json:"error"`
	JobRuntime int64         `json:"job_runtime"`
	UsrCPU     float64       `json:"usr_cpu"`
	SysCPU     float64       `json:"sys_cpu"`
	Read       wireDirection `json:"read"`
	Write      wireDirection `json:"write"`
}

type wireDirection struct {
	IOBytes  int64   `json:"io_bytes"`
	BwBytes  int64   `json:"bw_bytes"`
	IOPS     float64 `json:"iops"`
	TotalIOs int64   `json:"total_ios"`
}

func (d wireDirection) direction() result.Direction {
	return result.Direction{IOBytes: d.IOBytes, BwBytes: d.BwBytes, IOPS: d.IOPS, TotalIOs: d.TotalIOs}
}

// wireReport is the form of r that a client writes.
func wireReport(r *ClientReport) *wireClientReport {
	w := &wireClientReport{ClientReport: *r, Runs: make([]wireCellRun, len(r.Runs))}
	w.ClientReport.Runs = nil
	for i, run := range r.Runs {
		w.Runs[i] = wireCellRun{CellRun: run}
		w.Runs[i].CellRun.Document = nil
		if run.Document == nil {
			continue
		}
		doc := &wireDocument{Jobs: make([]wireJob, len(run.Document.Jobs)), Storagebench: run.Document.Storagebench}
		for k, j := range run.Document.Jobs {
			doc.Jobs[k] = wireJob{JobName: j.JobName, Error: j.Error, JobRuntime: j.JobRuntime, UsrCPU: j.UsrCPU, SysCPU: j.SysCPU,
				Read: wireCounters(j.Read), Write: wireCounters(j.Write)}
		}
		w.Runs[i].Document = doc
	}
	return w
}

func wireCounters(d result.Direction) wireDirection {
	return wireDirection{IOBytes: d.IOBytes, BwBytes: d.BwBytes, IOPS: d.IOPS, TotalIOs: d.TotalIOs}
}

// report converts the decoded wire form to a ClientReport whose documents
// hold the fields Merge reads.
func (w *wireClientReport) report() *ClientReport {
	r := w.ClientReport
	r.Runs = make([]CellRun, len(w.Runs))
	for i, run := range w.Runs {
		r.Runs[i] = run.CellRun
		if run.Document == nil {
			continue
		}
		doc := &result.Document{Jobs: make([]result.Job, len(run.Document.Jobs)), Storagebench: run.Document.Storagebench}
		for k, j := range run.Document.Jobs {
			doc.Jobs[k] = result.Job{JobName: j.JobName, Error: j.Error, JobRuntime: j.JobRuntime, UsrCPU: j.UsrCPU, SysCPU: j.SysCPU,
				Read: j.Read.direction(), Write: j.Write.direction()}
		}
		r.Runs[i].Document = doc
	}
	return &r
}
