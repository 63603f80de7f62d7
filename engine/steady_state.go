package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/storagebench/storagebench/engine/result"
)

// fio's steadystate (ss), steadystate_duration (ss_dur) and
// steadystate_ramp_time (ss_ramp): a job ends early once its IOPS or
// bandwidth has settled. Every second, after ss_ramp, the job's rate over
// that second is a sample; once ss_dur of samples are in hand the window's
// criterion is computed after every sample, and the job ends when it is
// below the limit:
//   - iops, bw: the largest distance of a sample from the window's mean;
//   - iops_slope, bw_slope: the least-squares slope of the samples over
//     their index (per second).
//
// A limit ending in % is a percentage of the window's mean. Without
// group_reporting each clone is judged, and ends, alone; with it, the
// reporting group's rate is judged and the whole group ends, as in fio.
// A sample is the rate over the time since the previous one, measured, as
// fio's is (steadystate_check divides by the time since its last check).
//
// The StorageBenchmark API's steadyState check (results/steady_state.go)
// judges measured cells after the fact and never ends one early: clients
// stay synchronized. This is the engine CLI's fio-compatible form.

func init() {
	for _, o := range []option{
		{name: "steadystate", help: "criterion:limit ending the job once steady: iops | iops_slope | bw | bw_slope, limit a number or a percentage of the mean (default iops_slope:0.01%); needs ss_dur", apply: func(j *JobSpec, s string) error {
			c, err := parseSteadyState(s)
			if err == nil {
				j.SteadyState = c
			}
			return err
		}},
		{name: "steadystate_duration", help: "length of the window of 1 s samples judged for steady state (0 = off, the default; bare number = seconds)", apply: numberOpt(timeKind, func(j *JobSpec, v int64) { j.SteadyDuration = time.Duration(v) })},
		{name: "steadystate_ramp_time", help: "time before steady-state samples start (bare number = seconds)", apply: numberOpt(timeKind, func(j *JobSpec, v int64) { j.SteadyRamp = time.Duration(v) })},
	} {
		registerOption(o)
	}
	optionAliases["ss"] = "steadystate"
	optionAliases["ss_dur"] = "steadystate_duration"
	optionAliases["ss_ramp"] = "steadystate_ramp_time"
}

// SteadyStateCriterion is fio's steadystate value: what is sampled, how it
// is judged and the limit.
type SteadyStateCriterion struct {
	// Bandwidth samples bytes per second instead of IOPS.
	Bandwidth bool
	// Slope judges the least-squares slope instead of the largest
	// distance from the mean.
	Slope bool
	// Limit is the bound the criterion must stay below; a percentage of
	// the window's mean when Percent.
	Limit   float64
	Percent bool
}

var defaultSteadyState = SteadyStateCriterion{Slope: true, Limit: 0.01, Percent: true}

// steadySampleInterval is fio's steady-state sampling period.
const steadySampleInterval = time.Second

// maxSteadySamples bounds ss_dur (a day of samples): the window is held
// in memory and walked after every sample.
const maxSteadySamples = 86400

func parseSteadyState(s string) (SteadyStateCriterion, error) {
	name, limit, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return SteadyStateCriterion{}, fmt.Errorf("%s is not criterion:limit (e.g. iops_slope:0.1%%, iops:2%%, bw:10m)", excerpt(s))
	}
	var c SteadyStateCriterion
	switch strings.ToLower(name) {
	case "iops":
	case "iops_slope":
		c.Slope = true
	case "bw":
		c.Bandwidth = true
	case "bw_slope":
		c.Bandwidth, c.Slope = true, true
	default:
		return SteadyStateCriterion{}, fmt.Errorf("unknown criterion %s (iops, iops_slope, bw, bw_slope)", excerpt(name))
	}
	if pct, isPct := strings.CutSuffix(limit, "%"); isPct {
		v, err := strconv.ParseFloat(pct, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return SteadyStateCriterion{}, fmt.Errorf("limit %s is not a percentage >= 0", excerpt(limit))
		}
		c.Limit, c.Percent = v, true
		return c, nil
	}
	if c.Bandwidth {
		// fio reads an absolute bandwidth limit as a size per second.
		v, err := sizeKind.value(limit)
		if err != nil {
			return SteadyStateCriterion{}, fmt.Errorf("limit: %w", err)
		}
		c.Limit = float64(v)
		return c, nil
	}
	v, err := strconv.ParseFloat(limit, 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return SteadyStateCriterion{}, fmt.Errorf("limit %s is not a number >= 0 (IOPS) or a percentage", excerpt(limit))
	}
	c.Limit = v
	return c, nil
}

// String is fio's JSON "ss" value: iops_slope:0.010000%.
func (c SteadyStateCriterion) String() string {
	return c.name() + ":" + strconv.FormatFloat(c.Limit, 'f', 6, 64) + c.unit()
}

func (c SteadyStateCriterion) name() string {
	n := "iops"
	if c.Bandwidth {
		n = "bw"
	}
	if c.Slope {
		n += "_slope"
	}
	return n
}

func (c SteadyStateCriterion) unit() string {
	if c.Percent {
		return "%"
	}
	return ""
}

// samples is the window's length in samples.
func (j *JobSpec) steadySamples() int {
	return int(j.SteadyDuration / steadySampleInterval)
}

// validateSteadyState checks ss_dur's bounds and the engines it can judge.
func (j *JobSpec) validateSteadyState() error {
	bad := func(opt, format string, a ...any) error {
		return fmt.Errorf("job %q: %s: %s", j.Name, opt, fmt.Sprintf(format, a...))
	}
	switch {
	case j.SteadyDuration == 0:
		return nil
	case j.SteadyDuration < steadySampleInterval:
		return bad("steadystate_duration", "%v is less than one %v sample", j.SteadyDuration, steadySampleInterval)
	case j.steadySamples() > maxSteadySamples:
		return bad("steadystate_duration", "%v is more than %d samples of %v", j.SteadyDuration, maxSteadySamples, steadySampleInterval)
	case j.SteadyRamp > maxStartDelay:
		return bad("steadystate_ramp_time", "%v is more than %v", j.SteadyRamp, maxStartDelay)
	case j.isFileOp():
		return bad("steadystate", "not with ioengine=%s (file engines report operations, not IOPS)", j.IOEngine)
	}
	return nil
}

// steadyWindow judges one job's (or group's) steady state from its samples;
// it is pure: the monitor feeds it.
type steadyWindow struct {
	crit      SteadyStateCriterion
	size      int
	iops, bw  []float64 // the last size samples, oldest first
	attained  bool
	criterion float64 // the last judgement's value (signed for a slope)
	slope     float64
	deviation float64
}

func newSteadyWindow(c SteadyStateCriterion, samples int) *steadyWindow {
	return &steadyWindow{crit: c, size: samples}
}

// add takes one sample and reports whether the window is now steady.
func (w *steadyWindow) add(iops, bw float64) bool {
	if len(w.iops) == w.size {
		copy(w.iops, w.iops[1:])
		copy(w.bw, w.bw[1:])
		w.iops, w.bw = w.iops[:w.size-1], w.bw[:w.size-1]
	}
	w.iops, w.bw = append(w.iops, iops), append(w.bw, bw)
	if len(w.iops) < w.size {
		return false
	}
	y := w.iops
	if w.crit.Bandwidth {
		y = w.bw
	}
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	var value float64
	if w.crit.Slope {
		w.slope = leastSquaresSlope(y)
		value = w.slope
	} else {
		w.deviation = 0
		for _, v := range y {
			w.deviation = max(w.deviation, math.Abs(v-mean))
		}
		value = w.deviation
	}
	if w.crit.Percent {
		// fio divides a slope by the mean in whole IOs (or bytes), a
		// deviation by the exact mean. Without IO the share is NaN or
		// Inf: not steady.
		if w.crit.Slope {
			mean = math.Trunc(mean)
		}
		value = 100 * value / mean
	}
	w.criterion = value
	w.attained = math.Abs(value) < w.crit.Limit
	return w.attained
}

// leastSquaresSlope is the slope of y over its indexes 0..n-1.
func leastSquaresSlope(y []float64) float64 {
	n := float64(len(y))
	if n < 2 {
		return 0
	}
	var sx, sy, sxy, sxx float64
	for i, v := range y {
		x := float64(i)
		sx, sy, sxy, sxx = sx+x, sy+v, sxy+x*v, sxx+x*x
	}
	return (sxy - sx*sy/n) / (sxx - sx*sx/n)
}

// result is the window in fio's layout; samples not yet taken (a job that
// ended before its window filled) are absent, not zeros as in fio.
func (w *steadyWindow) result() *result.SteadyState {
	out := &result.SteadyState{
		SS: w.crit.String(), Duration: int64(w.size), Criterion: strconv.FormatFloat(w.criterion, 'f', 6, 64) + w.crit.unit(),
		MaxDeviation: w.deviation, Slope: w.slope,
		Data: result.SteadyStateData{IOPS: []int64{}, Bw: []int64{}},
	}
	if w.attained {
		out.Attained = 1
	}
	var iops, bw float64
	for i := range w.iops {
		out.Data.IOPS = append(out.Data.IOPS, int64(w.iops[i]))
		out.Data.Bw = append(out.Data.Bw, int64(w.bw[i]))
		iops, bw = iops+w.iops[i], bw+w.bw[i]
	}
	if n := float64(len(w.iops)); n > 0 {
		out.Data.IOPSMean, out.Data.BwMean = int64(iops/n), int64(bw/n)
	}
	return out
}
