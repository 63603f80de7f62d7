package results

import (
	"github.com/storagebench/storagebench/engine/result"
)

// The manager reads a client report for the merge alone, so it decodes
// only what Merge uses of each engine document: fio's per-job counters and
// the storagebench extension (histograms, backend, times, rate). The rest
// of fio's layout (percentile tables, latency distributions, queue-depth
// levels, job options) is skipped while decoding instead of being built:
// at 64 clients x 64 cells the documents' maps and lists were most of what
// reading the reports allocated. `storagebench engine` and the local runner
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
	JobName string        `json:"jobname"`
	Error   int           `json:"error"`
	Read    wireDirection `json:"read"`
	Write   wireDirection `json:"write"`
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
			doc.Jobs[k] = result.Job{JobName: j.JobName, Error: j.Error, Read: j.Read.direction(), Write: j.Write.direction()}
		}
		r.Runs[i].Document = doc
	}
	return &r
}
