package results

import (
	"math"
	"slices"

	"github.com/storagebench/storagebench/engine/result"
)

// MaxSeriesPoints bounds a repetition's time series: a longer cell is
// summed into wider intervals (2 s, 3 s, ...), so that a day-long cell on
// 64 cells still fits its results ConfigMap. About 50 bytes per point.
const MaxSeriesPoints = 300

// Series is a cell run's time series merged over all clients, one point per
// IntervalSeconds after the earliest client's measured start. Counts add up
// exactly over clients and jobs; MeanLatencyNs is exact (the latencies'
// sum over their count); P99UpperBoundNs is the largest p99 of any client's
// job in the interval. It bounds the merged p99 from above: if no client
// has more than 1 % of its IOs slower than it, neither do all of them
// together. Only whole intervals are points: a client's last, partial one
// is in the cell's totals, not in its series.
type Series struct {
	IntervalSeconds int32   `json:"intervalSeconds"`
	ReadIOs         []int64 `json:"readIOs"`
	WriteIOs        []int64 `json:"writeIOs"`
	ReadBytes       []int64 `json:"readBytes"`
	WriteBytes      []int64 `json:"writeBytes"`
	// MeanLatencyNs is 0 where the clients did not report latency sums
	// (older engines).
	MeanLatencyNs   []int64 `json:"meanLatencyNs"`
	P99UpperBoundNs []int64 `json:"p99UpperBoundNs"`
}

// Len is the number of points.
func (s *Series) Len() int {
	if s == nil {
		return 0
	}
	return len(s.ReadIOs)
}

// IOPS is the point's reads and writes per second.
func (s *Series) IOPS(i int) float64 {
	return float64(s.ReadIOs[i]+s.WriteIOs[i]) / float64(max(s.IntervalSeconds, 1))
}

// seriesPoint is a point being summed.
type seriesPoint struct {
	ios, bytes [2]int64
	latencySum int64
	p99        int64
}

// seriesMerge collects the clients' job series of one cell run.
type seriesMerge struct {
	jobs []jobSeries
}

type jobSeries struct {
	start     int64
	intervals []result.Interval
}

func (m *seriesMerge) reset() { m.jobs = m.jobs[:0] }

func (m *seriesMerge) add(ext *result.JobExtension) {
	if len(ext.TimeSeries) > 0 {
		m.jobs = append(m.jobs, jobSeries{start: ext.StartUnixNano, intervals: ext.TimeSeries})
	}
}

// maxStartSpread is how far from the others a job may start and still be
// aligned with them; maxSeriesSeconds bounds a series (a cell lasts a day
// at most, its ramp included).
const (
	maxStartSpread   = int64(10e9)
	maxSeriesSeconds = 2 * 86400
)

// wholeInterval is the shortest interval that is a point: the engine's are
// a second, and a last one cut short by the cell's end is not.
const wholeInterval = 900

// series aligns every job's intervals to the seconds after the earliest
// job's start (clients start within milliseconds of each other) and sums
// them; nil without any series.
func (m *seriesMerge) series() *Series {
	if len(m.jobs) == 0 {
		return nil
	}
	// Seconds count from the earliest start among the jobs that started
	// with the others (within maxStartSpread of their median): one job's
	// clock far off would otherwise move every other job out of range.
	starts := make([]int64, len(m.jobs))
	for i, j := range m.jobs {
		starts[i] = j.start
	}
	slices.Sort(starts)
	median := starts[len(starts)/2]
	earliest := int64(math.MaxInt64)
	for _, st := range starts {
		if st >= median-maxStartSpread {
			earliest = min(earliest, st)
		}
	}
	var points []seriesPoint
	for _, j := range m.jobs {
		if j.start < median-maxStartSpread || j.start > median+maxStartSpread {
			continue // its intervals are in the cell's totals, not in its seconds
		}
		previous := int64(0)
		for _, iv := range j.intervals {
			length := iv.OffsetMs - previous
			previous = iv.OffsetMs
			if length < wholeInterval || iv.OffsetMs <= 0 {
				continue
			}
			end := j.start + iv.OffsetMs*1e6 - earliest
			k := int((end+5e8)/1e9) - 1 // the point the interval's end is nearest
			if k < 0 || k >= maxSeriesSeconds {
				continue // not a second of this cell: a clock the merge cannot use
			}
			for len(points) <= k {
				points = append(points, seriesPoint{})
			}
			p := &points[k]
			p.ios[0] += max(iv.ReadIOs, 0)
			p.ios[1] += max(iv.WriteIOs, 0)
			p.bytes[0] += max(iv.ReadBytes, 0)
			p.bytes[1] += max(iv.WriteBytes, 0)
			p.latencySum += max(iv.LatencySumNs, 0)
			p.p99 = max(p.p99, iv.P99LatencyNs)
		}
	}
	if len(points) == 0 {
		return nil
	}
	width := (len(points) + MaxSeriesPoints - 1) / MaxSeriesPoints
	s := &Series{IntervalSeconds: int32(width)}
	// A last group shorter than the width would show as a dip: its seconds
	// are in the cell's totals, not in a point.
	for start := 0; start+width <= len(points); start += width {
		var sum seriesPoint
		for _, p := range points[start:min(start+width, len(points))] {
			for d := range 2 {
				sum.ios[d] += p.ios[d]
				sum.bytes[d] += p.bytes[d]
			}
			sum.latencySum += p.latencySum
			sum.p99 = max(sum.p99, p.p99)
		}
		mean := int64(0)
		if n := sum.ios[0] + sum.ios[1]; n > 0 {
			mean = sum.latencySum / n
		}
		s.ReadIOs = append(s.ReadIOs, sum.ios[0])
		s.WriteIOs = append(s.WriteIOs, sum.ios[1])
		s.ReadBytes = append(s.ReadBytes, sum.bytes[0])
		s.WriteBytes = append(s.WriteBytes, sum.bytes[1])
		s.MeanLatencyNs = append(s.MeanLatencyNs, mean)
		s.P99UpperBoundNs = append(s.P99UpperBoundNs, sum.p99)
	}
	return s
}
