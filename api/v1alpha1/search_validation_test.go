package v1alpha1

import (
	"strings"
	"testing"
)

func searchSpec() StorageBenchmarkSpec {
	s := validSpec()
	s.Workloads = append(s.Workloads, WorkloadGroup{
		Name: "knee", BlockSizes: quantities("4Ki", "64Ki"), ReadPercents: []int32{100, 70}, QueueDepths: []int32{8, 32},
		LatencyTarget: &LatencyTarget{Microseconds: 2000},
	})
	return s
}

func TestASearchGroupHasSearchesAndNoCells(t *testing.T) {
	s := searchSpec()
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	if n := len(s.Workloads[1].Cells()); n != 0 {
		t.Fatalf("a search group has %d matrix cells", n)
	}
	var names []string
	for _, search := range s.Searches() {
		names = append(names, search.Name)
		if search.Base.QueueDepth != 32 || search.Base.NumJobs != 1 || search.Base.RateIOPS != 0 {
			t.Errorf("search %s: base %+v, want the largest queue depth, one job, unpaced", search.Name, search.Base)
		}
		if search.Target.Percentile != PercentileP99 || search.Target.Vary != SearchRate || search.Target.MaxSteps != DefaultSearchSteps {
			t.Errorf("search %s: defaults not resolved: %+v", search.Name, search.Target)
		}
	}
	if got := strings.Join(names, ","); got != "knee-bs4k-r100,knee-bs4k-r70,knee-bs64k-r100,knee-bs64k-r70" {
		t.Fatalf("searches %s", got)
	}
}

func TestAStepSplitsItsRateOverEveryJobOfEveryClient(t *testing.T) {
	spec := searchSpec()
	s := spec.Searches()[0]
	c := s.Step(3, StepLoad{OfferedIOPS: 10001, QueueDepth: 32}, 4)
	if c.Name != "knee-bs4k-r100-s3" || c.RateIOPS != 2500 || c.OfferedIOPS(4) != 10000 || c.QueueDepth != 32 {
		t.Fatalf("step %+v (offers %d)", c, c.OfferedIOPS(4))
	}
	if SearchNameOf(&c) != s.Name {
		t.Fatalf("step %s belongs to %s, not %s", c.Name, SearchNameOf(&c), s.Name)
	}
	if low := s.Step(1, StepLoad{OfferedIOPS: 2, QueueDepth: 1}, 4); low.RateIOPS != 1 {
		t.Fatalf("a rate below one IO per job must give each job 1, got %d", low.RateIOPS)
	}
}

func TestValidateRefusesSearchesUsedAsMatrices(t *testing.T) {
	minimum := int64(1000)
	cases := map[string]struct {
		mutate    func(*StorageBenchmarkSpec)
		wantField string
		wantText  string
	}{
		"a cell threshold on a search": {
			mutate:    func(s *StorageBenchmarkSpec) { s.Thresholds = []Threshold{{Workload: "knee", MinIOPS: &minimum}} },
			wantField: "spec.thresholds[0].workload",
			wantText:  "is a capacity search (it has a latencyTarget): judge it with minIOPSAtLatency",
		},
		"a capacity threshold on a matrix": {
			mutate:    func(s *StorageBenchmarkSpec) { s.Thresholds = []Threshold{{Workload: "w", MinIOPSAtLatency: &minimum}} },
			wantField: "spec.thresholds[0].minIOPSAtLatency",
			wantText:  `judges a search, and workload "w" has no latencyTarget`,
		},
		"a search selected by queue depth": {
			mutate: func(s *StorageBenchmarkSpec) {
				qd := int32(8)
				s.Thresholds = []Threshold{{Workload: "knee", MinIOPSAtLatency: &minimum, Match: &CellMatch{QueueDepth: &qd}}}
			},
			wantField: "spec.thresholds[0].match",
			wantText:  `workload "knee" is a search: select its searches by blockSize and readPercent only`,
		},
		"a match no search has": {
			mutate: func(s *StorageBenchmarkSpec) {
				read := int32(50)
				s.Thresholds = []Threshold{{Workload: "knee", MinIOPSAtLatency: &minimum, Match: &CellMatch{ReadPercent: &read}}}
			},
			wantField: "spec.thresholds[0].match",
			wantText:  `selects no search of workload "knee", whose searches are: knee-bs4k-r100, knee-bs4k-r70, knee-bs64k-r100, knee-bs64k-r70`,
		},
		"a group concurrent with a search": {
			mutate:    func(s *StorageBenchmarkSpec) { s.Workloads[0].ConcurrentWith = "knee" },
			wantField: "spec.workloads[0].concurrentWith",
			wantText:  `workload "knee" has a latencyTarget: its steps run alone`,
		},
		"block sizes of equal value give duplicate searches": {
			mutate:    func(s *StorageBenchmarkSpec) { s.Workloads[1].BlockSizes = quantities("4Ki", "4096") },
			wantField: "spec.workloads[1].blockSizes",
			wantText:  "knee-bs4k-r100",
		},
		"data smaller than a search's block": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Dataset.SizePerClient = "1Mi"
				s.Workloads[1].BlockSizes = quantities("2Mi")
			},
			wantField: "spec.dataset.sizePerClient",
			wantText:  "smaller than one block of cell knee-bs2m-r100",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := searchSpec()
			tc.mutate(&s)
			errs := s.Validate()
			for _, e := range errs {
				if e.Field == tc.wantField && strings.Contains(e.Error(), tc.wantText) {
					return
				}
			}
			t.Fatalf("no error on %s containing %q in %v", tc.wantField, tc.wantText, errs)
		})
	}
}
