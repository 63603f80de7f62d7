package v1alpha1

import (
	"fmt"
	"strconv"
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
	// ConcurrentWith is the workload whose cell of the same index runs at
	// the same time as this one, empty for none.
	ConcurrentWith string `json:"concurrentWith,omitempty"`
}

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

// Cells expands one workload group into its cells.
func (w *WorkloadGroup) Cells() []Cell {
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
						RampSeconds:         w.RampSeconds,
						Direct:              w.Direct == nil || *w.Direct,
						SyncWrites:          w.SyncWrites != nil && *w.SyncWrites,
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

// Reads and Writes say which directions the cell exercises.
func (c *Cell) Reads() bool  { return c.ReadPercent > 0 }
func (c *Cell) Writes() bool { return c.ReadPercent < 100 }
