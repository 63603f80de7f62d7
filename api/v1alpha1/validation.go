package v1alpha1

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
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

	errs = append(errs, s.validateThresholdSelections(cellsByGroup)...)
	errs = append(errs, s.validateMetadataTargets()...)
	errs = append(errs, s.validateGroupTargets()...)
	errs = append(errs, s.validateSearches()...)
	errs = append(errs, s.validateVerify()...)

	files := int64(s.Dataset.FilesPerClient)
	if files < 1 {
		files = 1
	}
	perFile := s.Dataset.SizePerClient.Bytes() / files
	for _, c := range s.cellsAndSearchBases() {
		if perFile < c.MaxBlockSizeBytes() {
			errs = append(errs, field.Invalid(field.NewPath("spec", "dataset", "sizePerClient"), string(s.Dataset.SizePerClient),
				fmt.Sprintf("each of the %d files per client (%d bytes) is smaller than one block of cell %s (%d bytes)",
					files, perFile, c.Name, c.MaxBlockSizeBytes())))
			break
		}
		// A cell's jobs each work on their own part of every file.
		if jobs := int64(max(c.NumJobs, 1)); !c.IsMetadata() && perFile/jobs < c.MaxBlockSizeBytes() {
			errs = append(errs, field.Invalid(field.NewPath("spec", "dataset", "sizePerClient"), string(s.Dataset.SizePerClient),
				fmt.Sprintf("each of the %d files per client (%d bytes) split among the %d jobs of cell %s leaves %d bytes per job, less than one block (%d bytes): each job works on its own part",
					files, perFile, jobs, c.Name, perFile/jobs, c.MaxBlockSizeBytes())))
			break
		}
	}
	return errs
}

// validateThresholdSelections rejects thresholds that can never judge
// anything: a match no cell of the workload has, or a regression threshold
// limited to the baseline it compares with. Found only after the run, they
// would make the verdict Inconclusive for a reason known at admission. The
// CRD's CEL rules refuse the same specs; this says which value is missing.
func (s *StorageBenchmarkSpec) validateThresholdSelections(cellsByGroup map[string][]Cell) field.ErrorList {
	var errs field.ErrorList
	for i := range s.Thresholds {
		t := &s.Thresholds[i]
		path := field.NewPath("spec", "thresholds").Index(i)
		cells, ok := cellsByGroup[t.Workload]
		if !ok || s.Workload(t.Workload).IsSearch() {
			continue // admission names the unknown workload; validateSearches judges searches
		}
		if t.Match != nil && !t.Match.selectsAny(cells) {
			errs = append(errs, field.Invalid(path.Child("match"), t.Match.String(),
				fmt.Sprintf("selects no cell of workload %q, whose cells are: %s", t.Workload, cellNames(cells))))
		}
		if t.ComparesWithBaseline() && len(t.Targets) > 0 {
			others := 0
			for _, n := range t.Targets {
				if n != s.Baseline {
					others++
				}
			}
			if others == 0 {
				errs = append(errs, field.Invalid(path.Child("targets"), t.Targets,
					fmt.Sprintf("names only the baseline %q, which a maxRegression threshold compares the other targets with", s.Baseline)))
			}
		}
	}
	return errs
}

func (m *CellMatch) selectsAny(cells []Cell) bool {
	for i := range cells {
		if m.Matches(&cells[i]) {
			return true
		}
	}
	return false
}

// Matches reports whether a cell has every parameter the match names.
func (m *CellMatch) Matches(c *Cell) bool {
	switch {
	case m.BlockSize != nil && !c.DoesBlockSize(m.BlockSize.Bytes()):
		return false
	case m.ReadPercent != nil && *m.ReadPercent != c.ReadPercent:
		return false
	case m.QueueDepth != nil && *m.QueueDepth != c.QueueDepth:
		return false
	case m.NumJobs != nil && *m.NumJobs != c.NumJobs:
		return false
	case m.Operation != nil && (c.Metadata == nil || c.Metadata.Operation != *m.Operation):
		return false
	}
	return true
}

// validateMetadataTargets refuses Metadata workloads on Block targets (file
// operations need a file system) and operation orders that would time
// something else than they say.
func (s *StorageBenchmarkSpec) validateMetadataTargets() field.ErrorList {
	var errs field.ErrorList
	for i := range s.Workloads {
		w := &s.Workloads[i]
		if w.Metadata == nil {
			continue
		}
		for k := range s.Targets {
			if s.Targets[k].VolumeMode == corev1.PersistentVolumeBlock && w.RunsOn(s.Targets[k].Name) {
				errs = append(errs, field.Invalid(field.NewPath("spec", "targets").Index(k).Child("volumeMode"), "Block",
					fmt.Sprintf("the Metadata workload %q creates and deletes files, which needs a file system: use volumeMode Filesystem for target %q, or leave it out of the workload's targets", w.Name, s.Targets[k].Name)))
			}
		}
		if err := createAfterLayout(w.Metadata.Operations); err != "" {
			errs = append(errs, field.Invalid(field.NewPath("spec", "workloads").Index(i).Child("metadata", "operations"), w.Metadata.Operations, err))
		}
	}
	return errs
}

// createAfterLayout explains why a Create cannot come where it is: after a
// Stat, Open or Rename with no Delete between, the names exist (those
// operations lay missing ones out), so the Create would time opens of
// existing files.
func createAfterLayout(ops []MetadataOperation) string {
	var made MetadataOperation
	for _, op := range ops {
		switch op {
		case MetadataStat, MetadataOpen, MetadataRename:
			if made == "" {
				made = op
			}
		case MetadataDelete:
			made = ""
		case MetadataCreate:
			if made != "" {
				return fmt.Sprintf("Create after %s would time opens of the files %s made (an operation that needs files makes them when no Create did): put Create first, or Delete between", made, made)
			}
		}
	}
	return ""
}

// String renders the match as its fields, for messages.
func (m *CellMatch) String() string {
	var parts []string
	if m.BlockSize != nil {
		parts = append(parts, "blockSize="+string(*m.BlockSize))
	}
	if m.ReadPercent != nil {
		parts = append(parts, fmt.Sprintf("readPercent=%d", *m.ReadPercent))
	}
	if m.QueueDepth != nil {
		parts = append(parts, fmt.Sprintf("queueDepth=%d", *m.QueueDepth))
	}
	if m.NumJobs != nil {
		parts = append(parts, fmt.Sprintf("numJobs=%d", *m.NumJobs))
	}
	if m.Operation != nil {
		parts = append(parts, "operation="+string(*m.Operation))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func cellNames(cells []Cell) string {
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// runsBeyond reports whether a group runs on some target but one.
func runsBeyond(w *WorkloadGroup, one string) bool {
	for _, t := range w.Targets {
		if t != one {
			return true
		}
	}
	return false
}

// Workload is the workload group of that name, or nil.
func (s *StorageBenchmarkSpec) Workload(name string) *WorkloadGroup {
	for i := range s.Workloads {
		if s.Workloads[i].Name == name {
			return &s.Workloads[i]
		}
	}
	return nil
}

// validateGroupTargets checks workloads[].targets against what needs the
// targets: every target must run some cell, partners of concurrentWith run
// on the same targets (they share slots), a threshold's targets must run
// its workload, and a maxRegression threshold's workload must run on the
// baseline it compares with.
func (s *StorageBenchmarkSpec) validateGroupTargets() field.ErrorList {
	var errs field.ErrorList
	for i := range s.Targets {
		runs := false
		for k := range s.Workloads {
			runs = runs || s.Workloads[k].RunsOn(s.Targets[i].Name)
		}
		if !runs {
			errs = append(errs, field.Invalid(field.NewPath("spec", "targets").Index(i).Child("name"), s.Targets[i].Name,
				"no workload group runs on this target: every group's targets leave it out"))
		}
	}
	for i := range s.Workloads {
		w := &s.Workloads[i]
		partner := s.Workload(w.ConcurrentWith)
		if w.ConcurrentWith == "" || partner == nil {
			continue
		}
		if s.TargetExecution == TargetsParallel {
			continue // linked targets share one timetable (LinksTargets)
		}
		for _, t := range s.Targets {
			if w.RunsOn(t.Name) != partner.RunsOn(t.Name) {
				errs = append(errs, field.Invalid(field.NewPath("spec", "workloads").Index(i).Child("targets"), w.Targets,
					fmt.Sprintf("runs cell by cell with %q, so both must run on the same targets (target %q runs only one of them), unless targetExecution is Parallel, which runs targets side by side", w.ConcurrentWith, t.Name)))
				break
			}
		}
	}
	for i := range s.Thresholds {
		th := &s.Thresholds[i]
		w := s.Workload(th.Workload)
		if w == nil {
			continue // admission names the unknown workload
		}
		path := field.NewPath("spec", "thresholds").Index(i)
		for _, t := range th.Targets {
			if !w.RunsOn(t) {
				errs = append(errs, field.Invalid(path.Child("targets"), t,
					fmt.Sprintf("workload %q does not run on target %q (its targets: %s)", th.Workload, t, strings.Join(w.Targets, ", "))))
			}
		}
		if th.ComparesWithBaseline() && s.Baseline != "" && !w.RunsOn(s.Baseline) {
			errs = append(errs, field.Invalid(path.Child("maxRegression"), th.Workload,
				fmt.Sprintf("compares with the baseline %q, which workload %q does not run on", s.Baseline, th.Workload)))
		}
		if th.ComparesWithBaseline() && s.Baseline != "" && len(w.Targets) > 0 && !runsBeyond(w, s.Baseline) {
			errs = append(errs, field.Invalid(path.Child("maxRegression"), th.Workload,
				fmt.Sprintf("workload %q runs only on the baseline %q: a maxRegression threshold would have no target to compare with it", th.Workload, s.Baseline)))
		}
	}
	return errs
}
