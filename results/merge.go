package results

import (
	"fmt"
	"math"
	"sort"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/engine/result"
	"github.com/storagebench/storagebench/internal/plan"
)

// Merge combines the reports of all clients of a target into its result.
// Counts and rates add up; latency distributions merge bucket by bucket, so
// percentiles are those of all IOs of all clients: nothing is averaged. The
// reports are untrusted input: anything inconsistent with the plan is an
// error naming the client and cell, never a panic.
func Merge(p *plan.Plan, reports []*ClientReport) (*TargetResult, error) {
	byClient, err := checkReports(p, reports)
	if err != nil {
		return nil, err
	}
	tr := &TargetResult{
		SchemaVersion: TargetResultSchema,
		Benchmark:     p.Benchmark,
		Namespace:     p.Namespace,
		Generation:    p.Generation,
		Target:        p.Target,
		Clients:       p.Clients,
	}
	backends := map[string]bool{}
	for i := int32(0); i < p.Clients; i++ {
		r := byClient[i]
		tr.ClientSummaries = append(tr.ClientSummaries, ClientSummary{
			Client: i, Node: r.Node, Pod: r.Pod,
			PrepareMilliseconds: r.PrepareMilliseconds, ClockOffsetMilliseconds: r.ClockOffsetMilliseconds,
		})
		tr.Timings.PrepareMilliseconds = max(tr.Timings.PrepareMilliseconds, r.PrepareMilliseconds)
		if tr.EngineVersion == "" {
			tr.EngineVersion = r.EngineVersion
		}
	}

	index := map[string]int{}
	m := &merger{}
	for _, slot := range p.Slots {
		for _, cell := range slot.Cells {
			rep, err := m.mergeRepetition(cell, slot.Repetition, p.Clients, byClient, backends)
			if err != nil {
				return nil, err
			}
			tr.StartSkewMicroseconds = max(tr.StartSkewMicroseconds, rep.StartSkewMicroseconds)
			i, seen := index[cell.Name]
			if !seen {
				i = len(tr.Cells)
				index[cell.Name] = i
				tr.Cells = append(tr.Cells, CellResult{Cell: cell})
			}
			tr.Cells[i].Repetitions = append(tr.Cells[i].Repetitions, *rep)
		}
	}
	for i := range tr.Cells {
		chooseMedian(&tr.Cells[i])
	}
	for b := range backends {
		tr.Backends = append(tr.Backends, b)
	}
	sort.Strings(tr.Backends)
	return tr, nil
}

// checkReports indexes the reports by client and rejects any that do not
// belong to this plan.
func checkReports(p *plan.Plan, reports []*ClientReport) (map[int32]*ClientReport, error) {
	byClient := map[int32]*ClientReport{}
	for _, r := range reports {
		if r == nil {
			return nil, fmt.Errorf("missing client report")
		}
		switch {
		case r.Target != p.Target:
			return nil, fmt.Errorf("client %d reported for target %q, not %q", r.Client, r.Target, p.Target)
		case r.Generation != p.Generation:
			return nil, fmt.Errorf("client %d reported for generation %d, not %d", r.Client, r.Generation, p.Generation)
		case r.Client < 0 || r.Client >= p.Clients:
			return nil, fmt.Errorf("client index %d outside 0..%d", r.Client, p.Clients-1)
		case byClient[r.Client] != nil:
			return nil, fmt.Errorf("two reports from client %d", r.Client)
		case r.Error != "":
			return nil, fmt.Errorf("client %d failed: %s", r.Client, r.Error)
		}
		byClient[r.Client] = r
	}
	for i := int32(0); i < p.Clients; i++ {
		if byClient[i] == nil {
			return nil, fmt.Errorf("no report from client %d", i)
		}
	}
	return byClient, nil
}

// mergeRepetition merges one cell run over all clients.
func (m *merger) mergeRepetition(cell sbv1.Cell, repetition, clients int32, byClient map[int32]*ClientReport, backends map[string]bool) (*RepetitionResult, error) {
	rep := &RepetitionResult{Repetition: repetition}
	read, write := &m.cell[0], &m.cell[1]
	read.reset()
	write.reset()
	m.series.reset()
	var starts []int64
	for i := int32(0); i < clients; i++ {
		run := findRun(byClient[i], cell.Name, repetition)
		if run == nil || run.Document == nil {
			return nil, fmt.Errorf("client %d has no result for cell %s repetition %d", i, cell.Name, repetition)
		}
		if run.Error != "" {
			return nil, fmt.Errorf("client %d failed cell %s: %s", i, cell.Name, run.Error)
		}
		cr, err := m.mergeClientRun(run.Document, read, write)
		if err != nil {
			return nil, fmt.Errorf("client %d, cell %s: %w", i, cell.Name, err)
		}
		cr.Client = i
		backends[cr.Backend] = true
		if cr.RateMet != nil {
			met := *cr.RateMet && (rep.RateMet == nil || *rep.RateMet)
			rep.RateMet = &met
		}
		starts = append(starts, cr.StartOffsetMicroseconds) // absolute start in µs for now
		rep.Clients = append(rep.Clients, *cr)
	}
	earliest := slicesMin(starts)
	for k := range rep.Clients {
		rep.Clients[k].StartOffsetMicroseconds -= earliest
		rep.StartSkewMicroseconds = max(rep.StartSkewMicroseconds, rep.Clients[k].StartOffsetMicroseconds)
	}
	rep.CPU = repetitionCPU(rep.Clients)
	rep.Series = m.series.series()
	if cell.Reads() {
		rep.Read = read.stats()
	}
	if cell.IsMetadata() && rep.Read != nil {
		overSpan(rep.Read, earliest, rep.Clients)
	}
	if cell.Writes() {
		rep.Write = write.stats()
	}
	return rep, nil
}

// overSpan turns a metadata cell's rates into all clients' operations over
// the time from the first client's start (startMicros) to the last one's
// end. A cell timed by count may last a millisecond, less than the clients'
// start skew: the sum of the clients' own rates would then count as shared
// time that they did not share.
func overSpan(d *DirectionStats, startMicros int64, clients []ClientResult) {
	var end int64
	for _, c := range clients {
		end = max(end, c.EndUnixNano)
	}
	span := float64(end/1000-startMicros) / 1e6
	if span <= 0 {
		return // the clients' clocks say nothing usable: keep the sum
	}
	d.IOPS = float64(d.IOs) / span
	d.BytesPerSecond = float64(d.Bytes) / span
}

func findRun(r *ClientReport, cell string, repetition int32) *CellRun {
	for i := range r.Runs {
		if r.Runs[i].Cell == cell && r.Runs[i].Repetition == repetition {
			return &r.Runs[i]
		}
	}
	return nil
}

// mergeClientRun adds one client's engine document into the cell's
// direction merges and returns the client's own share.
func (m *merger) mergeClientRun(doc *result.Document, read, write *directionMerge) (*ClientResult, error) {
	ext := doc.Storagebench
	if len(doc.Jobs) == 0 || len(ext.Jobs) != len(doc.Jobs) {
		return nil, fmt.Errorf("engine document has %d jobs and %d extension entries", len(doc.Jobs), len(ext.Jobs))
	}
	if ext.Partial {
		return nil, fmt.Errorf("engine run incomplete: %s", ext.Error)
	}
	cr := &ClientResult{StartOffsetMicroseconds: math.MaxInt64}
	var usr, sys float64
	own := &m.own
	own[0].reset()
	own[1].reset()
	for i := range doc.Jobs {
		job, jext := &doc.Jobs[i], &ext.Jobs[i]
		if job.Error != 0 {
			return nil, fmt.Errorf("job %s ended with error %d", job.JobName, job.Error)
		}
		u, s, err := jobCPU(job, jext)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", job.JobName, err)
		}
		usr, sys = usr+u, sys+s
		for d, pair := range [2]struct {
			fio *result.Direction
			ext *result.DirectionExtension
		}{{&job.Read, &jext.Read}, {&job.Write, &jext.Write}} {
			if err := own[d].add(pair.fio, pair.ext, m); err != nil {
				return nil, fmt.Errorf("job %s %s: %w", job.JobName, []string{"read", "write"}[d], err)
			}
		}
		m.series.add(jext)
		cr.StartOffsetMicroseconds = min(cr.StartOffsetMicroseconds, jext.StartUnixNano/1000)
		cr.EndUnixNano = max(cr.EndUnixNano, jext.EndUnixNano)
		cr.Backend = jext.Backend
		if jext.BackendReason != "" {
			cr.Backend = jext.Backend + " (" + jext.BackendReason + ")"
		}
		if jext.RateMet != nil {
			met := *jext.RateMet && (cr.RateMet == nil || *cr.RateMet)
			cr.RateMet = &met
		}
	}
	if own[0].ios > 0 {
		cr.Read = own[0].statsWithoutHistograms()
	}
	if own[1].ios > 0 {
		cr.Write = own[1].statsWithoutHistograms()
	}
	wall := float64(cr.EndUnixNano/1000-cr.StartOffsetMicroseconds) / 1e6
	cr.CPU = cpuUsage(usr, sys, wall, own[0].ios+own[1].ios)
	read.mergeFrom(&own[0])
	write.mergeFrom(&own[1])
	return cr, nil
}

func summarize(h *hist.Histogram) LatencyNs {
	if h.Count() == 0 {
		return LatencyNs{}
	}
	return LatencyNs{
		Min: h.Min(), Mean: h.Mean(), Max: h.Max(),
		P50: h.Percentile(50), P90: h.Percentile(90), P99: h.Percentile(99), P999: h.Percentile(99.9),
	}
}

// chooseMedian picks the repetition with the median total IOPS (the lower
// median for an even count) and records the spread.
func chooseMedian(c *CellResult) {
	n := len(c.Repetitions)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return c.Repetitions[order[a]].TotalIOPS() < c.Repetitions[order[b]].TotalIOPS()
	})
	c.Chosen = order[(n-1)/2]
	if n > 1 {
		median := c.Repetitions[c.Chosen].TotalIOPS()
		spread := c.Repetitions[order[n-1]].TotalIOPS() - c.Repetitions[order[0]].TotalIOPS()
		if median > 0 {
			c.SpreadPercent = spread / median * 100
		}
	}
}

func finiteNonNegative(v float64) bool { return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

func slicesMin(v []int64) int64 {
	m := int64(math.MaxInt64)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

// BackendList joins backends for display.
func BackendList(backends []string) string { return strings.Join(backends, ", ") }
