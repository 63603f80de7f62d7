package v1alpha1

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

func validSpec() StorageBenchmarkSpec {
	return StorageBenchmarkSpec{
		Workloads: []WorkloadGroup{{Name: "w", BlockSizes: quantities("4Ki"), ReadPercents: []int32{100}}},
		Dataset:   Dataset{SizePerClient: "1Gi", FilesPerClient: 1},
	}
}

func TestValidateAcceptsAPlainSpec(t *testing.T) {
	s := validSpec()
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
}

func TestValidateRejectsWhatAdmissionCannotSee(t *testing.T) {
	cases := map[string]struct {
		mutate    func(*StorageBenchmarkSpec)
		wantField string
		wantText  string
	}{
		"block sizes of equal value give duplicate cells": {
			mutate:    func(s *StorageBenchmarkSpec) { s.Workloads[0].BlockSizes = quantities("4Ki", "4096") },
			wantField: "spec.workloads[0].blockSizes",
			wantText:  "w-bs4k-r100-qd32-j1",
		},
		"verify with a block size range": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Dataset.Verify = VerifyMD5
				s.Workloads = append(s.Workloads, WorkloadGroup{Name: "ranged", BlockSizeRange: &BlockSizeRange{Min: "4Ki", Max: "64Ki"}, ReadPercents: []int32{0}})
			},
			wantField: "spec.dataset.verify",
			wantText:  "cell ranged-bs4k-64k-r0-qd32-j1 has a block size range (4096-65536 bytes): verification needs fixed block sizes",
		},
		"verify with a ledger too large": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Dataset.Verify = VerifyCRC32C
				s.Dataset.SizePerClient = "1Ti"
			},
			wantField: "spec.dataset.verify",
			wantText:  "needs a ledger of 512 MiB per client, more than 256 MiB",
		},
		"verify with a block size that is not whole headers": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Dataset.Verify = VerifyCRC32C
				s.Workloads[0].BlockSizes = quantities("4Ki", "6Ki")
			},
			wantField: "spec.dataset.verify",
			wantText:  "cell w-bs6k-r100-qd32-j1's block size 6144 bytes is not a multiple of the smallest block size 4096 bytes",
		},
		"a target no group runs on": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Targets = []Target{{Name: "ssd"}, {Name: "nfs"}}
				s.Workloads[0].Targets = []string{"nfs"}
			},
			wantField: "spec.targets[0].name",
			wantText:  "no workload group runs on this target",
		},
		"concurrent groups on different targets": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Targets = []Target{{Name: "ssd"}, {Name: "nfs"}}
				s.Workloads = append(s.Workloads, WorkloadGroup{Name: "writer", BlockSizes: quantities("8Ki"), ReadPercents: []int32{0}, ConcurrentWith: "w", Targets: []string{"nfs"}})
			},
			wantField: "spec.workloads[1].targets",
			wantText:  `runs cell by cell with "w", so both must run on the same targets (target "ssd" runs only one of them)`,
		},
		"a threshold on a target its workload skips": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Targets = []Target{{Name: "ssd"}, {Name: "nfs"}}
				s.Workloads = append(s.Workloads, WorkloadGroup{Name: "nfs-only", BlockSizes: quantities("8Ki"), ReadPercents: []int32{0}, Targets: []string{"nfs"}})
				s.Thresholds = []Threshold{{Workload: "nfs-only", Targets: []string{"ssd"}, MinIOPS: new(int64)}}
			},
			wantField: "spec.thresholds[0].targets",
			wantText:  `workload "nfs-only" does not run on target "ssd" (its targets: nfs)`,
		},
		"a regression threshold whose workload skips the baseline": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Targets = []Target{{Name: "ssd"}, {Name: "nfs"}}
				s.Baseline = "ssd"
				s.Workloads = append(s.Workloads, WorkloadGroup{Name: "nfs-only", BlockSizes: quantities("8Ki"), ReadPercents: []int32{0}, Targets: []string{"nfs"}})
				s.Thresholds = []Threshold{{Workload: "nfs-only", MaxRegression: &Regression{Percent: 10}}}
			},
			wantField: "spec.thresholds[0].maxRegression",
			wantText:  `compares with the baseline "ssd", which workload "nfs-only" does not run on`,
		},
		"a regression threshold whose workload runs only on the baseline": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Targets = []Target{{Name: "ssd"}, {Name: "nfs"}}
				s.Baseline = "ssd"
				s.Workloads = append(s.Workloads, WorkloadGroup{Name: "ssd-only", BlockSizes: quantities("8Ki"), ReadPercents: []int32{0}, Targets: []string{"ssd"}})
				s.Thresholds = []Threshold{{Workload: "ssd-only", MaxRegression: &Regression{Percent: 10}}}
			},
			wantField: "spec.thresholds[0].maxRegression",
			wantText:  `workload "ssd-only" runs only on the baseline "ssd": a maxRegression threshold would have no target to compare with it`,
		},
		"concurrent groups with different cell counts": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Workloads[0].ReadPercents = []int32{100, 0}
				s.Workloads = append(s.Workloads, WorkloadGroup{Name: "writer", BlockSizes: quantities("8Ki"), ReadPercents: []int32{0}, ConcurrentWith: "w"})
			},
			wantField: "spec.workloads[1].concurrentWith",
			wantText:  "same number of cells (1 here, 2 there)",
		},
		"a threshold matching a read mix no cell has": {
			mutate: func(s *StorageBenchmarkSpec) {
				fifty := int32(50)
				s.Thresholds = []Threshold{{Workload: "w", Match: &CellMatch{ReadPercent: &fifty}, MinIOPS: new(int64)}}
			},
			wantField: "spec.thresholds[0].match",
			wantText:  `{readPercent=50}": selects no cell of workload "w", whose cells are: w-bs4k-r100-qd32-j1`,
		},
		"a threshold matching a block size no cell has": {
			mutate: func(s *StorageBenchmarkSpec) {
				bs := BlockSize("8Ki")
				s.Thresholds = []Threshold{{Workload: "w", Match: &CellMatch{BlockSize: &bs}, MinIOPS: new(int64)}}
			},
			wantField: "spec.thresholds[0].match",
			wantText:  "{blockSize=8Ki}",
		},
		"a regression threshold on the baseline alone": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Baseline = "slow"
				s.Thresholds = []Threshold{{Workload: "w", Targets: []string{"slow"}, MaxRegression: &Regression{Percent: 10}}}
			},
			wantField: "spec.thresholds[0].targets",
			wantText:  `names only the baseline "slow"`,
		},
		"files smaller than a block": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Dataset.SizePerClient = "1Mi"
				s.Dataset.FilesPerClient = 1024
			},
			wantField: "spec.dataset.sizePerClient",
			wantText:  "smaller than one block",
		},
		"jobs whose parts of a file are smaller than a block": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Dataset.SizePerClient = "1Mi"
				s.Dataset.FilesPerClient = 16 // 64 KiB per file
				s.Workloads[0].BlockSizes = quantities("16Ki")
				s.Workloads[0].NumJobs = []int32{8} // 8 KiB per job
			},
			wantField: "spec.dataset.sizePerClient",
			wantText:  "split among the 8 jobs of cell w-bs16k-r100-qd32-j8 leaves 8192 bytes per job, less than one block (16384 bytes)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := validSpec()
			tc.mutate(&s)
			errs := s.Validate()
			if len(errs) != 1 {
				t.Fatalf("want one error, got %v", errs)
			}
			if errs[0].Field != tc.wantField || !strings.Contains(errs[0].Error(), tc.wantText) {
				t.Fatalf("got %q on %s, want %q on %s", errs[0].Error(), errs[0].Field, tc.wantText, tc.wantField)
			}
		})
	}
}

func TestValidateAcceptsThresholdsThatSelectCells(t *testing.T) {
	s := validSpec()
	s.Workloads[0].ReadPercents = []int32{100, 0}
	s.Workloads[0].QueueDepths = []int32{1, 32}
	bs, write, qd := BlockSize("4096"), int32(0), int32(32)
	s.Baseline = "slow"
	s.Thresholds = []Threshold{
		{Workload: "w", Match: &CellMatch{BlockSize: &bs, ReadPercent: &write, QueueDepth: &qd}, MinIOPS: new(int64)},
		{Workload: "w", Targets: []string{"slow", "fast"}, MaxRegression: &Regression{Percent: 10}},
	}
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
}

func TestAThresholdSelectsTheRangeCellsThatStepThroughItsBlockSize(t *testing.T) {
	s := validSpec()
	s.Workloads[0].BlockSizes = nil
	s.Workloads[0].BlockSizeRange = &BlockSizeRange{Min: "4Ki", Max: "64Ki", Alignment: ptr.To[BlockSize]("4Ki")}
	for bs, selects := range map[BlockSize]bool{"4Ki": true, "16Ki": true, "64Ki": true, "6Ki": false, "128Ki": false} {
		s.Thresholds = []Threshold{{Workload: "w", Match: &CellMatch{BlockSize: &bs}, MinIOPS: new(int64)}}
		if errs := s.Validate(); (len(errs) == 0) != selects {
			t.Errorf("match.blockSize %s: errors %v, want the range cell selected: %v", bs, errs, selects)
		}
	}
}

// With targetExecution Parallel, concurrentWith may join groups on
// different targets (seed 001's reader of one volume and writer of
// another): they share one timetable.
func TestParallelTargetsMayJoinGroupsAcrossTargets(t *testing.T) {
	s := validSpec()
	s.Targets = []Target{{Name: "ssd"}, {Name: "nfs"}}
	s.TargetExecution = TargetsParallel
	s.Workloads[0].Targets = []string{"ssd"}
	s.Workloads = append(s.Workloads, WorkloadGroup{Name: "writer", BlockSizes: quantities("8Ki"), ReadPercents: []int32{0}, ConcurrentWith: "w", Targets: []string{"nfs"}})
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	if !s.LinksTargets() {
		t.Fatal("the targets are not linked")
	}
}
