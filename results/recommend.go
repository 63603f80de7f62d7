package results

import (
	"fmt"
	"math"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Recommend names the target to use: the cheapest when every candidate has
// a price (ties go to the faster), otherwise the fastest by geometric-mean
// IOPS over all cells. The candidates are the targets that break no
// threshold: a Warn threshold does not fail the run, but a target below
// its bar must not win on price (seed 002's small disk, 8.5 seeks/s, is
// the cheapest). Only when every target breaks one are the candidates
// those that break only Warn thresholds, and the reason says so. A target
// that breaks a Fail threshold is never recommended; nil when none is left.
func Recommend(spec *sbv1.StorageBenchmarkSpec, results map[string]*TargetResult, ev Evaluation) *sbv1.Recommendation {
	prices := Prices(spec)
	qualifier := "meets every threshold"
	if len(spec.Thresholds) == 0 {
		qualifier = "has no thresholds to meet"
	}
	candidates := recommendable(spec, results, func(t string) bool { return !ev.FailingTargets[t] && !ev.WarnedTargets[t] })
	if len(candidates) == 0 {
		qualifier = "breaks only Warn thresholds (every target breaks one; Fail thresholds exclude a target)"
		candidates = recommendable(spec, results, func(t string) bool { return !ev.FailingTargets[t] })
	}
	if len(candidates) == 0 {
		return nil
	}
	allPriced := true
	for _, name := range candidates {
		if _, ok := prices[name]; !ok {
			allPriced = false
		}
	}
	basis, ok := searchBasis(candidates, results)
	if !ok {
		basis = speedBasis(candidates, results)
	}
	speed := map[string]float64{}
	for _, name := range candidates {
		var iops []float64
		for _, c := range results[name].Cells {
			if rep := c.Result(); rep != nil && basis.counts(&c) {
				iops = append(iops, rep.TotalIOPS())
			}
		}
		for i := range results[name].Searches {
			if r := &results[name].Searches[i]; basis.searches[r.Search] {
				// a bound no load met counts as 1 IOPS: the geometric
				// mean must not skip it, as it skips nothing else
				iops = append(iops, max(r.CapacityIOPS(), 1))
			}
		}
		speed[name] = geomean(iops)
	}
	pick := candidates[0]
	for _, name := range candidates[1:] {
		better := speed[name] > speed[pick]
		if allPriced {
			better = prices[name] < prices[pick] || prices[name] == prices[pick] && speed[name] > speed[pick]
		}
		if better {
			pick = name
		}
	}
	reason := fmt.Sprintf("fastest target that %s: geometric mean of %.0f %s over %s", qualifier, speed[pick], basis.unit, basis.over)
	if allPriced {
		t := targetByName(spec, pick)
		reason = fmt.Sprintf("cheapest target that %s: %s %s per %s, %.0f %s (geometric mean over %s), %.1f %s per %s",
			qualifier, t.Price.Amount, t.Price.Currency, t.Price.Period, speed[pick], basis.unit, basis.over, speed[pick]/math.Max(prices[pick], 1e-9), basis.unit, t.Price.Currency)
	}
	if left := warnedOut(spec, results, ev); qualifier == "meets every threshold" && left != "" {
		reason += "; left out for breaking a Warn threshold: " + left
	}
	return &sbv1.Recommendation{Target: pick, Reason: truncateMessage(reason)}
}

// warnedOut lists, in spec order, the targets with results that only a
// Warn threshold kept from the recommendation.
func warnedOut(spec *sbv1.StorageBenchmarkSpec, results map[string]*TargetResult, ev Evaluation) string {
	var names []string
	for _, t := range spec.Targets {
		if results[t.Name] != nil && ev.WarnedTargets[t.Name] && !ev.FailingTargets[t.Name] {
			names = append(names, t.Name)
		}
	}
	return strings.Join(names, ", ")
}

func targetByName(spec *sbv1.StorageBenchmarkSpec, name string) *sbv1.Target {
	for i := range spec.Targets {
		if spec.Targets[i].Name == name {
			return &spec.Targets[i]
		}
	}
	return nil
}

// recommendable lists, in spec order, the targets with results that pass.
func recommendable(spec *sbv1.StorageBenchmarkSpec, results map[string]*TargetResult, pass func(string) bool) []string {
	var out []string
	for _, t := range spec.Targets {
		if results[t.Name] != nil && pass(t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}

// basis is which cells the recommendation's speed is the geometric mean
// of, in what unit, said how.
type basis struct {
	cells    map[string]bool // nil: each candidate's own cells
	searches map[string]bool // set: the capacities of these searches, and no cell
	io       bool            // IO cells (IOPS), else metadata (operations per second)
	unit     string
	over     string
}

func (b basis) counts(c *CellResult) bool {
	if b.searches != nil || c.Cell.IsMetadata() == b.io {
		return false
	}
	return b.cells == nil || b.cells[c.Cell.Name]
}

// speedBasis compares like with like: the IO cells every candidate ran
// (groups restricted to some targets would otherwise weigh unlike sets),
// else the metadata cells every candidate ran (a metadata-only benchmark),
// else, when no cell ran on every candidate, each one's own cells.
func speedBasis(candidates []string, results map[string]*TargetResult) basis {
	count := map[string]int{}
	metadata := map[string]bool{}
	for _, name := range candidates {
		for _, c := range results[name].Cells {
			if c.Result() != nil {
				count[c.Cell.Name]++
				metadata[c.Cell.Name] = c.Cell.IsMetadata()
			}
		}
	}
	for _, io := range []bool{true, false} {
		common := map[string]bool{}
		for cell, n := range count {
			if n == len(candidates) && metadata[cell] != io {
				common[cell] = true
			}
		}
		if len(common) == 0 {
			continue
		}
		b := basis{cells: common, io: io, unit: "IOPS", over: fmt.Sprintf("the %d IO cells every candidate ran", len(common))}
		if !io {
			b.unit, b.over = "operations per second", fmt.Sprintf("the %d metadata cells every candidate ran", len(common))
		}
		if len(candidates) == 1 {
			b.over = strings.Replace(b.over, "every candidate ran", "it ran", 1)
		}
		return b
	}
	io := false
	for _, m := range metadata {
		io = io || !m
	}
	b := basis{io: io, unit: "IOPS", over: "each candidate's own IO cells (no cell ran on every candidate)"}
	if !io {
		b.unit, b.over = "operations per second", "each candidate's own metadata cells (no cell ran on every candidate)"
	}
	return b
}

// searchBasis is the capacities of the searches every candidate ran, when
// there are any: the answer a search gives (the most IOPS within the
// latency bound) is what the user asked to compare, so it decides over
// the cells' IOPS.
func searchBasis(candidates []string, results map[string]*TargetResult) (basis, bool) {
	count := map[string]int{}
	for _, name := range candidates {
		for _, r := range results[name].Searches {
			count[r.Search]++
		}
	}
	common := map[string]bool{}
	for search, n := range count {
		if n == len(candidates) {
			common[search] = true
		}
	}
	if len(common) == 0 {
		return basis{}, false
	}
	over := fmt.Sprintf("the capacities of the %d searches every candidate ran", len(common))
	if len(candidates) == 1 {
		over = fmt.Sprintf("the capacities of the %d searches it ran", len(common))
	}
	return basis{searches: common, io: true, unit: "IOPS within the latency bound", over: over}, true
}
