package v1alpha1

import (
	"strings"
	"testing"
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
		"concurrent groups with different cell counts": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Workloads[0].ReadPercents = []int32{100, 0}
				s.Workloads = append(s.Workloads, WorkloadGroup{Name: "writer", BlockSizes: quantities("8Ki"), ReadPercents: []int32{0}, ConcurrentWith: "w"})
			},
			wantField: "spec.workloads[1].concurrentWith",
			wantText:  "same number of cells (1 here, 2 there)",
		},
		"files smaller than a block": {
			mutate: func(s *StorageBenchmarkSpec) {
				s.Dataset.SizePerClient = "1Mi"
				s.Dataset.FilesPerClient = 1024
			},
			wantField: "spec.dataset.sizePerClient",
			wantText:  "smaller than one block",
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
