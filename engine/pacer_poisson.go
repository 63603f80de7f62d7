package engine

import "math"

// Rate processes (fio's rate_process).
const (
	RateProcessLinear  = "linear"
	RateProcessPoisson = "poisson"
)

// maxDueAhead bounds the arrivals a poisson schedule keeps generated ahead:
// a worker never issues more at once than its queue depth (at most 4096).
const maxDueAhead = 4096

// poissonPacer is fio's rate_process=poisson: a lane's IOs arrive as a
// Poisson process of rate/lanes per second, exponential gaps of mean
// lanes/rate (fio: the mean gap times -ln of a uniform draw), so that the
// lanes of a clone together are one Poisson process at rate, a sum of
// independent Poisson processes being one. Being absolute, as the even
// schedule, a slow period is followed by catching up, and latency runs from
// each arrival.
type poissonPacer struct {
	meanGap float64 // ns
	rng     rng
	last    int64   // the latest arrival generated
	ahead   []int64 // arrivals generated, not yet issued, from head on
	head    int
}

func newPoissonPacer(rate, lanes int, anchor int64, seed uint64) *poissonPacer {
	return &poissonPacer{meanGap: float64(lanes) * 1e9 / float64(rate), rng: newRNG(seed), last: anchor}
}

func (p *poissonPacer) restart(anchor int64) { p.last, p.ahead, p.head = anchor, p.ahead[:0], 0 }

// arrive generates the next arrival.
func (p *poissonPacer) arrive() {
	u := (float64(p.rng.next()>>11) + 0.5) / (1 << 53) // in (0, 1)
	p.last += int64(-math.Log(u) * p.meanGap)
	if p.head > 0 && p.head >= len(p.ahead)/2 {
		// Drop what was issued, so that the buffer stays as long as
		// what is due ahead (one arrival is nearly always pending,
		// so waiting for it to empty would let it grow with the run).
		p.ahead = p.ahead[:copy(p.ahead, p.ahead[p.head:])]
		p.head = 0
	}
	p.ahead = append(p.ahead, p.last)
}

func (p *poissonPacer) due(now int64) int {
	for len(p.ahead)-p.head < maxDueAhead && (len(p.ahead) == p.head || p.ahead[len(p.ahead)-1] <= now) {
		p.arrive()
	}
	n := 0
	for _, t := range p.ahead[p.head:] {
		if t > now {
			break
		}
		n++
	}
	return n
}

func (p *poissonPacer) next() int64 {
	t := p.nextDue()
	p.head++
	return t
}

func (p *poissonPacer) nextDue() int64 {
	if len(p.ahead) == p.head {
		p.arrive()
	}
	return p.ahead[p.head]
}
