package v1alpha1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks what the admission rules (OpenAPI markers and CEL) cannot:
// rules that need the expanded matrix or arithmetic on quantities across
// fields. The controller runs it before starting a run, and the local runner
// runs it after applying the CRD's own schema, so both accept the same specs.
func (s *StorageBenchmarkSpec) Validate() field.ErrorList {
	var errs field.ErrorList
	workloads := field.NewPath("spec", "workloads")

	cellsByGroup := map[string][]Cell{}
	seen := map[string]int{}
	for i := range s.Workloads {
		w := &s.Workloads[i]
		cells := w.Cells()
		cellsByGroup[w.Name] = cells
		for _, c := range cells {
			if j, dup := seen[c.Name]; dup {
				errs = append(errs, field.Duplicate(workloads.Index(i).Child("blockSizes"),
					fmt.Sprintf("%s (block sizes of equal value in workloads[%d] and [%d])", c.Name, j, i)))
				continue
			}
			seen[c.Name] = i
		}
	}

	for i := range s.Workloads {
		w := &s.Workloads[i]
		if w.ConcurrentWith == "" {
			continue
		}
		partner, ok := cellsByGroup[w.ConcurrentWith]
		if ok && len(partner) != len(cellsByGroup[w.Name]) {
			errs = append(errs, field.Invalid(workloads.Index(i).Child("concurrentWith"), w.ConcurrentWith,
				fmt.Sprintf("runs cell by cell with %q, so both need the same number of cells (%d here, %d there)",
					w.ConcurrentWith, len(cellsByGroup[w.Name]), len(partner))))
		}
	}

	files := int64(s.Dataset.FilesPerClient)
	if files < 1 {
		files = 1
	}
	perFile := s.Dataset.SizePerClient.Bytes() / files
	for _, c := range s.Cells() {
		if perFile < c.MaxBlockSizeBytes() {
			errs = append(errs, field.Invalid(field.NewPath("spec", "dataset", "sizePerClient"), string(s.Dataset.SizePerClient),
				fmt.Sprintf("each of the %d files per client (%d bytes) is smaller than one block of cell %s (%d bytes)",
					files, perFile, c.Name, c.MaxBlockSizeBytes())))
			break
		}
	}
	return errs
}
