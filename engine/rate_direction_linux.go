//go:build linux

package engine

// directionPace is a worker's per-direction schedules (rate_iops=READ,WRITE):
// a pacer per capped direction, nil for a direction without a cap.
type directionPace struct {
	dir   [2]pacer
	mixed bool // the job does both reads and writes
}

func newDirectionPace(j *JobSpec, lane, lanes int, anchor int64, r *rng) *directionPace {
	p := &directionPace{mixed: j.readPercent() > 0 && j.readPercent() < 100}
	for d, rate := range j.RateIOPSByDir {
		if rate > 0 {
			p.dir[d] = newPacer(rate, lane, lanes, anchor, j.RateProcess, r.next())
		}
	}
	return p
}

func (p *directionPace) restart(anchor int64) {
	for _, d := range p.dir {
		if d != nil {
			d.restart(anchor)
		}
	}
}

func (p *directionPace) due(op uint8, now int64) bool {
	return p.dir[op] == nil || p.dir[op].due(now) > 0
}

// choose is the direction of the next IO: op, the mix's choice, if it is
// due, else in a mixed job the other one if that is due (fio's rate_ddir);
// false when neither is.
func (p *directionPace) choose(op uint8, now int64) (uint8, bool) {
	switch {
	case p.due(op, now):
		return op, true
	case p.mixed && p.due(1-op, now):
		return 1 - op, true
	}
	return op, false
}

// take schedules an IO of op: its intended time (now without a cap).
func (p *directionPace) take(op uint8, now int64) int64 {
	if p.dir[op] == nil {
		return now
	}
	return p.dir[op].next()
}

// nextDue is when the next capped IO is due (now when a direction the job
// does has no cap: there is always work).
func (p *directionPace) nextDue(now int64, readPercent int) int64 {
	next := int64(-1)
	for d, pc := range p.dir {
		does := (uint8(d) == opRead && readPercent > 0) || (uint8(d) == opWrite && readPercent < 100)
		switch {
		case !does:
		case pc == nil:
			return now
		case next < 0 || pc.nextDue() < next:
			next = pc.nextDue()
		}
	}
	return max(next, now)
}
