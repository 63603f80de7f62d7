package engine

import "math/bits"

// pacer is a rate_iops schedule: when each IO is intended. Latency is
// measured from that moment, whatever the storage does.
type pacer interface {
	// restart re-anchors the schedule (at the end of the ramp, so that
	// the measured phase starts on schedule, not with the ramp's
	// backlog).
	restart(anchor int64)
	// due is how many IOs are due at now and not yet issued.
	due(now int64) int
	// next takes the next IO off the schedule and returns its intended
	// time.
	next() int64
	// nextDue is the intended time of the next IO not yet issued.
	nextDue() int64
}

// newPacer is the schedule of a lane of a job paced at rate IOPS: fio's
// rate_process, linear (evenly spaced) or poisson.
func newPacer(rate, lane, lanes int, anchor int64, process string, seed uint64) pacer {
	if process == RateProcessPoisson {
		return newPoissonPacer(rate, lanes, anchor, seed)
	}
	return &evenPacer{anchor: anchor, rate: uint64(rate), lane: uint64(lane), lanes: uint64(lanes)}
}

// evenPacer is an absolute schedule: IO k of the lane is intended at
// anchor + (k*lanes + lane) / rate seconds. Being absolute, a slow period
// is followed by catching up (everything due is issued at once, up to the
// free slots), so the achieved rate is the target whenever the storage can
// sustain it, and latency can be measured from each IO's intended time,
// which keeps a stall from hiding behind fewer samples (coordinated
// omission). With lanes > 1 (psync emulating a queue depth with one thread
// per slot) the lanes interleave on one schedule without sharing state.
type evenPacer struct {
	anchor int64 // nanotime of IO 0
	rate   uint64
	lane   uint64
	lanes  uint64
	issued uint64 // IOs issued since anchor
}

func (p *evenPacer) restart(anchor int64) { p.anchor, p.issued = anchor, 0 }

// intended is the nanotime at which the lane's IO k is due.
func (p *evenPacer) intended(k uint64) int64 {
	hi, lo := bits.Mul64(k*p.lanes+p.lane, 1e9)
	q, _ := bits.Div64(hi%p.rate, lo, p.rate) // hi < rate for any realistic k
	return p.anchor + int64(q)
}

func (p *evenPacer) due(now int64) int {
	if now < p.anchor {
		return 0
	}
	hi, lo := bits.Mul64(uint64(now-p.anchor), p.rate)
	kmax, _ := bits.Div64(hi%1e9, lo, 1e9) // schedule positions 0..kmax are due
	if kmax < p.lane {
		return 0
	}
	n := (kmax-p.lane)/p.lanes + 1
	if n <= p.issued {
		return 0
	}
	if d := n - p.issued; d < 1<<30 {
		return int(d)
	}
	return 1 << 30
}

func (p *evenPacer) next() int64 {
	t := p.intended(p.issued)
	p.issued++
	return t
}

func (p *evenPacer) nextDue() int64 { return p.intended(p.issued) }
