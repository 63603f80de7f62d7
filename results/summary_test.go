package results

import "testing"

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

func TestStatusCellsTakeTheChosenRepetitionInMicroseconds(t *testing.T) {
	tr := &TargetResult{Cells: []CellResult{{
		Repetitions: []RepetitionResult{
			{Read: &DirectionStats{IOPS: 100}},
			{Read: &DirectionStats{IOPS: 2000.26, BytesPerSecond: 8193024.4, LatencyNs: LatencyNs{Mean: 812_345, P50: 790_000, P90: 1_200_000, P99: 2_500_000, P999: 4_000_000, Max: 9_876_543}}},
		},
		Chosen: 1, SpreadPercent: 12.34,
	}}}
	tr.Cells[0].Cell.Name, tr.Cells[0].Cell.Workload = "w-bs4k-r100-qd8-j1", "w"
	cells := StatusCells(tr)
	if len(cells) != 1 || cells[0].Write != nil {
		t.Fatalf("cells: %+v", cells)
	}
	r := cells[0].Read
	if r.IOPS != "2000.3" || r.BytesPerSecond != 8193024 || r.LatencyMicroseconds.Mean != "812.35" ||
		r.LatencyMicroseconds.P99 != "2500" || r.LatencyMicroseconds.Max != "9876.54" || cells[0].SpreadPercent != "12.3" {
		t.Fatalf("summary: %+v %+v", r, cells[0])
	}
}
