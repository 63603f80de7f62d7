package v1alpha1

import (
	"fmt"
	"strconv"
	"strings"
)

// Cell is one point of a workload group's matrix, with every default
// resolved: what one engine run on one target does.
type Cell struct {
	// Name is unique within a benchmark: <workload>-bs<size>-r<read%>-qd<depth>-j<jobs>.
	Name     string        `json:"name"`
	Workload string        `json:"workload"`
	Access   AccessPattern `json:"access"`
	// BlockSizeBytes is the IO size; zero when the cell draws sizes from
	// BlockSizeMinBytes..BlockSizeMaxBytes.
	BlockSizeBytes      int64 `json:"blockSizeBytes,omitempty"`
	BlockSizeMinBytes   int64 `json:"blockSizeMinBytes,omitempty"`
	BlockSizeMaxBytes   int64 `json:"blockSizeMaxBytes,omitempty"`
	BlockAlignmentBytes int64 `json:"blockAlignmentBytes,omitempty"`
	ReadPercent         int32 `json:"readPercent"`
	QueueDepth          int32 `json:"queueDepth"`
	NumJobs             int32 `json:"numJobs"`
	// RateIOPS caps each job; 0 means unpaced.
	RateIOPS        int32 `json:"rateIOPS,omitempty"`
	DurationSeconds int32 `json:"durationSeconds"`
	RampSeconds     int32 `json:"rampSeconds"`
	Direct          bool  `json:"direct"`
	SyncWrites      bool  `json:"syncWrites"`
	// IOEngine is the engine's --ioengine (io_uring, libaio, psync), empty
	// for the client's default (auto).
	IOEngine string `json:"ioEngine,omitempty"`
	// ConcurrentWith is the workload whose cell of the same index runs at
	// the same time as this one, empty for none.
	ConcurrentWith string `json:"concurrentWith,omitempty"`
	// Metadata is set on the cells of a Metadata group: one operation
	// over the group's names (its IO fields are then unused).
	Metadata *MetadataCell `json:"metadata,omitempty"`
}

// MetadataCell is one operation of a Metadata group, with the group's
// names: what one engine run of a file engine on one client does.
type MetadataCell struct {
	Operation         MetadataOperation `json:"operation"`
	FilesPerJob       int32             `json:"filesPerJob"`
	FileSizeBytes     int64             `json:"fileSizeBytes,omitempty"`
	FilesPerDirectory int32             `json:"filesPerDirectory,omitempty"`
	SharedDirectory   bool              `json:"sharedDirectory,omitempty"`
	RandomOrder       bool              `json:"randomOrder,omitempty"`
	// Repeat passes over the names until the cell's duration has passed
	// (timedBy Duration, for the operations that can be repeated).
	Repeat bool `json:"repeat,omitempty"`
	// First is the group's first operation for its numJobs: the client
	// starts it on a fresh directory. Last is the last: afterwards the
	// names are removed, unless KeepFiles.
	First     bool `json:"first,omitempty"`
	Last      bool `json:"last,omitempty"`
	KeepFiles bool `json:"keepFiles,omitempty"`
}

// OperationsPerName is how many timed operations one visit of a name is
// (a rename goes away and back).
func (m *MetadataCell) OperationsPerName() int64 {
	if m.Operation == MetadataRename {
		return 2
	}
	return 1
}

// IsMetadata reports whether the cell is a metadata operation.
func (c *Cell) IsMetadata() bool { return c.Metadata != nil }

// Cells expands every workload group into its cells, in spec order: groups
// in order, and within a group block sizes, then read percents, then queue
// depths, then job counts, the first list varying slowest. The order is the
// order cells run in, so it is part of the API: results and progress refer
// to it.
func (s *StorageBenchmarkSpec) Cells() []Cell {
	var cells []Cell
	for i := range s.Workloads {
		cells = append(cells, s.Workloads[i].Cells()...)
	}
	return cells
}

// DefaultRampSeconds is rampSeconds when the field is left out.
const DefaultRampSeconds = 5

// Ramp is the group's rampSeconds, the default when it is unset (the API
// server sets it; a spec built in Go may not).
func (w *WorkloadGroup) Ramp() int32 {
	if w.RampSeconds == nil {
		return DefaultRampSeconds
	}
	return *w.RampSeconds
}

// Cells expands one workload group into its cells.
func (w *WorkloadGroup) Cells() []Cell {
	if w.IsSearch() {
		return nil // its steps are chosen as it runs: see Searches
	}
	if w.Metadata != nil {
		return w.metadataCells()
	}
	type size struct{ fixed, min, max, align int64 }
	var sizes []size
	if w.BlockSizeRange != nil {
		align := int64(512)
		if w.BlockSizeRange.Alignment != nil {
			align = w.BlockSizeRange.Alignment.Bytes()
		}
		sizes = append(sizes, size{min: w.BlockSizeRange.Min.Bytes(), max: w.BlockSizeRange.Max.Bytes(), align: align})
	}
	for _, b := range w.BlockSizes {
		sizes = append(sizes, size{fixed: b.Bytes()})
	}
	queueDepths := orDefault(w.QueueDepths, 32)
	numJobs := orDefault(w.NumJobs, 1)
	var cells []Cell
	for _, bs := range sizes {
		for _, read := range w.ReadPercents {
			for _, qd := range queueDepths {
				for _, jobs := range numJobs {
					c := Cell{
						Workload:            w.Name,
						Access:              w.Access,
						BlockSizeBytes:      bs.fixed,
						BlockSizeMinBytes:   bs.min,
						BlockSizeMaxBytes:   bs.max,
						BlockAlignmentBytes: bs.align,
						ReadPercent:         read,
						QueueDepth:          qd,
						NumJobs:             jobs,
						DurationSeconds:     w.DurationSeconds,
						RampSeconds:         w.Ramp(),
						Direct:              w.Direct == nil || *w.Direct,
						SyncWrites:          w.SyncWrites != nil && *w.SyncWrites,
						IOEngine:            w.IOEngine.EngineName(),
						ConcurrentWith:      w.ConcurrentWith,
					}
					if c.Access == "" {
						c.Access = AccessRandom
					}
					if w.RateIOPS != nil {
						c.RateIOPS = *w.RateIOPS
					}
					c.Name = c.name()
					cells = append(cells, c)
				}
			}
		}
	}
	return cells
}

// metadataCells expands a Metadata group: for each numJobs value, its
// operations in order, on the same names.
func (w *WorkloadGroup) metadataCells() []Cell {
	m := w.Metadata
	files := m.FilesPerJob
	if files == 0 {
		files = 1024
	}
	var size int64
	if m.FileSize != nil {
		size = m.FileSize.Bytes()
	}
	var cells []Cell
	for _, jobs := range orDefault(w.NumJobs, 1) {
		for k, op := range m.Operations {
			c := Cell{
				Workload: w.Name, Access: AccessSequential, ReadPercent: 100, QueueDepth: 1, NumJobs: jobs,
				DurationSeconds: w.DurationSeconds,
				Metadata: &MetadataCell{
					Operation: op, FilesPerJob: files, FileSizeBytes: size, FilesPerDirectory: m.FilesPerDirectory,
					SharedDirectory: m.SharedDirectory, RandomOrder: m.Order == MetadataRandom,
					Repeat: m.TimedBy == MetadataByDuration && op.Repeatable(),
					First:  k == 0, Last: k == len(m.Operations)-1, KeepFiles: m.KeepFiles,
				},
			}
			c.Name = fmt.Sprintf("%s-%s-f%d-j%d", w.Name, strings.ToLower(string(op)), files, jobs)
			cells = append(cells, c)
		}
	}
	return cells
}

func orDefault(values []int32, fallback int32) []int32 {
	if len(values) == 0 {
		return []int32{fallback}
	}
	return values
}

// name builds the cell's name from its parameters, short enough for object
// keys and readable in a table: oltp-bs4k-r70-qd8-j1, bw-bs4k-64k-r70-qd8-j1.
func (c *Cell) name() string {
	bs := FormatBlockSize(c.BlockSizeBytes)
	if c.BlockSizeBytes == 0 {
		bs = FormatBlockSize(c.BlockSizeMinBytes) + "-" + FormatBlockSize(c.BlockSizeMaxBytes)
	}
	return fmt.Sprintf("%s-bs%s-r%d-qd%d-j%d", c.Workload, bs, c.ReadPercent, c.QueueDepth, c.NumJobs)
}

// FormatBlockSize writes a size the way fio users write block sizes: 4k is
// 4096 bytes, 1m is 1 MiB; sizes that are not whole KiB keep their bytes.
func FormatBlockSize(bytes int64) string {
	switch {
	case bytes >= 1<<20 && bytes%(1<<20) == 0:
		return strconv.FormatInt(bytes>>20, 10) + "m"
	case bytes >= 1<<10 && bytes%(1<<10) == 0:
		return strconv.FormatInt(bytes>>10, 10) + "k"
	default:
		return strconv.FormatInt(bytes, 10) + "b"
	}
}

// MaxBlockSizeBytes is the largest IO size of the cell.
func (c *Cell) MaxBlockSizeBytes() int64 {
	if c.BlockSizeBytes != 0 {
		return c.BlockSizeBytes
	}
	return c.BlockSizeMaxBytes
}

// Reads and Writes say which directions the cell exercises (a metadata
// cell counts its operations as reads, as fio's file engines do).
// DoesBlockSize reports whether the cell's IOs are of size bytes: its one
// block size, or for a block size range one of the sizes it steps through
// (min, min+alignment, ..., max). A threshold's match.blockSize selects
// the cells that do.
func (c *Cell) DoesBlockSize(bytes int64) bool {
	if c.BlockSizeBytes > 0 {
		return c.BlockSizeBytes == bytes
	}
	step := max(c.BlockAlignmentBytes, 1)
	return bytes >= c.BlockSizeMinBytes && bytes <= c.BlockSizeMaxBytes && (bytes-c.BlockSizeMinBytes)%step == 0
}

func (c *Cell) Reads() bool  { return c.ReadPercent > 0 }
func (c *Cell) Writes() bool { return c.ReadPercent < 100 }
