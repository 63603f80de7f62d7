package engine

import (
	"math"
	"testing"
)

// rate_process=poisson spaces a lane's IOs by exponential gaps: their mean
// is lanes/rate and their standard deviation equals the mean (the even
// schedule's is 0), and the schedule is absolute, so everything that
// arrived while the worker was away is due at once.
func TestPoissonArrivalsHaveExponentialGaps(t *testing.T) {
	const rate, lanes, n = 1000, 2, 200_000
	p := newPacer(rate, 1, lanes, 0, RateProcessPoisson, 7)
	var sum, sumSq float64
	prev := int64(0)
	for range n {
		at := p.next()
		gap := float64(at - prev)
		sum, sumSq, prev = sum+gap, sumSq+gap*gap, at
	}
	mean := sum / n
	sd := math.Sqrt(sumSq/n - mean*mean)
	want := float64(lanes) * 1e9 / rate
	if math.Abs(mean/want-1) > 0.01 {
		t.Errorf("mean gap %.0f ns, want %.0f (lanes/rate) within 1%%", mean, want)
	}
	if math.Abs(sd/mean-1) > 0.02 {
		t.Errorf("gap deviation / mean = %.3f, want 1 within 2%% (exponential)", sd/mean)
	}
}

func TestAPoissonScheduleCatchesUp(t *testing.T) {
	p := newPacer(1000, 0, 1, 0, RateProcessPoisson, 1)
	if d := p.due(0); d != 0 {
		t.Fatalf("due at the anchor: %d, the first arrival comes one gap after it", d)
	}
	// About 100 arrived in the first 100 ms (Poisson: 100 +- 10).
	d := p.due(100e6)
	if d < 60 || d > 140 {
		t.Fatalf("due after 100 ms at 1000 IOPS: %d", d)
	}
	for range d {
		if at := p.next(); at > 100e6 {
			t.Fatalf("an IO due by 100 ms is intended at %d", at)
		}
	}
	if p.due(100e6) != 0 || p.nextDue() <= 100e6 {
		t.Fatalf("after issuing what was due: due %d, next at %d", p.due(100e6), p.nextDue())
	}
	p.restart(5e9)
	if p.due(5e9) != 0 || p.nextDue() <= 5e9 {
		t.Fatalf("restarted at 5 s: next at %d", p.nextDue())
	}
	// A worker away for 10 s at 1000 IOPS finds at most maxDueAhead due
	// at once (it issues at most its queue depth anyway).
	if d := p.due(15e9); d != maxDueAhead {
		t.Fatalf("due after 10 s away: %d, want the cap %d", d, maxDueAhead)
	}
}

// A poisson schedule keeps only what is due ahead, however long it runs
// (one arrival is nearly always pending).
func TestAPoissonScheduleDoesNotGrowWithTheRun(t *testing.T) {
	p := newPacer(1000, 0, 1, 0, RateProcessPoisson, 3).(*poissonPacer)
	now := int64(0)
	for range 1_000_000 {
		now += 1e6 // a worker looking every millisecond
		for n := p.due(now); n > 0; n-- {
			p.next()
		}
	}
	if c := cap(p.ahead); c > 64 {
		t.Fatalf("after a million arrivals the buffer holds %d", c)
	}
}
