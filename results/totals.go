package results

import (
	"github.com/storagebench/storagebench/engine/hist"
)

// CellTotals is a cell run seen as a whole: reads and writes together.
type CellTotals struct {
	IOPS           float64
	BytesPerSecond float64
	// Latency is the distribution of all IOs, reads and writes merged from
	// their histograms, so a 70/30 mix is judged by what its IOs saw.
	Latency LatencyNs
}

// Totals adds up a repetition's directions.
func (r *RepetitionResult) Totals() CellTotals {
	t := CellTotals{IOPS: r.TotalIOPS(), BytesPerSecond: r.TotalBytesPerSecond()}
	merged := hist.New()
	merges := 0
	for _, d := range []*DirectionStats{r.Read, r.Write} {
		if d == nil || d.IOs == 0 {
			continue
		}
		h, err := hist.Decode(d.LatencyHistogram)
		if err != nil {
			continue
		}
		merged.Merge(h)
		merges++
	}
	switch {
	case merges > 0 && merged.Count() > 0:
		t.Latency = summarize(merged)
	case r.Read != nil && (r.Write == nil || r.Read.IOs >= r.Write.IOs):
		// Without histograms (a slimmed result), the busier direction
		// stands for the cell.
		t.Latency = r.Read.LatencyNs
	case r.Write != nil:
		t.Latency = r.Write.LatencyNs
	}
	return t
}
