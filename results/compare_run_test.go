package results

import (
	"strings"
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestCompareRunsMatchesTargetsAndCellsByName(t *testing.T) {
	spec, now := evalResults()            // no-mirror 240.02, 96.8, 37.54 MB/s; mirror 240.01, 58.87, 29.34
	lat := []float64{6.248, 1.935, 2.495} // no-mirror's, now and then
	other := map[string]*TargetResult{
		// Last quarter no-mirror wrote half as fast at 64K and as fast
		// otherwise; the mirror target did not exist.
		"no-mirror": writeOnlyResult(spec, "no-mirror", []float64{120.01, 96.8, 37.54}, lat),
		"staging":   writeOnlyResult(spec, "staging", []float64{1, 1, 1}, lat),
	}
	// One cell the other run has and this one does not.
	other["no-mirror"].Cells = append(other["no-mirror"].Cells, CellResult{Cell: sbv1.Cell{Name: "diskspd-write-bs1m-r0-qd3-j8"},
		Repetitions: []RepetitionResult{{Write: &DirectionStats{IOs: 1, IOPS: 1, BytesPerSecond: 1}}}})
	rc := CompareRuns(spec, now, other, "file q3.json")

	if rc.Source != "file q3.json" || len(rc.Cells) != 3 {
		t.Fatalf("source %q, %d matched cells: %+v", rc.Source, len(rc.Cells), rc.Cells)
	}
	if d := rc.Cells[0].Delta; rc.Cells[0].Cell != "diskspd-write-bs64k-r0-qd3-j8" || d.Target != "no-mirror" || d.IOPSRatio != "2" || d.ThroughputOverheadPercent != "-100" {
		t.Errorf("64K cell: %+v, want twice the IOPS, a -100 %% overhead", rc.Cells[0])
	}
	if d := rc.Cells[1].Delta; d.IOPSRatio != "1" || d.LatencyRatio.P99 != "1" {
		t.Errorf("8K cell: %+v, want ratios of 1", rc.Cells[1])
	}
	if len(rc.Targets) != 2 || rc.Targets[0] != (sbv1.RunTargetComparison{Target: "no-mirror", MatchedCells: 3, GeomeanIOPSRatio: "1.26", GeomeanLatencyP99Ratio: "1"}) ||
		rc.Targets[1] != (sbv1.RunTargetComparison{Target: "mirror"}) {
		t.Errorf("targets %+v", rc.Targets)
	}
	got := strings.Join(rc.Unmatched, "\n")
	for _, want := range []string{"this run: mirror/diskspd-write-bs64k-r0-qd3-j8", "other run: no-mirror/diskspd-write-bs1m-r0-qd3-j8", "other run: staging/diskspd-write-bs4k-r0-qd3-j8"} {
		if !strings.Contains(got, want) {
			t.Errorf("unmatched lacks %q:\n%s", want, got)
		}
	}
	if n := len(rc.Unmatched); n != 3+1+3 {
		t.Errorf("%d unmatched, want the mirror's 3 cells, the other's extra cell and staging's 3", n)
	}
	if s := StatusRunComparison(rc); s.UnmatchedCells != 7 || len(s.Targets) != 2 {
		t.Errorf("status summary %+v", s)
	}
}
