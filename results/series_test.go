package results

import (
	"fmt"
	"math"
	"strings"
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"k8s.io/utils/ptr"

	"github.com/storagebench/storagebench/engine/result"
)

func interval(endMs, reads, writes, latencySum, p99 int64) result.Interval {
	return result.Interval{OffsetMs: endMs, ReadIOs: reads, WriteIOs: writes, ReadBytes: reads * 4096, WriteBytes: writes * 4096, LatencySumNs: latencySum, P99LatencyNs: p99}
}

func TestASeriesSumsClientsAlignedToTheSharedSeconds(t *testing.T) {
	const start = int64(1_700_000_000_000_000_000)
	m := &seriesMerge{}
	// client 0 started first; client 1 4 ms later, with a last interval
	// cut short by the cell's end (300 ms: not a whole second).
	m.add(&result.JobExtension{StartUnixNano: start, TimeSeries: []result.Interval{
		interval(1000, 100, 0, 100*200_000, 300_000), interval(2000, 110, 10, 120*250_000, 400_000)}})
	m.add(&result.JobExtension{StartUnixNano: start + 4_000_000, TimeSeries: []result.Interval{
		interval(1000, 50, 50, 100*100_000, 900_000), interval(2000, 60, 40, 100*300_000, 200_000), interval(2300, 7, 7, 14, 1)}})
	s := m.series()
	if s.Len() != 2 || s.IntervalSeconds != 1 {
		t.Fatalf("%d points of %d s: %+v", s.Len(), s.IntervalSeconds, s)
	}
	if s.ReadIOs[0] != 150 || s.WriteIOs[0] != 50 || s.ReadIOs[1] != 170 || s.WriteIOs[1] != 50 || s.ReadBytes[1] != 170*4096 {
		t.Fatalf("counts %+v", s)
	}
	// exact means: (100*200us + 100*100us) / 200 IOs, (120*250us + 100*300us) / 220
	if s.MeanLatencyNs[0] != 150_000 || s.MeanLatencyNs[1] != (120*250_000+100*300_000)/220 {
		t.Fatalf("means %v", s.MeanLatencyNs)
	}
	if s.P99UpperBoundNs[0] != 900_000 || s.P99UpperBoundNs[1] != 400_000 {
		t.Fatalf("p99 upper bounds %v: the largest client p99 of each second", s.P99UpperBoundNs)
	}
	if s.IOPS(1) != 220 {
		t.Fatalf("IOPS %v", s.IOPS(1))
	}
}

func TestALongSeriesIsSummedIntoWiderIntervals(t *testing.T) {
	m := &seriesMerge{}
	var ivs []result.Interval
	for i := int64(1); i <= 1000; i++ {
		ivs = append(ivs, interval(i*1000, 10, 0, 10*i, i))
	}
	m.add(&result.JobExtension{StartUnixNano: 1e18, TimeSeries: ivs})
	s := m.series()
	if s.IntervalSeconds != 4 || s.Len() != 250 {
		t.Fatalf("%d points of %d s", s.Len(), s.IntervalSeconds)
	}
	if s.ReadIOs[0] != 40 || s.IOPS(0) != 10 || s.P99UpperBoundNs[0] != 4 || s.MeanLatencyNs[0] != (1+2+3+4)*10/40 {
		t.Fatalf("first point: %d IOs, %v IOPS, p99 %d, mean %d", s.ReadIOs[0], s.IOPS(0), s.P99UpperBoundNs[0], s.MeanLatencyNs[0])
	}
}

func seriesOf(iops ...float64) *Series {
	s := &Series{IntervalSeconds: 1}
	for _, v := range iops {
		s.ReadIOs = append(s.ReadIOs, int64(v))
		s.WriteIOs = append(s.WriteIOs, 0)
		s.ReadBytes = append(s.ReadBytes, 0)
		s.WriteBytes = append(s.WriteBytes, 0)
		s.MeanLatencyNs = append(s.MeanLatencyNs, 0)
		s.P99UpperBoundNs = append(s.P99UpperBoundNs, 0)
	}
	return s
}

func TestTheSteadyStateRuleMeasuresExcursionAndSlopeOverTheLastWindow(t *testing.T) {
	rule := (*sbv1.SteadyStateCheck)(nil).Rule()
	// a warm-up before the window does not count; the window is flat
	st, ok := JudgeSteadyState(seriesOf(10, 50, 1000, 1000, 1000, 1000, 1000), rule)
	if !ok || st.Points != 5 || st.ExcursionPercent != 0 || st.SlopePercent != 0 {
		t.Fatalf("%+v %v", st, ok)
	}
	// a ramp of 100 per sample on a mean of 1000: the fitted line rises
	// 400 over the window (40 %), the excursion is 400 (40 %)
	st, _ = JudgeSteadyState(seriesOf(800, 900, 1000, 1100, 1200), rule)
	if math.Abs(st.SlopePercent-40) > 1e-9 || math.Abs(st.ExcursionPercent-40) > 1e-9 {
		t.Fatalf("%+v", st)
	}
	// alternating noise: a large excursion, no trend
	st, _ = JudgeSteadyState(seriesOf(750, 1250, 750, 1250, 750, 1250), (&sbv1.SteadyStateCheck{WindowSeconds: ptr.To(int32(4))}).Rule())
	if st.Points != 4 || math.Abs(st.ExcursionPercent-50) > 1e-9 || st.SlopePercent > 31 {
		t.Fatalf("%+v", st)
	}
	if _, ok := JudgeSteadyState(seriesOf(1, 2, 3), rule); ok {
		t.Fatalf("a series shorter than the window was judged")
	}
	if _, ok := JudgeSteadyState(seriesOf(1, 2, 3, 4, 5, 6), (&sbv1.SteadyStateCheck{WindowSeconds: ptr.To(int32(0))}).Rule()); ok {
		t.Fatalf("a window of 0 turns the rule off")
	}
}

func TestACellOutsideTheSteadyStateRuleIsWarnedAbout(t *testing.T) {
	tr := &TargetResult{Target: "ssd", Cells: []CellResult{
		{Cell: sbv1.Cell{Name: "steady"}, Repetitions: []RepetitionResult{{Repetition: 1, Series: seriesOf(1000, 1010, 990, 1000, 1005)}}},
		{Cell: sbv1.Cell{Name: "climbing"}, Repetitions: []RepetitionResult{{Repetition: 1, Series: seriesOf(800, 900, 1000, 1100, 1200)}}},
	}}
	var got []string
	steadyStateWarnings(tr, (*sbv1.SteadyStateCheck)(nil).Rule(), func(reason, cell, format string, args ...any) {
		got = append(got, reason+" "+cell+": "+fmt.Sprintf(format, args...))
	})
	if len(got) != 1 || !strings.HasPrefix(got[0], "NotSteadyState climbing: IOPS not steady over the last 5 samples: excursion 40 % of the mean (limit 20 %), trend 40 % (limit 10 %)") {
		t.Fatalf("warnings %q", got)
	}
}

func TestALastShortGroupOfAWideSeriesIsNoPoint(t *testing.T) {
	m := &seriesMerge{}
	var ivs []result.Interval
	for i := int64(1); i <= 1001; i++ { // 1001 s at 4 s a point: 250 whole points and 1 s left
		ivs = append(ivs, interval(i*1000, 10, 0, 0, 1))
	}
	m.add(&result.JobExtension{StartUnixNano: 1e18, TimeSeries: ivs})
	s := m.series()
	if s.IntervalSeconds != 4 || s.Len() != 250 || s.IOPS(249) != 10 {
		t.Fatalf("%d points of %d s, last %v IOPS", s.Len(), s.IntervalSeconds, s.IOPS(s.Len()-1))
	}
}

func TestAJobWithAClockFarOffDoesNotMoveTheOthers(t *testing.T) {
	const start = int64(1_700_000_000_000_000_000)
	m := &seriesMerge{}
	for _, at := range []int64{start, start + 2_000_000, 0} { // the last: a start of 1970
		m.add(&result.JobExtension{StartUnixNano: at, TimeSeries: []result.Interval{interval(1000, 100, 0, 0, 1), interval(2000, 100, 0, 0, 1)}})
	}
	s := m.series()
	if s.Len() != 2 || s.ReadIOs[0] != 200 || s.ReadIOs[1] != 200 {
		t.Fatalf("series %+v: the two jobs that started together make it", s)
	}
}
