package results

import (
	"fmt"
	"math"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Recommend names the target to use: among those that break no Fail
// threshold, the cheapest when every candidate has a price (ties go to the
// faster), otherwise the fastest by geometric-mean IOPS over all cells. It
// returns nil when no target qualifies.
func Recommend(spec *sbv1.StorageBenchmarkSpec, results map[string]*TargetResult, ev Evaluation) *sbv1.Recommendation {
	prices := Prices(spec)
	var candidates []string
	allPriced := true
	for _, t := range spec.Targets {
		if results[t.Name] == nil || ev.FailingTargets[t.Name] {
			continue
		}
		candidates = append(candidates, t.Name)
		if _, ok := prices[t.Name]; !ok {
			allPriced = false
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	speed := map[string]float64{}
	for _, name := range candidates {
		var iops []float64
		for _, c := range results[name].Cells {
			if rep := c.Result(); rep != nil {
				iops = append(iops, rep.TotalIOPS())
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
	qualifier := "meets every threshold"
	if len(spec.Thresholds) == 0 {
		qualifier = "has no thresholds to meet"
	}
	reason := fmt.Sprintf("fastest target that %s: geometric mean of %.0f IOPS over its %d cells", qualifier, speed[pick], len(results[pick].Cells))
	if allPriced {
		t := targetByName(spec, pick)
		reason = fmt.Sprintf("cheapest target that %s: %s %s per %s, %.0f IOPS (geometric mean over its cells), %.1f IOPS per %s",
			qualifier, t.Price.Amount, t.Price.Currency, t.Price.Period, speed[pick], speed[pick]/math.Max(prices[pick], 1e-9), t.Price.Currency)
	}
	return &sbv1.Recommendation{Target: pick, Reason: truncateMessage(reason)}
}

func targetByName(spec *sbv1.StorageBenchmarkSpec, name string) *sbv1.Target {
	for i := range spec.Targets {
		if spec.Targets[i].Name == name {
			return &spec.Targets[i]
		}
	}
	return nil
}
