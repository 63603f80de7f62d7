package results

import (
	"fmt"

	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/engine/result"
)

// merger holds what merging a target's reports reuses from one client and
// cell to the next: a histogram decoder and buffer, the client's own
// accumulators and the cell's. A histogram is 15 KB; decoding and merging
// into fresh ones per client, cell and direction allocated gigabytes at the
// documented maxima (16 targets x 64 clients x 64 cells).
type merger struct {
	dec     hist.Decoder
	decoded hist.Histogram
	own     [2]directionMerge // one client's reads and writes
	cell    [2]directionMerge // the cell's, over all clients
	series  seriesMerge       // the cell's time series, over all clients
}

// directionMerge accumulates one direction over jobs and clients.
type directionMerge struct {
	ios, bytes int64
	iops, bps  float64
	lat, clat  hist.Histogram
	// hasLat and hasClat say whether any histogram was added: a direction
	// with IOs must bring one.
	hasLat, hasClat bool
}

func (m *directionMerge) reset() {
	m.ios, m.bytes, m.iops, m.bps = 0, 0, 0, 0
	if m.hasLat {
		m.lat.Reset()
	}
	if m.hasClat {
		m.clat.Reset()
	}
	m.hasLat, m.hasClat = false, false
}

// add adds one job's direction, decoding its histograms through mg.
func (m *directionMerge) add(d *result.Direction, ext *result.DirectionExtension, mg *merger) error {
	if d.TotalIOs < 0 || d.IOBytes < 0 || d.BwBytes < 0 || !finiteNonNegative(d.IOPS) {
		return fmt.Errorf("negative or non-finite counters (ios %d, bytes %d, iops %v)", d.TotalIOs, d.IOBytes, d.IOPS)
	}
	m.ios += d.TotalIOs
	m.bytes += d.IOBytes
	m.iops += d.IOPS
	m.bps += float64(d.BwBytes)
	for _, h := range [2]struct {
		encoded string
		into    *hist.Histogram
		has     *bool
		name    string
	}{{ext.Lat, &m.lat, &m.hasLat, "lat"}, {ext.Clat, &m.clat, &m.hasClat, "clat"}} {
		if h.encoded == "" {
			continue
		}
		if err := mg.dec.DecodeInto(&mg.decoded, h.encoded); err != nil {
			return fmt.Errorf("%s histogram: %w", h.name, err)
		}
		h.into.Merge(&mg.decoded)
		*h.has = true
	}
	if d.TotalIOs > 0 && !m.hasLat && !m.hasClat {
		return fmt.Errorf("%d IOs but no latency histogram", d.TotalIOs)
	}
	return nil
}

func (m *directionMerge) mergeFrom(o *directionMerge) {
	m.ios += o.ios
	m.bytes += o.bytes
	m.iops += o.iops
	m.bps += o.bps
	if o.hasLat {
		m.lat.Merge(&o.lat)
		m.hasLat = true
	}
	if o.hasClat {
		m.clat.Merge(&o.clat)
		m.hasClat = true
	}
}

// latency is the distribution latency percentiles come from: from each IO's
// intended start, else (an engine that sent only clat) its submission.
func (m *directionMerge) latency() *hist.Histogram {
	if m.hasLat {
		return &m.lat
	}
	return &m.clat
}

func (m *directionMerge) statsWithoutHistograms() *DirectionStats {
	return &DirectionStats{IOs: m.ios, Bytes: m.bytes, IOPS: m.iops, BytesPerSecond: m.bps,
		LatencyNs: summarize(m.latency()), CompletionLatencyNs: summarize(&m.clat)}
}

func (m *directionMerge) stats() *DirectionStats {
	s := m.statsWithoutHistograms()
	if m.hasLat {
		s.LatencyHistogram = m.lat.Encode()
	}
	if m.hasClat {
		s.CompletionLatencyHistogram = m.clat.Encode()
	}
	return s
}
