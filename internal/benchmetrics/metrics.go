package benchmetrics

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// Every series of a run carries namespace, benchmark (the StorageBenchmark's
// name, or for a scheduled run its schedule's, so that a schedule's series
// continue from run to run) and kind (StorageBenchmark or
// StorageBenchmarkSchedule).
var (
	runLabels    = []string{"namespace", "benchmark", "kind"}
	targetLabels = append(append([]string(nil), runLabels...), "target")
	cellLabels   = append(append([]string(nil), targetLabels...), "workload", "cell", "direction")
)

var (
	cellIOPS = prometheus.NewDesc("storagebench_cell_iops",
		"IOs per second of one direction of a cell, summed over all clients (a Metadata cell: operations per second).", cellLabels, nil)
	cellBytes = prometheus.NewDesc("storagebench_cell_bytes_per_second",
		"Bytes per second of one direction of a cell, summed over all clients.", cellLabels, nil)
	cellLatency = prometheus.NewDesc("storagebench_cell_latency_seconds",
		"Latency of one direction of a cell at a percentile (50, 90, 99, 99.9, 100 = the slowest IO) of all clients' IOs, merged from their histograms, from each IO's intended start.",
		append(append([]string(nil), cellLabels...), "percentile"), nil)
	searchCapacity = prometheus.NewDesc("storagebench_search_capacity_iops",
		"IOs per second (reads and writes, all clients) a capacity search found within its latency bound; 0 when the bound held at no load.",
		append(append([]string(nil), targetLabels...), "workload", "search"), nil)
	searchLatency = prometheus.NewDesc("storagebench_search_latency_seconds",
		"Latency at the search's percentile, from each IO's intended start, at the capacity it found (absent when the bound held at no load).",
		append(append([]string(nil), targetLabels...), "workload", "search"), nil)
	targetBound = prometheus.NewDesc("storagebench_target_volumes_bound_seconds",
		"Time from requesting a target's volumes until all were bound.", targetLabels, nil)
	targetReady = prometheus.NewDesc("storagebench_target_clients_ready_seconds",
		"Time from requesting a target's volumes until every client had laid out its data.", targetLabels, nil)
	runDuration = prometheus.NewDesc("storagebench_run_duration_seconds",
		"Time from the run's start to its completion.", runLabels, nil)
	runCompletion = prometheus.NewDesc("storagebench_run_completion_timestamp_seconds",
		"When the run completed, in seconds since 1970.", runLabels, nil)
	runVerdict = prometheus.NewDesc("storagebench_run_verdict",
		"1 for the run's verdict (Passed, Failed, Inconclusive), 0 for the others; Failed for a run that failed to run.",
		append(append([]string(nil), runLabels...), "verdict"), nil)
	scheduleLastRun = prometheus.NewDesc("storagebench_schedule_last_run_timestamp_seconds",
		"Scheduled time of the newest run the schedule keeps, in seconds since 1970 (absent before its first run).", []string{"namespace", "schedule"}, nil)
	scheduleNext = prometheus.NewDesc("storagebench_schedule_next_run_timestamp_seconds",
		"When the schedule's next run is due, in seconds since 1970 (absent while suspended).", []string{"namespace", "schedule"}, nil)
	scheduleBehind = prometheus.NewDesc("storagebench_schedule_runs_behind",
		"Scheduled times since the schedule's newest run (or its creation) that have no run: held back, skipped past their deadline, or missed while the manager was down (0 while suspended; counted up to 1000).", []string{"namespace", "schedule"}, nil)
	scheduleSuspended = prometheus.NewDesc("storagebench_schedule_suspended",
		"1 when the schedule is suspended.", []string{"namespace", "schedule"}, nil)
	scheduleDrifted = prometheus.NewDesc("storagebench_schedule_drifted",
		"1 when the schedule's latest completed run broke a threshold that compares with earlier runs.", []string{"namespace", "schedule"}, nil)
)

var allDescs = []*prometheus.Desc{cellIOPS, cellBytes, cellLatency, searchCapacity, searchLatency, targetBound, targetReady, runDuration, runCompletion, runVerdict,
	scheduleLastRun, scheduleNext, scheduleBehind, scheduleSuspended, scheduleDrifted}

// percentiles exported per direction, with the LatencyNs field of each.
// The label is not "quantile": that one belongs to summaries, and these
// are gauges of exact merged percentiles.
var percentiles = []struct {
	label string
	of    func(results.LatencyNs) int64
}{
	{"50", func(l results.LatencyNs) int64 { return l.P50 }},
	{"90", func(l results.LatencyNs) int64 { return l.P90 }},
	{"99", func(l results.LatencyNs) int64 { return l.P99 }},
	{"99.9", func(l results.LatencyNs) int64 { return l.P999 }},
	{"100", func(l results.LatencyNs) int64 { return l.Max }},
}

var verdicts = []sbv1.Verdict{sbv1.VerdictPassed, sbv1.VerdictFailed, sbv1.VerdictInconclusive}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

// collectRun sends one completed run's series.
func (c *Collector) collectRun(ctx context.Context, ch chan<- prometheus.Metric, r run, seen map[types.UID]bool) {
	b := r.bench
	id := []string{b.Namespace, r.owner, r.kind}
	if b.Status.StartTime != nil {
		gauge(ch, runDuration, b.Status.CompletionTime.Sub(b.Status.StartTime.Time).Seconds(), id...)
	}
	gauge(ch, runCompletion, float64(b.Status.CompletionTime.Unix()), id...)
	verdict := b.Status.Verdict
	if verdict == "" {
		verdict = sbv1.VerdictFailed
	}
	for _, v := range verdicts {
		value := 0.0
		if v == verdict {
			value = 1
		}
		gauge(ch, runVerdict, value, append(id, string(v))...)
	}
	for _, t := range b.Status.Targets {
		tid := append(append([]string(nil), id...), t.Name)
		if t.VolumesBoundMilliseconds != nil {
			gauge(ch, targetBound, float64(*t.VolumesBoundMilliseconds)/1000, tid...)
		}
		if t.ClientsReadyMilliseconds != nil {
			gauge(ch, targetReady, float64(*t.ClientsReadyMilliseconds)/1000, tid...)
		}
		if t.State != sbv1.TargetSucceeded {
			continue
		}
		collectSearches(ch, tid, &b.Spec, t.Searches)
		tr, err := c.targetResults(ctx, b.Namespace, t.ResultsConfigMap, seen)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(cellIOPS, fmt.Errorf("reading the results of %s/%s, target %s, from configmap %s: %w", b.Namespace, b.Name, t.Name, t.ResultsConfigMap, err))
			continue
		}
		if tr != nil {
			collectCells(ch, tid, tr)
		}
	}
}

// collectCells sends a target's per-cell, per-direction series.
func collectCells(ch chan<- prometheus.Metric, tid []string, tr *results.TargetResult) {
	for i := range tr.Cells {
		cell := &tr.Cells[i]
		rep := cell.Result()
		if rep == nil {
			continue
		}
		for _, d := range []struct {
			name  string
			stats *results.DirectionStats
		}{{"read", rep.Read}, {"write", rep.Write}} {
			if d.stats == nil || d.stats.IOs == 0 {
				continue
			}
			labels := append(append([]string(nil), tid...), cell.Cell.Workload, cell.Cell.Name, d.name)
			gauge(ch, cellIOPS, d.stats.IOPS, labels...)
			gauge(ch, cellBytes, d.stats.BytesPerSecond, labels...)
			for _, q := range percentiles {
				gauge(ch, cellLatency, float64(q.of(d.stats.LatencyNs))/1e9, append(labels, q.label)...)
			}
		}
	}
}

// collectSearches sends a target's capacity answers, from status (its
// summary has what a gauge needs).
func collectSearches(ch chan<- prometheus.Metric, tid []string, spec *sbv1.StorageBenchmarkSpec, searches []sbv1.SearchSummary) {
	workloadOf := map[string]string{}
	for _, s := range spec.Searches() {
		workloadOf[s.Name] = s.Workload
	}
	for _, s := range searches {
		workload, ok := workloadOf[s.Search]
		capacity, err := strconv.ParseFloat(s.CapacityIOPS, 64)
		if !ok || err != nil {
			continue // not a search of this spec, or not a number: status written by hand
		}
		labels := append(append([]string(nil), tid...), workload, s.Search)
		gauge(ch, searchCapacity, capacity, labels...)
		if us, err := strconv.ParseFloat(s.LatencyMicroseconds, 64); err == nil && s.LatencyMicroseconds != "" {
			gauge(ch, searchLatency, us/1e6, labels...)
		}
	}
}

// maxRunsBehind bounds the count of scheduled times without a run.
const maxRunsBehind = 1000

// collectSchedule sends a schedule's own series.
func collectSchedule(ch chan<- prometheus.Metric, s *sbv1.StorageBenchmarkSchedule, now time.Time) {
	id := []string{s.Namespace, s.Name}
	suspended := s.Spec.Suspend != nil && *s.Spec.Suspend
	gauge(ch, scheduleSuspended, boolValue(suspended), id...)
	gauge(ch, scheduleDrifted, boolValue(latestCompletedDrifted(s)), id...)
	since := s.CreationTimestamp.Time
	if len(s.Status.Runs) > 0 {
		since = s.Status.Runs[0].ScheduledTime.Time
		gauge(ch, scheduleLastRun, float64(since.Unix()), id...)
	}
	if suspended {
		gauge(ch, scheduleBehind, 0, id...)
		return
	}
	if s.Status.NextScheduleTime != nil {
		gauge(ch, scheduleNext, float64(s.Status.NextScheduleTime.Unix()), id...)
	}
	sched, loc, err := s.Spec.ParseSchedule()
	if err != nil {
		return // invalid: the schedule's Stalled condition says why
	}
	behind := 0
	for t := sched.Next(since.In(loc)); !t.IsZero() && !t.After(now) && behind < maxRunsBehind; t = sched.Next(t) {
		behind++
	}
	gauge(ch, scheduleBehind, float64(behind), id...)
}

// latestCompletedDrifted reads the Drifted condition the schedule
// controller derived from its latest completed run.
func latestCompletedDrifted(s *sbv1.StorageBenchmarkSchedule) bool {
	for _, c := range s.Status.Conditions {
		if c.Type == sbv1.ConditionDrifted {
			return c.Status == "True" && c.ObservedGeneration == s.Generation
		}
	}
	return false
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// SeriesPerBenchmark is the most series one benchmark (or schedule) can
// export at the API's bounds, for docs/monitoring.md: per cell and
// direction IOPS, bytes/s and five percentiles; per target two timings; per
// run duration, completion and three verdicts.
const SeriesPerBenchmark = sbv1.MaxTargets*sbv1.MaxCells*2*(2+5) + sbv1.MaxTargets*2 + 2 + 3
