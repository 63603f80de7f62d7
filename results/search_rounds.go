package results

import (
	"fmt"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// SearchProgress is one search on one target between rounds: the steps it
// has run and, once it is over, its result. The steps alone decide what
// comes next (NextSearchStep), so progress stored between rounds resumes
// where it stopped.
type SearchProgress struct {
	Search sbv1.Search  `json:"search"`
	Steps  []SearchStep `json:"steps,omitempty"`
	// Result is set once the search is over; not stored (the steps decide
	// it again).
	Result *SearchResult `json:"-"`
}

// NewSearchProgress starts every search with no step run.
func NewSearchProgress(searches []sbv1.Search) []SearchProgress {
	out := make([]SearchProgress, len(searches))
	for i := range searches {
		out[i] = SearchProgress{Search: searches[i]}
	}
	return out
}

// NextSearchRound decides every search that is not over: the cells of the
// next round, one step per search still running, in the searches' order.
// None means every search is over and has its result.
func NextSearchRound(ps []SearchProgress, clients int32) []sbv1.Cell {
	var cells []sbv1.Cell
	for i := range ps {
		p := &ps[i]
		if p.Result != nil {
			continue
		}
		load, result := NextSearchStep(&p.Search, searchJobs(&p.Search, clients), p.Steps)
		if result != nil {
			p.Result = result
			continue
		}
		cells = append(cells, p.Search.Step(len(p.Steps)+1, *load, clients))
	}
	return cells
}

// FoldSearchRound adds the steps of a merged round to the searches they
// belong to: each running search's next step must be in the round.
func FoldSearchRound(ps []SearchProgress, clients int32, cells []sbv1.Cell, round *TargetResult) error {
	merged := map[string]*RepetitionResult{}
	for i := range round.Cells {
		merged[round.Cells[i].Cell.Name] = round.Cells[i].Result()
	}
	byName := map[string]*SearchProgress{}
	for i := range ps {
		byName[ps[i].Search.Name] = &ps[i]
	}
	for _, c := range cells {
		p := byName[sbv1.SearchNameOf(&c)]
		if p == nil {
			return fmt.Errorf("step %s belongs to no search of the target", c.Name)
		}
		rep := merged[c.Name]
		if rep == nil {
			return fmt.Errorf("search %s: the round has no result for step %s", p.Search.Name, c.Name)
		}
		load := sbv1.StepLoad{OfferedIOPS: c.OfferedIOPS(clients), QueueDepth: c.QueueDepth}
		p.Steps = append(p.Steps, NewSearchStep(&p.Search, load, c.Name, rep))
	}
	return nil
}

// searchJobs is how many jobs a search's rate is split over on a target.
func searchJobs(s *sbv1.Search, clients int32) int64 {
	return int64(max(s.Base.NumJobs, 1)) * int64(max(clients, 1))
}

// SearchResults are the results of searches that are over, in order.
func SearchResults(ps []SearchProgress) []SearchResult {
	var out []SearchResult
	for _, p := range ps {
		if p.Result != nil {
			out = append(out, *p.Result)
		}
	}
	return out
}

// AddRound folds what a round says about the target as a whole into its
// result: the largest start skew, the backends, the slowest data layout.
// The round's cells are search steps: FoldSearchRound keeps them.
func (tr *TargetResult) AddRound(round *TargetResult) {
	tr.StartSkewMicroseconds = max(tr.StartSkewMicroseconds, round.StartSkewMicroseconds)
	tr.Timings.PrepareMilliseconds = max(tr.Timings.PrepareMilliseconds, round.Timings.PrepareMilliseconds)
	seen := map[string]bool{}
	for _, b := range tr.Backends {
		seen[b] = true
	}
	for _, b := range round.Backends {
		if !seen[b] {
			tr.Backends = append(tr.Backends, b)
			seen[b] = true
		}
	}
	if tr.EngineVersion == "" {
		tr.EngineVersion = round.EngineVersion
	}
	if len(tr.ClientSummaries) == 0 {
		tr.ClientSummaries = round.ClientSummaries
	}
}
