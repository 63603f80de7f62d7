package results

import (
	"math"
	"sort"
	"strconv"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Compare relates the targets to each other, cell by cell, and sums each
// target up: rankings by IOPS and by p99, ratios and overheads against the
// baseline, geometric means of the ratios over cells, peaks and
// price-performance. results maps target names to their results; targets
// without results are left out. The numbers are decimal strings, as status
// needs them.
func Compare(spec *sbv1.StorageBenchmarkSpec, results map[string]*TargetResult) *sbv1.Comparison {
	c := &sbv1.Comparison{Baseline: spec.Baseline}
	var order []string
	for _, t := range spec.Targets {
		if results[t.Name] != nil {
			order = append(order, t.Name)
		}
	}
	type ratios struct{ iops, p99 []float64 }
	perTarget := map[string]*ratios{}
	best := map[string]int32{}
	peakIOPS := map[string]float64{}
	peakBytes := map[string]float64{}

	for _, cell := range spec.Cells() {
		totals := map[string]CellTotals{}
		var present []string
		for _, name := range order {
			if cr := FindCell(results[name], cell.Name); cr != nil {
				totals[name] = cr.Totals()
				present = append(present, name)
				if !cell.IsMetadata() {
					// Operations per second are no IOPS: the peaks
					// (and the price-performance from them) are IO's.
					peakIOPS[name] = math.Max(peakIOPS[name], totals[name].IOPS)
					peakBytes[name] = math.Max(peakBytes[name], totals[name].BytesPerSecond)
				}
			}
		}
		if len(present) == 0 {
			continue
		}
		cc := sbv1.CellComparison{Cell: cell.Name}
		cc.ByIOPS = rank(present, func(n string) float64 { return -totals[n].IOPS })
		cc.ByLatencyP99 = rank(present, func(n string) float64 { return float64(totals[n].Latency.P99) })
		cc.Best = cc.ByIOPS[0]
		best[cc.Best]++
		if base, ok := totals[spec.Baseline]; ok {
			for _, name := range present {
				if name == spec.Baseline {
					continue
				}
				d := baselineDelta(name, totals[name], base)
				cc.VsBaseline = append(cc.VsBaseline, d)
				r := perTarget[name]
				if r == nil {
					r = &ratios{}
					perTarget[name] = r
				}
				r.iops = append(r.iops, ratio(totals[name].IOPS, base.IOPS))
				r.p99 = append(r.p99, ratio(float64(totals[name].Latency.P99), float64(base.Latency.P99)))
			}
		}
		c.Cells = append(c.Cells, cc)
	}

	prices := Prices(spec)
	for _, name := range order {
		s := sbv1.TargetSummary{
			Target:           name,
			BestCells:        best[name],
			PeakIOPS:         Decimal(peakIOPS[name], 1),
			PeakMiBPerSecond: Decimal(peakBytes[name]/(1<<20), 2),
		}
		if r := perTarget[name]; r != nil {
			s.GeomeanIOPSRatio = Decimal(geomean(r.iops), 3)
			s.GeomeanLatencyP99Ratio = Decimal(geomean(r.p99), 3)
		}
		if price, ok := prices[name]; ok && price > 0 {
			s.IOPSPerPrice = Decimal(peakIOPS[name]/price, 2)
			s.MiBPerSecondPerPrice = Decimal(peakBytes[name]/(1<<20)/price, 3)
		}
		c.Targets = append(c.Targets, s)
	}
	c.Searches = compareSearches(spec, order, results)
	return c
}

// compareSearches ranks the targets that ran each search by its capacity.
func compareSearches(spec *sbv1.StorageBenchmarkSpec, order []string, results map[string]*TargetResult) []sbv1.SearchComparison {
	var out []sbv1.SearchComparison
	for _, s := range spec.Searches() {
		capacity := map[string]float64{}
		var present []string
		for _, name := range order {
			if r := FindSearch(results[name], s.Name); r != nil {
				capacity[name] = r.CapacityIOPS()
				present = append(present, name)
			}
		}
		if len(present) == 0 {
			continue
		}
		sc := sbv1.SearchComparison{Search: s.Name, ByCapacity: rank(present, func(n string) float64 { return -capacity[n] })}
		for _, name := range sc.ByCapacity {
			sc.CapacityIOPS = append(sc.CapacityIOPS, Decimal(capacity[name], 1))
		}
		if capacity[sc.ByCapacity[0]] > 0 {
			sc.Best = sc.ByCapacity[0]
		}
		out = append(out, sc)
	}
	return out
}

// baselineDelta relates a target to the baseline in one cell. Overheads
// follow the convention of published replication-overhead tables (seed
// 000): throughput (baseline - target) / baseline, latency
// (target - baseline) / target.
func baselineDelta(name string, t, base CellTotals) sbv1.BaselineDelta {
	ratioOf := func(a, b float64) float64 { return ratio(a, b) }
	overhead := func(a, b float64) float64 {
		if a == 0 {
			return 0
		}
		return (a - b) / a * 100
	}
	pickers := []func(LatencyNs) float64{
		func(l LatencyNs) float64 { return l.Mean },
		func(l LatencyNs) float64 { return float64(l.P50) },
		func(l LatencyNs) float64 { return float64(l.P90) },
		func(l LatencyNs) float64 { return float64(l.P99) },
		func(l LatencyNs) float64 { return float64(l.P999) },
		func(l LatencyNs) float64 { return float64(l.Max) },
	}
	summary := func(f func(a, b float64) float64, places int) sbv1.LatencySummary {
		v := make([]string, len(pickers))
		for i, p := range pickers {
			v[i] = Decimal(f(p(t.Latency), p(base.Latency)), places)
		}
		return sbv1.LatencySummary{Mean: v[0], P50: v[1], P90: v[2], P99: v[3], P999: v[4], Max: v[5]}
	}
	throughputOverhead := 0.0
	if base.BytesPerSecond > 0 {
		throughputOverhead = (base.BytesPerSecond - t.BytesPerSecond) / base.BytesPerSecond * 100
	}
	return sbv1.BaselineDelta{
		Target:                    name,
		IOPSRatio:                 Decimal(ratio(t.IOPS, base.IOPS), 3),
		BytesPerSecondRatio:       Decimal(ratio(t.BytesPerSecond, base.BytesPerSecond), 3),
		ThroughputOverheadPercent: Decimal(throughputOverhead, 2),
		LatencyRatio:              summary(ratioOf, 3),
		LatencyOverheadPercent:    summary(overhead, 2),
	}
}

// rank orders names by key, ascending, keeping spec order on ties.
func rank(names []string, key func(string) float64) []string {
	out := append([]string(nil), names...)
	sort.SliceStable(out, func(a, b int) bool { return key(out[a]) < key(out[b]) })
	return out
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func geomean(v []float64) float64 {
	var sum float64
	n := 0
	for _, x := range v {
		if x > 0 {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(sum / float64(n))
}

// FindCell returns the repetition that stands for a cell on a target, nil
// when the target has no result for it.
func FindCell(tr *TargetResult, name string) *RepetitionResult {
	if tr == nil {
		return nil
	}
	for i := range tr.Cells {
		if tr.Cells[i].Cell.Name == name {
			return tr.Cells[i].Result()
		}
	}
	return nil
}

// Prices are the targets' prices as numbers (all in one currency and
// period, which admission checks).
func Prices(spec *sbv1.StorageBenchmarkSpec) map[string]float64 {
	out := map[string]float64{}
	for _, t := range spec.Targets {
		if t.Price == nil {
			continue
		}
		if v, err := strconv.ParseFloat(t.Price.Amount, 64); err == nil {
			out[t.Name] = v
		}
	}
	return out
}
