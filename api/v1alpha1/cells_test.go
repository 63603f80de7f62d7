package v1alpha1

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
)

func quantities(values ...string) []BlockSize {
	out := make([]BlockSize, len(values))
	for i, v := range values {
		out[i] = BlockSize(v)
	}
	return out
}

func TestWorkloadGroupCellsAreTheCartesianProductInSpecOrder(t *testing.T) {
	w := WorkloadGroup{
		Name:            "nfs",
		Access:          AccessSequential,
		BlockSizes:      quantities("64Ki", "256Ki"),
		ReadPercents:    []int32{100, 0},
		QueueDepths:     []int32{16},
		NumJobs:         []int32{1, 8},
		DurationSeconds: 30,
		RampSeconds:     ptr.To[int32](5),
		Direct:          ptr.To(true),
	}
	var names []string
	for _, c := range w.Cells() {
		names = append(names, c.Name)
	}
	want := []string{
		"nfs-bs64k-r100-qd16-j1", "nfs-bs64k-r100-qd16-j8",
		"nfs-bs64k-r0-qd16-j1", "nfs-bs64k-r0-qd16-j8",
		"nfs-bs256k-r100-qd16-j1", "nfs-bs256k-r100-qd16-j8",
		"nfs-bs256k-r0-qd16-j1", "nfs-bs256k-r0-qd16-j8",
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("cell names\n got %v\nwant %v", names, want)
	}
}

func TestCellCarriesEveryParameterOfItsGroup(t *testing.T) {
	w := WorkloadGroup{
		Name: "oltp", BlockSizes: quantities("8Ki"), ReadPercents: []int32{70},
		QueueDepths: []int32{3}, NumJobs: []int32{8}, RateIOPS: ptr.To[int32](3200),
		DurationSeconds: 10, RampSeconds: ptr.To[int32](2), Direct: ptr.To(false), SyncWrites: ptr.To(true),
		ConcurrentWith: "reader",
	}
	got := w.Cells()
	want := []Cell{{
		Name: "oltp-bs8k-r70-qd3-j8", Workload: "oltp", Access: AccessRandom, BlockSizeBytes: 8192,
		ReadPercent: 70, QueueDepth: 3, NumJobs: 8, RateIOPS: 3200, DurationSeconds: 10, RampSeconds: 2,
		Direct: false, SyncWrites: true, ConcurrentWith: "reader",
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cells\n got %+v\nwant %+v", got, want)
	}
	if !got[0].Reads() || !got[0].Writes() {
		t.Fatalf("a 70%% read cell both reads and writes")
	}
}

func TestCellsWithoutDefaultsFromTheAPIServerUseTheDocumentedOnes(t *testing.T) {
	// The local runner defaults through the CRD schema, but a spec built in
	// Go (tests, library users) must expand the same way.
	w := WorkloadGroup{Name: "w", BlockSizes: quantities("4Ki"), ReadPercents: []int32{100}}
	c := w.Cells()[0]
	if c.QueueDepth != 32 || c.NumJobs != 1 || c.Access != AccessRandom || !c.Direct || c.SyncWrites {
		t.Fatalf("defaults not applied: %+v", c)
	}
	if c.Reads() != true || c.Writes() != false {
		t.Fatalf("a 100%% read cell only reads: %+v", c)
	}
}

func TestBlockSizeRangeIsOneCellNamedByItsBounds(t *testing.T) {
	w := WorkloadGroup{
		Name:           "bw",
		BlockSizeRange: &BlockSizeRange{Min: "32Ki", Max: "256Ki", Alignment: ptr.To[BlockSize]("32Ki")},
		ReadPercents:   []int32{70, 30},
		QueueDepths:    []int32{8},
		NumJobs:        []int32{1},
	}
	cells := w.Cells()
	if len(cells) != 2 {
		t.Fatalf("want 2 cells, got %d", len(cells))
	}
	c := cells[0]
	if c.Name != "bw-bs32k-256k-r70-qd8-j1" || c.BlockSizeBytes != 0 || c.BlockSizeMinBytes != 32<<10 ||
		c.BlockSizeMaxBytes != 256<<10 || c.BlockAlignmentBytes != 32<<10 || c.MaxBlockSizeBytes() != 256<<10 {
		t.Fatalf("range cell: %+v", c)
	}
}

func TestSpecCellsConcatenatesGroupsInOrder(t *testing.T) {
	s := StorageBenchmarkSpec{Workloads: []WorkloadGroup{
		{Name: "b", BlockSizes: quantities("4Ki"), ReadPercents: []int32{100, 0}},
		{Name: "a", BlockSizes: quantities("1Mi"), ReadPercents: []int32{100}},
	}}
	var names []string
	for _, c := range s.Cells() {
		names = append(names, c.Name)
	}
	want := []string{"b-bs4k-r100-qd32-j1", "b-bs4k-r0-qd32-j1", "a-bs1m-r100-qd32-j1"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("got %v want %v", names, want)
	}
}

func TestFormatBlockSize(t *testing.T) {
	for bytes, want := range map[int64]string{
		512: "512b", 1024: "1k", 1536: "1536b", 4096: "4k", 65536: "64k", 1 << 20: "1m",
		3 << 19: "1536k", 64 << 20: "64m",
	} {
		if got := FormatBlockSize(bytes); got != want {
			t.Errorf("FormatBlockSize(%d) = %q, want %q", bytes, got, want)
		}
	}
}

// A Metadata group runs its operations in order for each numJobs value, on
// the same names; the first starts fresh and the last cleans up.
func TestMetadataGroupCellsAreItsOperationsInOrderPerJobCount(t *testing.T) {
	size := ByteSize("8Ki")
	w := WorkloadGroup{
		Name: "md", Kind: WorkloadMetadata, NumJobs: []int32{1, 4}, DurationSeconds: 10,
		Metadata: &MetadataWorkload{
			Operations:  []MetadataOperation{MetadataCreate, MetadataStat, MetadataDelete},
			FilesPerJob: 500, FileSize: &size, FilesPerDirectory: 100, SharedDirectory: true, Order: MetadataRandom,
		},
	}
	var got []string
	for _, c := range w.Cells() {
		m := c.Metadata
		if m == nil || !c.IsMetadata() || !c.Reads() || c.Writes() || c.MaxBlockSizeBytes() != 0 {
			t.Fatalf("cell %s is not a metadata cell counted as reads: %+v", c.Name, c)
		}
		if m.FilesPerJob != 500 || m.FileSizeBytes != 8192 || m.FilesPerDirectory != 100 || !m.SharedDirectory || !m.RandomOrder || c.DurationSeconds != 10 {
			t.Errorf("cell %s lost the group's settings: %+v", c.Name, m)
		}
		got = append(got, fmt.Sprintf("%s first=%v last=%v", c.Name, m.First, m.Last))
	}
	want := []string{
		"md-create-f500-j1 first=true last=false", "md-stat-f500-j1 first=false last=false", "md-delete-f500-j1 first=false last=true",
		"md-create-f500-j4 first=true last=false", "md-stat-f500-j4 first=false last=false", "md-delete-f500-j4 first=false last=true",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells\n  %v\nwant\n  %v", got, want)
	}
	op := MetadataStat
	if m := (&CellMatch{Operation: &op}); !m.Matches(&w.Cells()[1]) || m.Matches(&w.Cells()[0]) {
		t.Errorf("match.operation selects by operation")
	}
	// Timed by duration, only the operations that can be repeated repeat.
	w.Metadata.TimedBy = MetadataByDuration
	var repeats []bool
	for _, c := range w.Cells()[:3] {
		repeats = append(repeats, c.Metadata.Repeat)
	}
	if !reflect.DeepEqual(repeats, []bool{false, true, false}) {
		t.Errorf("Create, Stat, Delete timed by duration repeat %v, want only Stat", repeats)
	}
}

// Metadata needs a file system: a Block target is refused naming it.
func TestMetadataOnABlockTargetIsRefused(t *testing.T) {
	s := StorageBenchmarkSpec{
		Targets:   []Target{{Name: "raw", VolumeMode: "Block"}, {Name: "fs"}},
		Workloads: []WorkloadGroup{{Name: "md", Kind: WorkloadMetadata, Metadata: &MetadataWorkload{Operations: []MetadataOperation{MetadataCreate}}}},
		Dataset:   Dataset{SizePerClient: "1Gi"},
	}
	errs := s.Validate()
	if len(errs) != 1 || errs[0].Field != "spec.targets[0].volumeMode" || !strings.Contains(errs[0].Error(), `Metadata workload "md" creates and deletes files`) {
		t.Fatalf("errors %v", errs)
	}
	// Kept off the Block target, the group is fine there.
	s.Workloads[0].Targets = []string{"fs"}
	s.Workloads = append(s.Workloads, WorkloadGroup{Name: "io", BlockSizes: quantities("4Ki"), ReadPercents: []int32{100}})
	if errs := s.Validate(); len(errs) != 0 {
		t.Fatalf("a Metadata group that skips the Block target: %v", errs)
	}
}

// A Create after an operation that made the files would time opens.
func TestACreateAfterTheFilesExistIsRefused(t *testing.T) {
	for ops, want := range map[string]string{
		"Create,Stat,Delete":        "",
		"Stat,Delete,Create":        "",
		"Mkdir,Rmdir,Create":        "",
		"Stat,Create":               "Create after Stat would time opens of the files Stat made",
		"Open,Rename,Create,Delete": "Create after Open would time opens",
	} {
		var list []MetadataOperation
		for _, op := range strings.Split(ops, ",") {
			list = append(list, MetadataOperation(op))
		}
		s := StorageBenchmarkSpec{
			Targets:   []Target{{Name: "fs"}},
			Workloads: []WorkloadGroup{{Name: "md", Kind: WorkloadMetadata, Metadata: &MetadataWorkload{Operations: list}}},
			Dataset:   Dataset{SizePerClient: "1Gi"},
		}
		errs := s.Validate()
		switch {
		case want == "" && len(errs) != 0:
			t.Errorf("%s: %v", ops, errs)
		case want != "" && (len(errs) != 1 || errs[0].Field != "spec.workloads[0].metadata.operations" || !strings.Contains(errs[0].Error(), want)):
			t.Errorf("%s: errors %v, want %q", ops, errs, want)
		}
	}
}
