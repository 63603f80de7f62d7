package engine

import (
	"fmt"
	"strings"
	"time"
)

// fio's rate_min and rate_iops_min: a floor instead of a cap. Once the job
// has measured for 2 s (fio's settle period), every rate_cycle (default
// 1 s) the bandwidth or IOPS of each direction the job does IO in is taken
// over the cycle, and a cycle below the floor ends the job with an error
// (fio's "rate_min=... not met"), as fio's check_min_rate does. Each clone
// is held to the floor on its own, as fio's jobs are; where psync's fallback
// splits a clone over lanes each lane keeps its share.

func init() {
	for _, o := range []option{
		{name: "rate_min", help: "end the job with an error when a clone's bandwidth over a rate_cycle falls below this, bytes per second (after 2 s)", apply: func(j *JobSpec, s string) error {
			if err := rejectList(s); err != nil {
				return err
			}
			return numberOpt(sizeKind, func(j *JobSpec, v int64) { j.RateMin.Bytes = v })(j, s)
		}},
		{name: "rate_iops_min", help: "end the job with an error when a clone's IOPS over a rate_cycle fall below this (after 2 s)", apply: func(j *JobSpec, s string) error {
			if err := rejectList(s); err != nil {
				return err
			}
			return numberOpt(rateKind, func(j *JobSpec, v int64) { j.RateMin.IOPS = v })(j, s)
		}},
		{name: "rate_process", help: "how paced IOs are spread in time: linear (even gaps, the default) or poisson (exponential gaps: IOs arriving independently)", apply: func(j *JobSpec, s string) error {
			switch v := strings.TrimSpace(s); v {
			case RateProcessLinear, RateProcessPoisson:
				j.RateProcess = v
				return nil
			}
			return fmt.Errorf("%s is not linear or poisson", excerpt(s))
		}},
		{name: "rate_cycle", help: "how long rate_min and rate_iops_min are averaged over; bare number = milliseconds (default 1000)", apply: numberOpt(msecTimeKind, func(j *JobSpec, v int64) { j.RateMin.Cycle = time.Duration(v) })},
	} {
		registerOption(o)
	}
}

// msecTimeKind is a time whose bare number is milliseconds, as fio reads
// rate_cycle.
var msecTimeKind = timeKindIn("ms", "milliseconds")

// RateMin is a job's floor (fio's rate_min, rate_iops_min, rate_cycle); a
// zero Bytes and IOPS leave it off.
type RateMin struct {
	Bytes, IOPS int64
	Cycle       time.Duration
}

// validateRateMin refuses a floor above the job's own cap, as fio does
// ("minimum rate exceeds rate").
func (j *JobSpec) validateRateMin() error {
	switch {
	case j.RateIOPS > 0 && j.RateMin.IOPS > int64(j.RateIOPS):
		return fmt.Errorf("job %q: rate_iops_min: %d is above rate_iops %d, which caps the job below its floor", j.Name, j.RateMin.IOPS, j.RateIOPS)
	case j.RateIOPS > 0 && j.RateMin.Bytes > int64(j.RateIOPS)*j.BSMax:
		// rate (bytes) is rate_iops by now (resolve); with the largest
		// block every IO could carry, the cap is still below the floor.
		return fmt.Errorf("job %q: rate_min: %d B/s is above the most the rate lets through (%d IOPS x %d bytes), which caps the job below its floor", j.Name, j.RateMin.Bytes, j.RateIOPS, j.BSMax)
	}
	return nil
}

// rateSettle is fio's settle period before the floor is checked.
const rateSettle = 2 * time.Second

// rateFloor is one worker's check of its floor.
type rateFloor struct {
	bytes, iops float64 // the worker's share of the floor, per second
	cycle       int64
	settled     int64 // when the checks start
	// last is each direction's count at the last check; at is its time.
	lastBytes, lastIOs [2]int64
	started            [2]bool
	at                 [2]int64
}

func newRateFloor(r RateMin, lane, lanes int) *rateFloor {
	if r.Bytes == 0 && r.IOPS == 0 {
		return nil
	}
	cycle := r.Cycle
	if cycle == 0 {
		cycle = time.Second
	}
	return &rateFloor{bytes: float64(r.Bytes) / float64(lanes), iops: float64(r.IOPS) / float64(lanes), cycle: int64(cycle)}
}

// restart starts the settle period where the measured phase starts.
func (f *rateFloor) restart(at int64) {
	*f = rateFloor{bytes: f.bytes, iops: f.iops, cycle: f.cycle, settled: at + int64(rateSettle)}
}

// check judges each direction with IO at now, given its measured bytes and
// IOs so far, and returns the error that ends the job when a cycle fell
// below the floor. The first check of a direction only starts its cycle.
func (f *rateFloor) check(now int64, bytes, ios [2]int64) error {
	if now < f.settled {
		return nil
	}
	for d := range 2 {
		if ios[d] == 0 {
			continue // fio never judges a direction without IO
		}
		if !f.started[d] {
			f.started[d], f.at[d], f.lastBytes[d], f.lastIOs[d] = true, now, bytes[d], ios[d]
			continue
		}
		spent := now - f.at[d]
		if spent < f.cycle {
			continue
		}
		secs := float64(spent) / 1e9
		dir := [2]string{"reads", "writes"}[d]
		if got := float64(bytes[d]-f.lastBytes[d]) / secs; f.bytes > 0 && got < f.bytes {
			return fmt.Errorf("rate_min=%.0fB/s not met: %s did %.0fB/s over the last %v", f.bytes, dir, got, time.Duration(spent).Round(time.Millisecond))
		}
		if got := float64(ios[d]-f.lastIOs[d]) / secs; f.iops > 0 && got < f.iops {
			return fmt.Errorf("rate_iops_min=%.0f not met: %s did %.0f IOPS over the last %v", f.iops, dir, got, time.Duration(spent).Round(time.Millisecond))
		}
		f.at[d], f.lastBytes[d], f.lastIOs[d] = now, bytes[d], ios[d]
	}
	return nil
}
