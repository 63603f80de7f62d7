package results

import (
	"testing"

	"github.com/storagebench/storagebench/engine/hist"
)

func TestTotalsNeverShowTheLatencyOfOnlySomeIOs(t *testing.T) {
	read, write := hist.New(), hist.New()
	for i := 0; i < 700; i++ {
		read.Record(100_000)
	}
	for i := 0; i < 300; i++ {
		write.Record(1_000_000)
	}
	// The reads' summary differs from their histogram's, to tell which one
	// Totals used.
	readSummary := LatencyNs{Min: 1, P50: 42, P90: 42, P99: 42, P999: 42, Max: 42, Mean: 42}
	for _, tc := range []struct {
		name  string
		write string // the writes' latency histogram
		want  LatencyNs
	}{
		{"both histograms: all IOs merged", write.Encode(), summarize(merged(read, write))},
		{"writes without a histogram: the busier direction's summary", "", readSummary},
		{"an undecodable histogram: no latency at all", "v1.AAAA", LatencyNs{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := RepetitionResult{
				Read:  &DirectionStats{IOs: 700, IOPS: 700, LatencyNs: readSummary, LatencyHistogram: read.Encode()},
				Write: &DirectionStats{IOs: 300, IOPS: 300, LatencyHistogram: tc.write},
			}
			got := rep.Totals()
			if got.IOPS != 1000 || got.Latency != tc.want {
				t.Fatalf("totals %+v, want 1000 IOPS and latency %+v", got, tc.want)
			}
		})
	}
}

func merged(hs ...*hist.Histogram) *hist.Histogram {
	m := hist.New()
	for _, h := range hs {
		m.Merge(h)
	}
	return m
}
