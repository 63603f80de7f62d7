package results

import (
	"fmt"
	"sort"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// maxUnmatched bounds the list of unmatched pairs kept (the API's bound).
const maxUnmatched = 2048

// CompareRuns relates a run's targets to the same targets of another run
// (spec.compareTo, `report --compare`), cell by cell: this run's totals
// against the other's, as against a baseline (ratios this / other,
// overheads as seed 000's tables have them). A pair matches when both runs
// have the same target name and cell name; every other pair is listed as
// unmatched, never paired by guess. source names the other run.
func CompareRuns(spec *sbv1.StorageBenchmarkSpec, results, other map[string]*TargetResult, source string) *sbv1.RunComparison {
	rc := &sbv1.RunComparison{Source: source}
	unmatched := func(which, target, cell string) {
		if len(rc.Unmatched) < maxUnmatched {
			rc.Unmatched = append(rc.Unmatched, fmt.Sprintf("%s: %s/%s", which, target, cell))
		}
	}
	for _, t := range spec.Targets {
		tr := results[t.Name]
		if tr == nil {
			continue
		}
		var iops, p99 []float64
		for i := range tr.Cells {
			cell := &tr.Cells[i]
			rep := cell.Result()
			if rep == nil {
				continue
			}
			theirs := FindCell(other[t.Name], cell.Cell.Name)
			if theirs == nil {
				unmatched("this run", t.Name, cell.Cell.Name)
				continue
			}
			mine, base := rep.Totals(), theirs.Totals()
			rc.Cells = append(rc.Cells, sbv1.RunCellComparison{Cell: cell.Cell.Name, Delta: baselineDelta(t.Name, mine, base)})
			iops = append(iops, ratio(mine.IOPS, base.IOPS))
			p99 = append(p99, ratio(float64(mine.Latency.P99), float64(base.Latency.P99)))
		}
		s := sbv1.RunTargetComparison{Target: t.Name, MatchedCells: int32(len(iops))}
		if len(iops) > 0 {
			s.GeomeanIOPSRatio, s.GeomeanLatencyP99Ratio = Decimal(geomean(iops), 3), Decimal(geomean(p99), 3)
		}
		rc.Targets = append(rc.Targets, s)
	}
	for _, name := range sortedKeys(other) {
		tr := other[name]
		for i := range tr.Cells {
			if FindCell(results[name], tr.Cells[i].Cell.Name) == nil && tr.Cells[i].Result() != nil {
				unmatched("other run", name, tr.Cells[i].Cell.Name)
			}
		}
	}
	return rc
}

// StatusRunComparison is the part of a run comparison status keeps.
func StatusRunComparison(rc *sbv1.RunComparison) *sbv1.RunComparisonSummary {
	if rc == nil {
		return nil
	}
	return &sbv1.RunComparisonSummary{Source: rc.Source, Targets: rc.Targets, UnmatchedCells: int32(len(rc.Unmatched))}
}

func sortedKeys(m map[string]*TargetResult) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
