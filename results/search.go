package results

import (
	"fmt"
	"math"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// rateFractions are the shares of the probe's IOPS a Rate search offers
// after the probe, in order, before it bisects: enough points to draw the
// curve's knee, few enough to keep a search short.
var rateFractions = []float64{0.25, 0.5, 0.75, 0.9}

// rateTolerance ends a Rate search's bisection once the highest rate that
// held and the lowest that did not are this close (relative to the lower
// failing one).
const rateTolerance = 0.02

// rateMetShare is the share of its offered rate a paced step must reach: a
// target that does not carry the load has failed it whatever its latency.
const rateMetShare = 0.98

// SearchResult is one search on one target: what it found and every step
// it ran (the curve).
type SearchResult struct {
	Search string `json:"search"`
	// Outcome is Found, HoldsAtMaximum or NotReachable.
	Outcome    SearchOutcome       `json:"outcome"`
	Percentile sbv1.Percentile     `json:"percentile"`
	BoundNs    int64               `json:"boundNs"`
	Vary       sbv1.SearchVariable `json:"vary"`
	// Capacity is the step that stands for the answer: the highest load
	// that held (Found, HoldsAtMaximum); nil when nothing held.
	Capacity *SearchStep `json:"capacity,omitempty"`
	// Message says the answer in words, with the numbers.
	Message string       `json:"message"`
	Steps   []SearchStep `json:"steps"`
}

// SearchOutcome is how a search ended.
type SearchOutcome string

const (
	// SearchFound: a load held and a higher one did not; Capacity is the
	// highest that held.
	SearchFound SearchOutcome = "Found"
	// SearchHoldsAtMaximum: the bound held at the most the search could
	// offer (the unpaced probe, or the largest queue depth).
	SearchHoldsAtMaximum SearchOutcome = "HoldsAtMaximum"
	// SearchNotReachable: the bound failed even at the lowest load.
	SearchNotReachable SearchOutcome = "NotReachable"
)

// SearchStep is one step of a search, merged over all clients.
type SearchStep struct {
	Cell string `json:"cell"`
	sbv1.StepLoad
	// AchievedIOPS and BytesPerSecond are reads plus writes.
	AchievedIOPS   float64 `json:"achievedIOPS"`
	BytesPerSecond float64 `json:"bytesPerSecond"`
	// Latencies are of the slower direction, from each IO's intended start.
	P50Ns  int64 `json:"p50Ns"`
	P99Ns  int64 `json:"p99Ns"`
	P999Ns int64 `json:"p999Ns"`
	// AtPercentileNs is the latency the bound is compared with.
	AtPercentileNs int64 `json:"atPercentileNs"`
	Passed         bool  `json:"passed"`
	// Why says why a step failed.
	Why string `json:"why,omitempty"`
}

// NewSearchStep judges one merged step against the search's bound.
func NewSearchStep(s *sbv1.Search, load sbv1.StepLoad, cell string, rep *RepetitionResult) SearchStep {
	st := SearchStep{Cell: cell, StepLoad: load, AchievedIOPS: rep.TotalIOPS(), BytesPerSecond: rep.TotalBytesPerSecond()}
	for _, d := range []*DirectionStats{rep.Read, rep.Write} {
		if d == nil {
			continue
		}
		st.P50Ns = max(st.P50Ns, d.LatencyNs.P50)
		st.P99Ns = max(st.P99Ns, d.LatencyNs.P99)
		st.P999Ns = max(st.P999Ns, d.LatencyNs.P999)
		st.AtPercentileNs = max(st.AtPercentileNs, d.LatencyNs.At(s.Target.Percentile))
	}
	bound := s.Target.Microseconds * 1000
	switch {
	case st.AchievedIOPS <= 0:
		st.Why = "no IO completed"
	case st.AtPercentileNs > bound:
		st.Why = fmt.Sprintf("%s %s us over the bound of %d us", s.Target.Percentile, Decimal(float64(st.AtPercentileNs)/1000, 1), s.Target.Microseconds)
	case load.OfferedIOPS > 0 && st.AchievedIOPS < rateMetShare*float64(load.OfferedIOPS):
		st.Why = fmt.Sprintf("carried %s of %d IOPS offered", Decimal(st.AchievedIOPS, 0), load.OfferedIOPS)
	default:
		st.Passed = true
	}
	return st
}

// NextSearchStep is the search's decision between steps: given the steps
// run so far (in order), the load of the next one, or nil and the result
// when the search is over. It is pure, so that a controller restarted
// between steps decides the same from the steps it stored, and the local
// runner and the controller search alike. jobs is clients x numJobs: the
// finest step a split rate can take.
func NextSearchStep(s *sbv1.Search, jobs int64, steps []SearchStep) (*sbv1.StepLoad, *SearchResult) {
	if s.Target.Vary == sbv1.SearchQueueDepth {
		return nextQueueDepth(s, steps)
	}
	return nextRate(s, max(jobs, 1), steps)
}

func nextRate(s *sbv1.Search, jobs int64, steps []SearchStep) (*sbv1.StepLoad, *SearchResult) {
	qd := s.LargestQueueDepth()
	if len(steps) == 0 {
		return &sbv1.StepLoad{QueueDepth: qd}, nil // the probe, unpaced
	}
	probe := steps[0]
	if probe.Passed {
		return nil, concluded(s, steps, SearchHoldsAtMaximum, &steps[0])
	}
	ceiling := int64(math.Floor(probe.AchievedIOPS))
	if ceiling < jobs {
		return nil, concluded(s, steps, SearchNotReachable, nil)
	}
	full := len(steps) >= int(s.Target.MaxSteps)
	// The probe is meant to fail (it is the ceiling): only paced steps are
	// measured again.
	if again := toConfirm(steps); again != nil && len(steps) > 1 && !full {
		return again, nil
	}
	paced := standing(steps[1:])
	if allPassed(paced) && !full {
		// The next fraction above the last rate offered, in whole IOs per
		// second per job: with many jobs and a slow target, fractions
		// that round to the same rate are one step, not several.
		last := int64(0)
		if len(paced) > 0 {
			last = paced[len(paced)-1].OfferedIOPS
		}
		for _, f := range rateFractions {
			if offered := max(int64(f*float64(ceiling))/jobs*jobs, jobs); offered > last {
				return &sbv1.StepLoad{OfferedIOPS: offered, QueueDepth: qd}, nil
			}
		}
	}
	// Bisect between the highest rate that held below the lowest that did
	// not (the probe counts as failing at what it reached): the curve need
	// not be monotone, so both are taken over every step.
	failing := ceiling
	for _, st := range paced {
		if !st.Passed {
			failing = min(failing, st.OfferedIOPS)
		}
	}
	best := -1
	for i, st := range paced {
		if st.Passed && st.OfferedIOPS < failing && (best < 0 || st.OfferedIOPS > paced[best].OfferedIOPS) {
			best = i
		}
	}
	if best < 0 {
		return nil, concluded(s, steps, SearchNotReachable, nil)
	}
	holding := paced[best].OfferedIOPS
	gap := failing - holding
	// A split rate moves in whole IOs per second per job, so a gap under
	// two jobs' worth has no rate strictly inside it.
	if full || gap < 2*jobs || float64(gap) <= rateTolerance*float64(failing) {
		return nil, concluded(s, steps, SearchFound, &paced[best])
	}
	return &sbv1.StepLoad{OfferedIOPS: holding + gap/2, QueueDepth: qd}, nil
}

func allPassed(steps []SearchStep) bool {
	for _, st := range steps {
		if !st.Passed {
			return false
		}
	}
	return true
}

func nextQueueDepth(s *sbv1.Search, all []SearchStep) (*sbv1.StepLoad, *SearchResult) {
	largest := s.LargestQueueDepth()
	if len(all) == 0 {
		return &sbv1.StepLoad{QueueDepth: 1}, nil
	}
	if again := toConfirm(all); again != nil && len(all) < int(s.Target.MaxSteps) {
		return again, nil
	}
	steps := standing(all)
	failing := int32(0)
	for _, st := range steps {
		if !st.Passed && (failing == 0 || st.QueueDepth < failing) {
			failing = st.QueueDepth
		}
	}
	best := -1
	for i, st := range steps {
		if st.Passed && (failing == 0 || st.QueueDepth < failing) && (best < 0 || st.QueueDepth > steps[best].QueueDepth) {
			best = i
		}
	}
	switch {
	case best < 0:
		return nil, concluded(s, all, SearchNotReachable, nil)
	case failing == 0 && steps[best].QueueDepth >= largest:
		return nil, concluded(s, all, SearchHoldsAtMaximum, &steps[best])
	case len(all) >= int(s.Target.MaxSteps):
		return nil, concluded(s, all, SearchFound, &steps[best])
	case failing == 0:
		return &sbv1.StepLoad{QueueDepth: min(2*steps[best].QueueDepth, largest)}, nil
	case failing-steps[best].QueueDepth <= 1:
		return nil, concluded(s, all, SearchFound, &steps[best])
	}
	return &sbv1.StepLoad{QueueDepth: (steps[best].QueueDepth + failing) / 2}, nil
}

// concluded is the search's result, with its answer in words.
func concluded(s *sbv1.Search, steps []SearchStep, outcome SearchOutcome, capacity *SearchStep) *SearchResult {
	r := &SearchResult{
		Search: s.Name, Outcome: outcome, Percentile: s.Target.Percentile, BoundNs: s.Target.Microseconds * 1000,
		Vary: s.Target.Vary, Steps: steps,
	}
	bound := fmt.Sprintf("%s <= %d us", s.Target.Percentile, s.Target.Microseconds)
	if capacity != nil {
		c := *capacity
		r.Capacity = &c
	}
	// What a bound not reachable failed at: the lowest load that failed
	// (the probe, for a Rate search, only when it is the one step).
	kept := standing(steps)
	var lowest *SearchStep
	for i := range kept {
		st := &kept[i]
		if st.Passed || (s.Target.Vary == sbv1.SearchRate && st.OfferedIOPS == 0 && len(kept) > 1) {
			continue
		}
		if lowest == nil || st.OfferedIOPS < lowest.OfferedIOPS || (st.OfferedIOPS == lowest.OfferedIOPS && st.QueueDepth < lowest.QueueDepth) {
			lowest = st
		}
	}
	if lowest == nil {
		lowest = &kept[0]
	}
	switch outcome {
	case SearchNotReachable:
		r.Message = fmt.Sprintf("%s is not reachable at %s: %s", bound, loadWords(lowest.StepLoad), lowest.Why)
		if s.Target.Vary == sbv1.SearchRate && len(steps) == 1 {
			r.Message = fmt.Sprintf("%s is not reachable: the probe completed %s IOPS", bound, Decimal(lowest.AchievedIOPS, 1))
		}
	case SearchHoldsAtMaximum:
		r.Message = fmt.Sprintf("%s holds at the most this search offers (%s): %s IOPS at %s %s us",
			bound, loadWords(r.Capacity.StepLoad), Decimal(r.Capacity.AchievedIOPS, 0), s.Target.Percentile, Decimal(float64(r.Capacity.AtPercentileNs)/1000, 1))
	default:
		r.Message = fmt.Sprintf("%s IOPS with %s (%s %s us, at %s)",
			Decimal(r.Capacity.AchievedIOPS, 0), bound, s.Target.Percentile, Decimal(float64(r.Capacity.AtPercentileNs)/1000, 1), loadWords(r.Capacity.StepLoad))
		if allPassed(kept[min(1, len(kept)-1):]) && s.Target.Vary == sbv1.SearchQueueDepth {
			r.Message += fmt.Sprintf("; maxSteps (%d) ran out before any depth failed or the largest (%d) was tried: the capacity is at least this", s.Target.MaxSteps, s.LargestQueueDepth())
		}
	}
	return r
}

func loadWords(l sbv1.StepLoad) string {
	if l.OfferedIOPS == 0 {
		return fmt.Sprintf("queue depth %d, unpaced", l.QueueDepth)
	}
	return fmt.Sprintf("%d IOPS offered, queue depth %d", l.OfferedIOPS, l.QueueDepth)
}
