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
//
// Totals trusts its input to have come from Merge (which encodes the
// histograms itself) or to have passed Check (which decodes every one):
// those are the only ways results reach the comparison, the thresholds and
// the renderers, and none of them could do anything with an error but
// fail. Should a histogram not decode all the same, Totals gives no latency
// at all (zero, shown as "-") rather than the latency of only some of the
// IOs, which would look right and be wrong.
func (r *RepetitionResult) Totals() CellTotals {
	t := CellTotals{IOPS: r.TotalIOPS(), BytesPerSecond: r.TotalBytesPerSecond()}
	merged := hist.New()
	withoutHistogram := false
	for _, d := range []*DirectionStats{r.Read, r.Write} {
		if d == nil || d.IOs == 0 {
			continue
		}
		// As Merge summarizes a direction: latency from each IO's
		// intended start, or its submission when an engine sent only that.
		encoded := d.LatencyHistogram
		if encoded == "" {
			encoded = d.CompletionLatencyHistogram
		}
		if encoded == "" {
			withoutHistogram = true
			continue
		}
		h, err := hist.Decode(encoded)
		if err != nil {
			return t
		}
		merged.Merge(h)
	}
	switch {
	case !withoutHistogram && merged.Count() > 0:
		t.Latency = summarize(merged)
	case r.Read != nil && (r.Write == nil || r.Read.IOs >= r.Write.IOs):
		// Without histograms (a result written by hand or by another
		// tool), the busier direction stands for the cell.
		t.Latency = r.Read.LatencyNs
	case r.Write != nil:
		t.Latency = r.Write.LatencyNs
	}
	return t
}
