package results

import (
	"strings"
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestWarningsNameEachValidityProblem(t *testing.T) {
	notMet := false
	tr := &TargetResult{
		Target:                "fast",
		Backends:              []string{"libaio (io_uring refused: operation not permitted)"},
		StartSkewMicroseconds: 250_000,
		ClientSummaries:       []ClientSummary{{Client: 0, Node: "n1"}, {Client: 1, Node: "n1"}, {Client: 2, Node: "n2"}},
		Cells: []CellResult{{
			Cell: sbv1.Cell{Name: "c1", RateIOPS: 5000},
			Repetitions: []RepetitionResult{{RateMet: &notMet, Clients: []ClientResult{
				{Client: 0, Read: &DirectionStats{IOPS: 1000}, EndUnixNano: 10e9},
				{Client: 1, Read: &DirectionStats{IOPS: 990}, EndUnixNano: 10e9},
				{Client: 2, Read: &DirectionStats{IOPS: 300}, EndUnixNano: 10e9},
			}}},
		}},
	}
	got := Warnings(tr, WarningInputs{NodeMemoryBytes: map[string]int64{"n1": 8 << 30, "n2": 8 << 30}, SizePerClientBytes: 1 << 30})
	want := map[string]string{
		WarnDatasetFitsInMemory: "2 client(s) on node n1 work on 2.0 GiB in all, less than twice its 8.0 GiB",
		WarnBackendFallback:     "libaio",
		WarnStartSkew:           "250.0 ms apart",
		WarnRateNotMet:          "5000 IOPS",
		WarnStraggler:           "client 2 reached 300 IOPS",
	}
	if len(got) != len(want) {
		t.Fatalf("want %d warnings, got %d: %+v", len(want), len(got), got)
	}
	for _, w := range got {
		if !strings.Contains(w.Message, want[w.Reason]) || w.Target != "fast" {
			t.Errorf("%s: %q does not contain %q", w.Reason, w.Message, want[w.Reason])
		}
	}
}

func TestNoWarningsForASoundRun(t *testing.T) {
	met := true
	tr := &TargetResult{
		Target: "fast", Backends: []string{"io_uring"}, StartSkewMicroseconds: 800,
		ClientSummaries: []ClientSummary{{Client: 0, Node: "n1"}},
		Cells:           []CellResult{{Repetitions: []RepetitionResult{{RateMet: &met, Clients: []ClientResult{{Read: &DirectionStats{IOPS: 5}}}}}}},
	}
	if got := Warnings(tr, WarningInputs{NodeMemoryBytes: map[string]int64{"n1": 1 << 30}, SizePerClientBytes: 4 << 30}); len(got) != 0 {
		t.Fatalf("unexpected warnings: %+v", got)
	}
}
