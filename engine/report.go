//go:build linux

package engine

import (
	"math"
	"os"
	"strconv"
	"time"

	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/engine/result"
	"github.com/storagebench/storagebench/internal/version"
)

// aggregate is the merged measurement of one reported entry: a clone, or
// with group_reporting every worker of the run. Histograms merge exactly.
type aggregate struct {
	name     string
	options  map[string]string
	dir      [2]dirStats
	sync     hist.Histogram
	series   []intervalPoint
	depth    [depthBuckets]int64
	usr, sys time.Duration
	ctx      int64
	minf     int64
	majf     int64
	// runtimeSum is the sum of the members' measured times (fio's
	// job_runtime of a group); runtime the longest (fio's per-direction
	// runtime).
	runtimeSum, runtime time.Duration
	startWall, endWall  time.Time
	startNano, endNano  int64
	workers             int
	// latencyJob and latencyDepth are the entry's job and its queue
	// depth: where a latency_target search ended, else the depth the job
	// ran at (the last clone's with group_reporting, as fio's, which
	// reports them for every job); steady is the entry's steady-state
	// window.
	latencyJob   *JobSpec
	latencyDepth int
	steady       *steadyUnit
}

// add merges one "job" (a clone: its lanes run in parallel, so their
// runtime is the longest lane's) into the aggregate.
func (a *aggregate) addClone(lanes []*worker) {
	var cloneRuntime time.Duration
	for _, w := range lanes {
		s := &w.stats
		for d := range a.dir {
			a.dir[d].slat.Merge(&s.dir[d].slat)
			a.dir[d].clat.Merge(&s.dir[d].clat)
			a.dir[d].lat.Merge(&s.dir[d].lat)
			a.dir[d].ios += s.dir[d].ios
			a.dir[d].bytes += s.dir[d].bytes
			a.dir[d].short += s.dir[d].short
		}
		a.sync.Merge(&s.sync)
		for i := range a.depth {
			a.depth[i] += s.depth[i]
		}
		usr, sys, ctx, minf, majf := s.cpu()
		a.usr += usr
		a.sys += sys
		a.ctx += ctx
		a.minf += minf
		a.majf += majf
		rt := time.Duration(s.end - s.start)
		cloneRuntime = max(cloneRuntime, rt)
		a.runtime = max(a.runtime, rt)
		if a.workers == 0 || s.startWall.Before(a.startWall) {
			a.startWall, a.startNano = s.startWall, s.start
		}
		if s.endWall.After(a.endWall) {
			a.endWall, a.endNano = s.endWall, s.end
		}
		a.workers++
		a.mergeSeries(s.series)
		a.latencyJob, a.latencyDepth = w.job, w.depth*w.lanes
		if w.latency != nil {
			a.latencyDepth = w.latency.depth
		}
		if w.steady != nil {
			a.steady = w.steady
		}
	}
	a.runtimeSum += cloneRuntime
}

// mergeSeries adds a worker's intervals index by index; all workers' intervals
// start at the same measurement start, so equal indexes cover equal times.
func (a *aggregate) mergeSeries(series []intervalPoint) {
	for i, p := range series {
		if i == len(a.series) {
			a.series = append(a.series, intervalPoint{endOffset: p.endOffset, lat: p.lat})
			a.series[i].ios, a.series[i].bytes = p.ios, p.bytes
			continue
		}
		q := &a.series[i]
		q.endOffset = max(q.endOffset, p.endOffset)
		for d := range q.ios {
			q.ios[d] += p.ios[d]
			q.bytes[d] += p.bytes[d]
		}
		h1, err1 := hist.Decode(q.lat)
		h2, err2 := hist.Decode(p.lat)
		if err1 == nil && err2 == nil {
			h1.Merge(h2)
			q.lat = h1.Encode()
		}
	}
}

// buildDocument turns the finished workers into fio's layout plus the
// extension.
func buildDocument(runs []*jobRun, opts RunOptions, startWall time.Time, targets []*target) *result.Document {
	doc := &result.Document{
		FioVersion:  "storagebench-" + version.Version,
		Timestamp:   startWall.Unix(),
		TimestampMs: startWall.UnixMilli(),
		Time:        startWall.Format("Mon Jan _2 15:04:05 2006"),
		Storagebench: result.Extension{
			SchemaVersion: result.SchemaVersion,
			EngineVersion: version.String(),
			Environment:   environment(targets),
		},
	}
	if len(opts.GlobalOptions) > 0 {
		doc.GlobalOptions = map[string]any{}
		for k, v := range opts.GlobalOptions {
			doc.GlobalOptions[k] = v
		}
	}
	type entry struct {
		agg  *aggregate
		run  *jobRun
		rate int
	}
	var entries []entry
	if opts.GroupReporting {
		a := &aggregate{name: runs[0].spec.Name, options: runs[0].spec.Options}
		rate := 0
		for _, r := range runs {
			for c := 0; c < r.spec.NumJobs; c++ {
				a.addClone(r.workers[c*r.lanes : (c+1)*r.lanes])
			}
			rate += r.spec.RateIOPS * r.spec.NumJobs
		}
		entries = append(entries, entry{a, runs[0], rate})
	} else {
		for _, r := range runs {
			for c := 0; c < r.spec.NumJobs; c++ {
				a := &aggregate{name: r.spec.Name, options: r.spec.Options}
				a.addClone(r.workers[c*r.lanes : (c+1)*r.lanes])
				entries = append(entries, entry{a, r, r.spec.RateIOPS})
			}
		}
	}
	for _, e := range entries {
		doc.Jobs = append(doc.Jobs, e.agg.fioJob(opts))
		doc.Storagebench.Jobs = append(doc.Storagebench.Jobs, e.agg.extension(e.run, e.rate, opts, len(runs) > 1 && opts.GroupReporting, runs))
	}
	return doc
}

// fioJob renders one entry in fio's layout.
func (a *aggregate) fioJob(opts RunOptions) result.Job {
	j := result.Job{
		JobName:    a.name,
		JobOptions: a.options,
		Elapsed:    int64(math.Round(a.endWall.Sub(a.startWall).Seconds())),
		JobRuntime: a.runtimeSum.Milliseconds(),
		Ctx:        a.ctx,
		MinF:       a.minf,
		MajF:       a.majf,
	}
	if a.runtimeSum > 0 {
		j.UsrCPU = 100 * a.usr.Seconds() / a.runtimeSum.Seconds()
		j.SysCPU = 100 * a.sys.Seconds() / a.runtimeSum.Seconds()
	}
	j.Read = a.direction(dirRead, opts)
	j.Write = a.direction(dirWrite, opts)
	j.Trim = result.Direction{SlatNs: emptyLat(), ClatNs: emptyLat(), LatNs: emptyLat()}
	j.Sync = result.SyncStats{TotalIOs: a.sync.Count(), LatNs: latencyStats(&a.sync, opts.PercentileList, false)}
	var total int64
	for _, c := range a.depth {
		total += c
	}
	j.IODepth = map[string]float64{}
	for i, key := range []string{"1", "2", "4", "8", "16", "32", ">=64"} {
		j.IODepth[key] = pct(a.depth[i], total)
	}
	var all hist.Histogram
	all.Merge(&a.dir[0].lat)
	all.Merge(&a.dir[1].lat)
	j.LatencyNs, j.LatencyUs, j.LatencyMs = latencyBuckets(&all)
	if lj := a.latencyJob; lj != nil {
		j.LatencyTarget = &result.LatencyTarget{Depth: a.latencyDepth, TargetNs: int64(lj.LatencyTarget),
			Percentile: lj.LatencyPercentile, WindowUs: lj.LatencyWindow.Microseconds()}
	}
	if a.steady != nil {
		j.SteadyState = a.steady.window.result()
	}
	return j
}

func pct(n, total int64) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}

func emptyLat() result.LatencyStats { return result.LatencyStats{} }

// direction renders one direction in fio's layout. Bandwidth and IOPS
// distributions (min, max, mean, stddev, samples) are over the time-series
// intervals, fio's equivalent being its 0.5 s bandwidth samples.
func (a *aggregate) direction(d int, opts RunOptions) result.Direction {
	s := &a.dir[d]
	out := result.Direction{
		IOBytes:  s.bytes,
		IOKBytes: s.bytes >> 10,
		TotalIOs: s.ios,
		ShortIOs: s.short,
		Runtime:  a.runtime.Milliseconds(),
		SlatNs:   latencyStats(&s.slat, nil, false),
		ClatNs:   latencyStats(&s.clat, opts.PercentileList, opts.OutputFormat == "json+"),
		LatNs:    latencyStats(&s.lat, opts.PercentileList, false),
	}
	if secs := a.runtime.Seconds(); secs > 0 && s.ios > 0 {
		out.IOPS = float64(s.ios) / secs
		out.BwBytes = int64(float64(s.bytes) / secs)
		out.Bw = out.BwBytes >> 10
	}
	var iops, bw []float64
	for i, p := range a.series {
		start := int64(0)
		if i > 0 {
			start = a.series[i-1].endOffset
		}
		dur := float64(p.endOffset-start) / 1e9
		// Skip a short last interval: its rate is noise.
		if dur <= 0 || (i == len(a.series)-1 && i > 0 && p.endOffset-start < int64(opts.Interval)/2) {
			continue
		}
		iops = append(iops, float64(p.ios[d])/dur)
		bw = append(bw, float64(p.bytes[d])/dur/1024)
	}
	if s.ios > 0 && len(iops) > 0 {
		mn, mx, mean, sd := summary(iops)
		out.IOPSMin, out.IOPSMax, out.IOPSMean, out.IOPSStddev, out.IOPSSamples = int64(mn), int64(mx), mean, sd, int64(len(iops))
		mn, mx, mean, sd = summary(bw)
		out.BwMin, out.BwMax, out.BwMean, out.BwDev, out.BwSamples = int64(mn), int64(mx), mean, sd, int64(len(bw))
	}
	return out
}

func summary(v []float64) (mn, mx, mean, sd float64) {
	mn, mx = v[0], v[0]
	for _, x := range v {
		mn, mx, mean = min(mn, x), max(mx, x), mean+x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	if len(v) > 1 {
		sd = math.Sqrt(sd / float64(len(v)-1))
	}
	return
}

// percentileKey formats a percentile as fio does ("99.000000").
func percentileKey(p float64) string { return strconv.FormatFloat(p, 'f', 6, 64) }

// latencyStats renders a histogram as fio's latency object; bins (json+)
// maps each non-empty bucket's value to its count.
func latencyStats(h *hist.Histogram, percentiles []float64, bins bool) result.LatencyStats {
	out := result.LatencyStats{Min: h.Min(), Max: h.Max(), Mean: h.Mean(), Stddev: h.Stddev(), N: h.Count()}
	if h.Count() > 0 && len(percentiles) > 0 {
		out.Percentile = map[string]int64{}
		for _, p := range percentiles {
			out.Percentile[percentileKey(p)] = h.Percentile(p)
		}
	}
	if bins && h.Count() > 0 {
		out.Bins = map[string]int64{}
		h.Bins(func(b hist.Bin) bool {
			out.Bins[strconv.FormatInt(b.Value, 10)] += b.Count
			return true
		})
	}
	return out
}

// latencyBuckets is fio's latency_ns/us/ms distribution: the percentage of
// IOs whose latency is below each key (and at or above the previous key).
func latencyBuckets(h *hist.Histogram) (ns, us, ms map[string]float64) {
	keys := []int64{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000}
	fill := func(unit int64, extra bool) map[string]float64 {
		m := map[string]float64{}
		lo := int64(0)
		if unit > 1 {
			lo = unit // values below one unit belong to the finer map
		}
		for _, k := range keys {
			m[strconv.FormatInt(k, 10)] = pct(h.CountBetween(lo, k*unit), h.Count())
			lo = k * unit
		}
		if extra {
			m["2000"] = pct(h.CountBetween(lo, 2000*unit), h.Count())
			m[">=2000"] = pct(h.CountBetween(2000*unit, math.MaxInt64), h.Count())
		}
		return m
	}
	return fill(1, false), fill(1000, false), fill(1000000, true)
}

// extension renders the storagebench object of one entry.
func (a *aggregate) extension(r *jobRun, rate int, opts RunOptions, merged bool, runs []*jobRun) result.JobExtension {
	ext := result.JobExtension{
		JobName:              a.name,
		Backend:              r.kind,
		BackendReason:        r.reason,
		StartUnixNano:        a.startWall.UnixNano(),
		EndUnixNano:          a.endWall.UnixNano(),
		UserCPUNanoseconds:   a.usr.Nanoseconds(),
		SystemCPUNanoseconds: a.sys.Nanoseconds(),
	}
	if merged {
		for _, o := range runs[1:] {
			if o.kind != r.kind {
				ext.Backend = "mixed"
				ext.BackendReason += "; job " + o.spec.Name + ": " + o.kind + " (" + o.reason + ")"
			}
		}
	}
	if len(r.workers) > 0 && r.workers[0].features != "" {
		ext.BackendReason += " [" + r.workers[0].features + "]"
	}
	if rate > 0 {
		ext.RateTargetIOPS = int64(rate)
		achieved := 0.0
		if secs := a.runtime.Seconds(); secs > 0 {
			achieved = float64(a.dir[0].ios+a.dir[1].ios+a.sync.Count()) / secs
		}
		met := achieved >= 0.98*float64(rate)
		ext.RateMet = &met
	}
	for d, de := range []*result.DirectionExtension{&ext.Read, &ext.Write} {
		if a.dir[d].ios > 0 {
			de.Clat = a.dir[d].clat.Encode()
			de.Lat = a.dir[d].lat.Encode()
		}
	}
	for _, p := range a.series {
		iv := result.Interval{OffsetMs: p.endOffset / 1e6, ReadIOs: p.ios[0], WriteIOs: p.ios[1], ReadBytes: p.bytes[0], WriteBytes: p.bytes[1]}
		if h, err := hist.Decode(p.lat); err == nil {
			iv.P99LatencyNs = h.Percentile(99)
			iv.LatencySumNs = int64(min(h.Sum(), math.MaxInt64))
		}
		ext.TimeSeries = append(ext.TimeSeries, iv)
	}
	return ext
}

// hostname is os.Hostname without the error.
func hostname() string {
	h, _ := os.Hostname()
	return h
}
