package results

import (
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
)

func TestDecimal(t *testing.T) {
	for _, tc := range []struct {
		v      float64
		places int
		want   string
	}{
		{12801.349, 1, "12801.3"}, {8.5, 1, "8.5"}, {100, 2, "100"}, {0.004, 2, "0"}, {-0.001, 2, "0"},
		{39.1818, 2, "39.18"}, {1e6, 0, "1000000"},
	} {
		if got := Decimal(tc.v, tc.places); got != tc.want {
			t.Errorf("Decimal(%v, %d) = %q, want %q", tc.v, tc.places, got, tc.want)
		}
	}
}

func TestStatusCellsTakeTheChosenRepetitionsTotals(t *testing.T) {
	read := hist.New()
	write := hist.New()
	for i := int64(1); i <= 100; i++ {
		read.Record(i * 10_000)  // 10 µs .. 1 ms
		write.Record(i * 50_000) // 50 µs .. 5 ms
	}
	merged := hist.New()
	merged.Merge(read)
	merged.Merge(write)
	tr := &TargetResult{Cells: []CellResult{{
		Repetitions: []RepetitionResult{
			{Read: &DirectionStats{IOPS: 100}},
			{
				Read:  &DirectionStats{IOs: 100, IOPS: 2000.26, BytesPerSecond: 8193024.4, LatencyHistogram: read.Encode()},
				Write: &DirectionStats{IOs: 100, IOPS: 1000, BytesPerSecond: 4096000, LatencyHistogram: write.Encode()},
			},
		},
		Chosen: 1, SpreadPercent: 12.34,
	}}}
	tr.Cells[0].Cell.Name, tr.Cells[0].Cell.Workload = "w-bs4k-r50-qd8-j1", "w"
	cells := StatusCells(tr)
	if len(cells) != 1 {
		t.Fatalf("cells: %+v", cells)
	}
	c := cells[0]
	wantP99 := Decimal(float64(merged.Percentile(99))/1000, 2)
	if c.Name != "w-bs4k-r50-qd8-j1" || c.IOPS != "3000.3" || c.BytesPerSecond != 12289024 || c.P99Microseconds != wantP99 || c.SpreadPercent != "12.3" {
		t.Fatalf("summary %+v, want IOPS 3000.3, 12289024 B/s, p99 %s of reads and writes merged, spread 12.3", c, wantP99)
	}
}

func TestStatusComparisonKeepsTheBestPerCellAndTheTargetSummaries(t *testing.T) {
	full := &sbv1.Comparison{Baseline: "slow",
		Cells:   []sbv1.CellComparison{{Cell: "c1", Best: "fast", ByIOPS: []string{"fast", "slow"}, VsBaseline: []sbv1.BaselineDelta{{Target: "fast"}}}},
		Targets: []sbv1.TargetSummary{{Target: "fast", BestCells: 1}, {Target: "slow"}}}
	got := StatusComparison(full)
	if got.Baseline != "slow" || len(got.Cells) != 1 || got.Cells[0] != (sbv1.CellBest{Cell: "c1", Best: "fast"}) || len(got.Targets) != 2 {
		t.Fatalf("summary %+v", got)
	}
}
