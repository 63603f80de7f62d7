package results

import (
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// runOf is an earlier run whose two targets wrote at the given MB/s in
// seed 000's three cells.
func runOf(spec *sbv1.StorageBenchmarkSpec, name string, minute int, noMirror, mirror []float64) EarlierRun {
	lat := []float64{1, 1, 1}
	return EarlierRun{Name: name, Time: time.Date(2026, 12, 1, 0, minute, 0, 0, time.UTC), Targets: map[string]*TargetResult{
		"no-mirror": writeOnlyResult(spec, "no-mirror", noMirror, lat),
		"mirror":    writeOnlyResult(spec, "mirror", mirror, lat),
	}}
}

func violationLines(vs []sbv1.Violation) string {
	var out []string
	for _, v := range vs {
		out = append(out, strings.Join([]string{v.Target, v.Cell, v.Metric, v.Limit, v.Measured, v.ReferenceValue, v.Value}, "/"))
	}
	return strings.Join(out, "\n")
}

func TestDriftComparesEveryTargetWithItsOwnPast(t *testing.T) {
	spec, now := evalResults() // no-mirror 240.02, 96.8, 37.54 MB/s; mirror 240.01, 58.87, 29.34
	spec.Thresholds = []sbv1.Threshold{{Name: "drift", Workload: "diskspd-write",
		MaxRegression: &sbv1.Regression{Against: sbv1.AgainstPrevious, Metric: sbv1.RegressionBytesPerSecond, Percent: 10}}}
	history := []EarlierRun{
		// The older run was much faster: Previous ignores it.
		runOf(spec, "r1", 1, []float64{480, 200, 80}, []float64{480, 200, 80}),
		// The mirror wrote 8K at 70 MB/s last time: 58.87 is 15.9 % less.
		runOf(spec, "r2", 2, []float64{240, 96, 37}, []float64{240, 70, 29}),
	}
	ev := EvaluateWithHistory(spec, now, history)
	want := "mirror/diskspd-write-bs8k-r0-qd3-j8/bytesPerSecondRegressionPercent/10/15.9/70000000/58870000"
	if got := violationLines(ev.Violations); got != want {
		t.Errorf("violations\n got %s\nwant %s", got, want)
	}
	if ev.Verdict != sbv1.VerdictFailed || len(ev.Warnings) != 0 {
		t.Errorf("verdict %s, warnings %v: want Failed and none", ev.Verdict, ev.Warnings)
	}
}

func TestDriftAgainstTheMedianOfTheLastRuns(t *testing.T) {
	spec, now := evalResults()
	spec.Thresholds = []sbv1.Threshold{{Name: "drift", Workload: "diskspd-write", Targets: []string{"no-mirror"},
		Match:         &sbv1.CellMatch{BlockSize: ptr.To[sbv1.BlockSize]("4Ki")},
		MaxRegression: &sbv1.Regression{Against: sbv1.AgainstMedianOfLast, Runs: ptr.To[int32](4), Metric: sbv1.RegressionBytesPerSecond, Percent: 5}}}
	other := []float64{1, 1, 1}
	history := []EarlierRun{
		runOf(spec, "r1", 1, []float64{1, 1, 1000}, other), // beyond the last 4: ignored
		runOf(spec, "r2", 2, []float64{1, 1, 40}, other),
		runOf(spec, "r3", 3, []float64{1, 1, 30}, other),
		runOf(spec, "r4", 4, []float64{1, 1, 44}, other),
		runOf(spec, "r5", 5, []float64{1, 1, 42}, other),
	}
	// The median of 40, 30, 44, 42 is 41; 37.54 is 8.44 % below it.
	ev := EvaluateWithHistory(spec, now, history)
	want := "no-mirror/diskspd-write-bs4k-r0-qd3-j8/bytesPerSecondRegressionPercent/5/8.44/41000000/37540000"
	if got := violationLines(ev.Violations); got != want {
		t.Errorf("violations\n got %s\nwant %s", got, want)
	}
}

func TestDriftWithoutHistoryWarnsAndDoesNotJudge(t *testing.T) {
	spec, now := evalResults()
	spec.Thresholds = []sbv1.Threshold{{Name: "drift", Workload: "diskspd-write",
		MaxRegression: &sbv1.Regression{Against: sbv1.AgainstPrevious, Percent: 1}}}
	ev := EvaluateWithHistory(spec, now, nil)
	if ev.Verdict != sbv1.VerdictPassed || len(ev.Violations) != 0 {
		t.Fatalf("verdict %s, violations %v: the first run of a schedule has nothing to drift from", ev.Verdict, ev.Violations)
	}
	if len(ev.Warnings) != 1 || ev.Warnings[0].Reason != WarnNoHistory || !strings.Contains(ev.Warnings[0].Message, "drift") {
		t.Fatalf("warnings %v, want one NoHistory naming the threshold", ev.Warnings)
	}

	// An earlier run without the mirror's results judges the other target
	// and says which pairs it could not.
	past := runOf(spec, "r1", 1, []float64{240, 96, 37}, []float64{1, 1, 1})
	delete(past.Targets, "mirror")
	ev = EvaluateWithHistory(spec, now, []EarlierRun{past})
	if len(ev.Warnings) != 1 || !strings.Contains(ev.Warnings[0].Message, "3 target/cell pair(s)") || !strings.Contains(ev.Warnings[0].Message, "mirror/") {
		t.Fatalf("warnings %v, want one naming the 3 mirror cells with no past", ev.Warnings)
	}
	if ev.Verdict != sbv1.VerdictPassed {
		t.Errorf("verdict %s: no-mirror did not drift", ev.Verdict)
	}
}

func TestLatencyDriftIsInMicroseconds(t *testing.T) {
	spec, now := evalResults() // p99 is twice the mean latency: 6.248 ms -> 12496 us at 64K on no-mirror
	spec.Thresholds = []sbv1.Threshold{{Name: "lat", Workload: "diskspd-write", Targets: []string{"no-mirror"},
		Match:         &sbv1.CellMatch{BlockSize: ptr.To[sbv1.BlockSize]("64Ki")},
		MaxRegression: &sbv1.Regression{Against: sbv1.AgainstPrevious, Metric: sbv1.RegressionLatency, Percentile: sbv1.PercentileP99, Percent: 20}}}
	past := EarlierRun{Name: "r1", Targets: map[string]*TargetResult{
		"no-mirror": writeOnlyResult(spec, "no-mirror", []float64{240, 96, 37}, []float64{5, 1, 1}), // p99 10000 us
	}}
	ev := EvaluateWithHistory(spec, now, []EarlierRun{past})
	want := "no-mirror/diskspd-write-bs64k-r0-qd3-j8/latencyP99RegressionPercent/20/24.96/10000/12496"
	if got := violationLines(ev.Violations); got != want {
		t.Errorf("violations\n got %s\nwant %s", got, want)
	}
}

func TestMedianOfAnEvenCountIsTheMidpoint(t *testing.T) {
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median = %v, want 2.5", got)
	}
	if got := median([]float64{7}); got != 7 {
		t.Errorf("median = %v, want 7", got)
	}
}

// A threshold's absolute limits are judged even when its maxRegression has
// no past to compare with.
func TestADriftThresholdWithoutHistoryStillJudgesItsOtherLimits(t *testing.T) {
	spec, now := evalResults()
	spec.Thresholds = []sbv1.Threshold{{Name: "both", Workload: "diskspd-write", MinIOPS: ptr.To[int64](1_000_000),
		MaxRegression: &sbv1.Regression{Against: sbv1.AgainstPrevious, Percent: 1}}}
	for name, history := range map[string][]EarlierRun{
		"no history":           nil,
		"no past for the cell": {{Name: "r0", Targets: map[string]*TargetResult{}}},
	} {
		ev := EvaluateWithHistory(spec, now, history)
		if ev.Verdict != sbv1.VerdictFailed || len(ev.Violations) != 6 || len(ev.Warnings) != 1 || ev.Warnings[0].Reason != WarnNoHistory {
			t.Errorf("%s: verdict %s, %d violations, warnings %v: want minIOPS broken on 2 targets x 3 cells and one NoHistory", name, ev.Verdict, len(ev.Violations), ev.Warnings)
		}
	}
}
