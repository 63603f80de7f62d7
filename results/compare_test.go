package results

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
)

// seed000Spec is seed 000's benchmark: random 100 % writes at 64K, 8K and
// 4K, mirror against no mirror.
func seed000Spec() *sbv1.StorageBenchmarkSpec {
	return &sbv1.StorageBenchmarkSpec{
		Targets:  []sbv1.Target{{Name: "no-mirror"}, {Name: "mirror"}},
		Baseline: "no-mirror",
		Workloads: []sbv1.WorkloadGroup{{
			Name: "diskspd-write", BlockSizes: []sbv1.BlockSize{"64Ki", "8Ki", "4Ki"}, ReadPercents: []int32{0},
			QueueDepths: []int32{3}, NumJobs: []int32{8},
		}},
	}
}

// writeOnlyResult builds a target's results from published MB/s and
// average latency (ms), as the seed's table gives them.
func writeOnlyResult(spec *sbv1.StorageBenchmarkSpec, name string, mbps, latencyMs []float64) *TargetResult {
	tr := &TargetResult{Target: name}
	for i, cell := range spec.Cells() {
		tr.Cells = append(tr.Cells, CellResult{Cell: cell, Repetitions: []RepetitionResult{{Write: &DirectionStats{
			IOs: 1000, BytesPerSecond: mbps[i] * 1e6, IOPS: mbps[i] * 1e6 / float64(cell.BlockSizeBytes),
			LatencyNs: LatencyNs{Mean: latencyMs[i] * 1e6, P99: int64(latencyMs[i] * 2e6)},
		}}}})
	}
	return tr
}

func TestComparisonReproducesSeed000OverheadTable(t *testing.T) {
	spec := seed000Spec()
	results := map[string]*TargetResult{
		"no-mirror": writeOnlyResult(spec, "no-mirror", []float64{240.02, 96.8, 37.54}, []float64{6.248, 1.935, 2.495}),
		"mirror":    writeOnlyResult(spec, "mirror", []float64{240.01, 58.87, 29.34}, []float64{6.247, 3.183, 3.194}),
	}
	c := Compare(spec, results)
	if len(c.Cells) != 3 {
		t.Fatalf("cells: %+v", c.Cells)
	}
	// The published table: throughput overhead 0.00 / 39.18 / 21.84 %,
	// average-latency overhead -0.02 / 39.21 / 21.88 %.
	wantThroughput := []string{"0", "39.18", "21.84"}
	wantLatency := []string{"-0.02", "39.21", "21.88"}
	for i, cell := range c.Cells {
		if len(cell.VsBaseline) != 1 || cell.VsBaseline[0].Target != "mirror" {
			t.Fatalf("cell %s: %+v", cell.Cell, cell.VsBaseline)
		}
		d := cell.VsBaseline[0]
		if d.ThroughputOverheadPercent != wantThroughput[i] || d.LatencyOverheadPercent.Mean != wantLatency[i] {
			t.Errorf("cell %s: overhead throughput %s%% latency %s%%, published %s%% and %s%%",
				cell.Cell, d.ThroughputOverheadPercent, d.LatencyOverheadPercent.Mean, wantThroughput[i], wantLatency[i])
		}
	}
	if c.Cells[1].Best != "no-mirror" || strings.Join(c.Cells[1].ByIOPS, ",") != "no-mirror,mirror" ||
		strings.Join(c.Cells[1].ByLatencyP99, ",") != "no-mirror,mirror" {
		t.Errorf("8K ranking: %+v", c.Cells[1])
	}
	if c.Cells[1].VsBaseline[0].IOPSRatio != "0.608" {
		t.Errorf("8K IOPS ratio %s, want 58.87/96.8 = 0.608", c.Cells[1].VsBaseline[0].IOPSRatio)
	}
	var mirror sbv1.TargetSummary
	for _, s := range c.Targets {
		if s.Target == "mirror" {
			mirror = s
		}
	}
	// geomean(240.01/240.02, 58.87/96.8, 29.34/37.54) = 0.780; no-mirror is
	// faster in every cell, 64K included (240.02 against 240.01).
	if mirror.GeomeanIOPSRatio != "0.78" || mirror.BestCells != 0 {
		t.Errorf("mirror summary: %+v", mirror)
	}
}

func TestComparisonLatencyMergesReadsAndWrites(t *testing.T) {
	read, write := hist.New(), hist.New()
	for i := 0; i < 700; i++ {
		read.Record(100_000)
	}
	for i := 0; i < 300; i++ {
		write.Record(1_000_000)
	}
	rep := RepetitionResult{
		Read:  &DirectionStats{IOs: 700, IOPS: 700, LatencyHistogram: read.Encode()},
		Write: &DirectionStats{IOs: 300, IOPS: 300, LatencyHistogram: write.Encode()},
	}
	totals := rep.Totals()
	if totals.IOPS != 1000 || totals.Latency.P50 > 101_000 || totals.Latency.P90 < 990_000 {
		t.Fatalf("a 70/30 mix: p50 is a read's latency, p90 a write's: %+v", totals)
	}
}

func evalResults() (*sbv1.StorageBenchmarkSpec, map[string]*TargetResult) {
	spec := seed000Spec()
	spec.Targets[0].Price = &sbv1.Price{Amount: "85.00", Currency: "USD", Period: "Month"}
	spec.Targets[1].Price = &sbv1.Price{Amount: "170.00", Currency: "USD", Period: "Month"}
	return spec, map[string]*TargetResult{
		"no-mirror": writeOnlyResult(spec, "no-mirror", []float64{240.02, 96.8, 37.54}, []float64{6.248, 1.935, 2.495}),
		"mirror":    writeOnlyResult(spec, "mirror", []float64{240.01, 58.87, 29.34}, []float64{6.247, 3.183, 3.194}),
	}
}

func TestThresholdEvaluation(t *testing.T) {
	fourK := sbv1.BlockSize("4Ki")
	cases := map[string]struct {
		thresholds []sbv1.Threshold
		verdict    sbv1.Verdict
		violations []string // target/cell/metric/limit/measured
	}{
		"no thresholds pass": {nil, sbv1.VerdictPassed, nil},
		"min IOPS broken on 64K by both": {
			[]sbv1.Threshold{{Name: "iops", Workload: "diskspd-write", MinIOPS: ptr.To[int64](4000)}},
			sbv1.VerdictFailed,
			[]string{"no-mirror/diskspd-write-bs64k-r0-qd3-j8/totalIOPS/4000/3662.4", "mirror/diskspd-write-bs64k-r0-qd3-j8/totalIOPS/4000/3662.3"},
		},
		"max latency at p99 with a match": {
			[]sbv1.Threshold{{Name: "lat", Workload: "diskspd-write", Match: &sbv1.CellMatch{BlockSize: &fourK}, MaxLatency: &sbv1.LatencyLimit{Percentile: sbv1.PercentileP99, Microseconds: 6000}}},
			sbv1.VerdictFailed,
			[]string{"mirror/diskspd-write-bs4k-r0-qd3-j8/writeLatencyP99Microseconds/6000/6388"},
		},
		"regression only warns": {
			[]sbv1.Threshold{{Name: "reg", Workload: "diskspd-write", MaxRegression: &sbv1.Regression{Metric: sbv1.RegressionBytesPerSecond, Percent: 25}, Severity: sbv1.SeverityWarn}},
			sbv1.VerdictPassed,
			[]string{"mirror/diskspd-write-bs8k-r0-qd3-j8/bytesPerSecondRegressionPercent/25/39.18"},
		},
		"latency regression": {
			[]sbv1.Threshold{{Name: "latreg", Workload: "diskspd-write", Targets: []string{"mirror"}, MaxRegression: &sbv1.Regression{Metric: sbv1.RegressionLatency, Percentile: sbv1.PercentileP99, Percent: 50}}},
			sbv1.VerdictFailed,
			[]string{"mirror/diskspd-write-bs8k-r0-qd3-j8/latencyP99RegressionPercent/50/64.5"},
		},
		"bytes per second": {
			[]sbv1.Threshold{{Name: "bw", Workload: "diskspd-write", Match: &sbv1.CellMatch{BlockSize: ptr.To[sbv1.BlockSize]("64Ki")}, MinBytesPerSecond: ptr.To(resource.MustParse("240.015M"))}},
			sbv1.VerdictFailed,
			[]string{"mirror/diskspd-write-bs64k-r0-qd3-j8/totalBytesPerSecond/240015000/240010000"},
		},
		"a match that selects nothing is inconclusive": {
			[]sbv1.Threshold{{Name: "none", Workload: "diskspd-write", Match: &sbv1.CellMatch{QueueDepth: ptr.To[int32](64)}, MinIOPS: ptr.To[int64](1)}},
			sbv1.VerdictInconclusive, nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec, results := evalResults()
			spec.Thresholds = tc.thresholds
			ev := Evaluate(spec, results)
			if ev.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s (unevaluated %v)", ev.Verdict, tc.verdict, ev.Unevaluated)
			}
			var got []string
			for _, v := range ev.Violations {
				got = append(got, strings.Join([]string{v.Target, v.Cell, v.Metric, v.Limit, v.Measured}, "/"))
			}
			if strings.Join(got, "\n") != strings.Join(tc.violations, "\n") {
				t.Errorf("violations\n got %v\nwant %v", got, tc.violations)
			}
		})
	}
}

func TestRecommendation(t *testing.T) {
	spec, results := evalResults()
	ev := Evaluate(spec, results)
	r := Recommend(spec, results, ev)
	if r == nil || r.Target != "no-mirror" || !strings.Contains(r.Reason, "cheapest") || !strings.Contains(r.Reason, "85.00 USD per Month") {
		t.Fatalf("with prices the cheapest qualifying target wins: %+v", r)
	}
	// The cheaper one breaks a Fail threshold: the other is recommended.
	spec.Thresholds = []sbv1.Threshold{{Name: "t", Workload: "diskspd-write", Targets: []string{"no-mirror"}, MinIOPS: ptr.To[int64](1e9)}}
	ev = Evaluate(spec, results)
	if r := Recommend(spec, results, ev); r == nil || r.Target != "mirror" {
		t.Fatalf("want mirror, got %+v", r)
	}
	// The cheaper one breaks only a Warn threshold: it does not win on
	// price while the other breaks none.
	spec.Thresholds = []sbv1.Threshold{{Name: "t", Workload: "diskspd-write", Targets: []string{"no-mirror"}, MinIOPS: ptr.To[int64](1e9), Severity: sbv1.SeverityWarn}}
	ev = Evaluate(spec, results)
	if r := Recommend(spec, results, ev); ev.Verdict != sbv1.VerdictPassed || r == nil || r.Target != "mirror" || !strings.Contains(r.Reason, "meets every threshold") ||
		!strings.HasSuffix(r.Reason, "; left out for breaking a Warn threshold: no-mirror") {
		t.Fatalf("a warned target must not win on price: verdict %s, recommendation %+v", ev.Verdict, r)
	}
	// Both break a Warn threshold: the cheapest of them, and the reason
	// says that every target breaks one.
	spec.Thresholds[0].Targets = nil
	if r := Recommend(spec, results, Evaluate(spec, results)); r == nil || r.Target != "no-mirror" || !strings.Contains(r.Reason, "breaks only Warn thresholds (every target breaks one") {
		t.Fatalf("all warned: want the cheapest with the rule in the reason, got %+v", r)
	}
	// Without prices, the fastest.
	spec, results = evalResults()
	spec.Targets[0].Price, spec.Targets[1].Price = nil, nil
	if r := Recommend(spec, results, Evaluate(spec, results)); r == nil || r.Target != "no-mirror" || !strings.Contains(r.Reason, "fastest") {
		t.Fatalf("want the fastest, got %+v", r)
	}
	// Nobody qualifies.
	spec.Thresholds = []sbv1.Threshold{{Name: "t", Workload: "diskspd-write", MinIOPS: ptr.To[int64](1e9)}}
	if r := Recommend(spec, results, Evaluate(spec, results)); r != nil {
		t.Fatalf("no target meets the thresholds: %+v", r)
	}
}

func TestPricePerformance(t *testing.T) {
	spec, results := evalResults()
	c := Compare(spec, results)
	for _, s := range c.Targets {
		// Peak: 96.8 MB/s at 8K = 11816.4 IOPS, at 85 USD = 139.02 IOPS per USD.
		if s.Target == "no-mirror" && (s.IOPSPerPrice != "139.02" || s.PeakMiBPerSecond != "228.9") {
			t.Errorf("no-mirror: peak %s IOPS (%s MiB/s), per price %s", s.PeakIOPS, s.PeakMiBPerSecond, s.IOPSPerPrice)
		}
	}
}

// A group restricted to some targets is judged and compared where it ran:
// a threshold on it does not make the verdict Inconclusive for the targets
// it skips, and the comparison of its cells names only those that ran it.
func TestAGroupOnSomeTargetsIsJudgedWhereItRan(t *testing.T) {
	spec := seed000Spec()
	spec.Workloads = append(spec.Workloads, sbv1.WorkloadGroup{Name: "mirror-only", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{0},
		QueueDepths: []int32{1}, NumJobs: []int32{1}, Targets: []string{"mirror"}})
	all := spec.Cells()
	mirrorOnly := all[len(all)-1]
	results := map[string]*TargetResult{
		"no-mirror": writeOnlyResult(&sbv1.StorageBenchmarkSpec{Workloads: spec.Workloads[:1]}, "no-mirror", []float64{240.02, 96.8, 37.54}, []float64{6.248, 1.935, 2.495}),
		"mirror":    writeOnlyResult(spec, "mirror", []float64{240.01, 58.87, 29.34, 10}, []float64{6.247, 3.183, 3.194, 1}),
	}
	spec.Thresholds = []sbv1.Threshold{{Name: "only", Workload: "mirror-only", MinIOPS: ptr.To[int64](1e9)}}
	ev := Evaluate(spec, results)
	if ev.Verdict != sbv1.VerdictFailed || len(ev.Unevaluated) != 0 || len(ev.Violations) != 1 || ev.Violations[0].Target != "mirror" {
		t.Fatalf("verdict %s, unevaluated %v, violations %+v", ev.Verdict, ev.Unevaluated, ev.Violations)
	}
	c := Compare(spec, results)
	for _, cc := range c.Cells {
		if cc.Cell == mirrorOnly.Name && (len(cc.ByIOPS) != 1 || cc.ByIOPS[0] != "mirror" || len(cc.VsBaseline) != 0) {
			t.Errorf("the comparison of %s: %+v", cc.Cell, cc)
		}
	}
	// The fastest is judged over the cells both ran, not over unlike sets.
	spec.Thresholds = nil
	if r := Recommend(spec, results, Evaluate(spec, results)); r == nil || r.Target != "no-mirror" || !strings.Contains(r.Reason, "over the 3 IO cells every candidate ran") {
		t.Fatalf("recommendation %+v", r)
	}
}

// Speed is compared like with like: operations per second when only
// metadata cells are common, and each target's own cells, said so, when
// no cell ran on every candidate.
func TestTheRecommendationComparesLikeWithLike(t *testing.T) {
	md := func(name string, targets ...string) sbv1.WorkloadGroup {
		return sbv1.WorkloadGroup{Name: name, Kind: sbv1.WorkloadMetadata, Targets: targets,
			Metadata: &sbv1.MetadataWorkload{Operations: []sbv1.MetadataOperation{sbv1.MetadataStat}, FilesPerJob: 10}}
	}
	resultOf := func(spec *sbv1.StorageBenchmarkSpec, target string, ops float64) *TargetResult {
		tr := &TargetResult{Target: target}
		for i := range spec.Workloads {
			if !spec.Workloads[i].RunsOn(target) {
				continue
			}
			for _, cell := range spec.Workloads[i].Cells() {
				tr.Cells = append(tr.Cells, CellResult{Cell: cell, Repetitions: []RepetitionResult{{Read: &DirectionStats{IOs: 10, IOPS: ops}}}})
			}
		}
		return tr
	}
	spec := &sbv1.StorageBenchmarkSpec{Targets: []sbv1.Target{{Name: "a"}, {Name: "b"}}, Workloads: []sbv1.WorkloadGroup{md("files")}}
	results := map[string]*TargetResult{"a": resultOf(spec, "a", 100), "b": resultOf(spec, "b", 300)}
	if r := Recommend(spec, results, Evaluate(spec, results)); r == nil || r.Target != "b" || !strings.Contains(r.Reason, "300 operations per second over the 1 metadata cells every candidate ran") {
		t.Errorf("metadata only: %+v", r)
	}
	spec.Workloads = []sbv1.WorkloadGroup{md("on-a", "a"), md("on-b", "b")}
	results = map[string]*TargetResult{"a": resultOf(spec, "a", 100), "b": resultOf(spec, "b", 300)}
	if r := Recommend(spec, results, Evaluate(spec, results)); r == nil || r.Target != "b" || !strings.Contains(r.Reason, "over each candidate's own metadata cells (no cell ran on every candidate)") {
		t.Errorf("disjoint groups: %+v", r)
	}
}
