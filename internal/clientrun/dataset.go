package clientrun

import (
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine"
	"github.com/storagebench/storagebench/internal/plan"
)

// dataSet is where one client's IO goes: its files, or its region of a
// device.
type dataSet struct {
	files  []string
	size   int64 // bytes over all files (per-file size times file count)
	offset int64 // start of the region (shared block devices)
	// root is the volume's mount and client the client's index: where
	// metadata cells put their names (see metadata.go).
	root   string
	client int32
	// ledger remembers the last write of each interval of a verified
	// data set across the client's cells (nil: not verified).
	ledger *engine.VerifyLedger
}

// dataFor places a client's data: on a filesystem, its own directory of
// files (shared volumes hold one directory per client); on a block device,
// the whole device, or its own region when all clients share the device.
func dataFor(p *plan.Plan, client int32) (*dataSet, error) {
	d := p.Data
	if d.Mode == string(corev1.PersistentVolumeBlock) {
		ds := &dataSet{files: []string{d.Path}, size: d.SizePerClientBytes, root: d.Path, client: client}
		if d.Shared {
			ds.offset = int64(client) * d.SizePerClientBytes
		}
		return ds, ds.keepLedger(p)
	}
	dir := filepath.Join(d.Path, fmt.Sprintf("client-%d", client))
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	files := max(d.FilesPerClient, 1)
	perFile := alignDown(d.SizePerClientBytes/int64(files), largestBlock(p))
	if perFile <= 0 {
		return nil, fmt.Errorf("data set of %d bytes over %d files leaves less than one block per file", d.SizePerClientBytes, files)
	}
	ds := &dataSet{size: perFile * int64(files), root: d.Path, client: client}
	for i := int32(0); i < files; i++ {
		ds.files = append(ds.files, filepath.Join(dir, fmt.Sprintf("file-%d", i)))
	}
	return ds, ds.keepLedger(p)
}

// keepLedger gives a verified data set its ledger, sized for its files.
func (ds *dataSet) keepLedger(p *plan.Plan) error {
	if p.Data.Verify == "" {
		return nil
	}
	ds.ledger = engine.NewVerifyLedger(p.Data.VerifyIntervalBytes)
	perFile := ds.size / int64(len(ds.files))
	for _, f := range ds.files {
		if err := ds.ledger.Reserve(f, ds.offset+perFile); err != nil {
			return err
		}
	}
	return nil
}

// largestBlock is the biggest IO of the plan: files are a whole number of
// them, so sequential passes never end on a partial block.
func largestBlock(p *plan.Plan) int64 {
	largest := max(int64(4096), p.Data.LargestBlockBytes)
	for _, s := range p.Slots {
		for _, c := range s.Cells {
			largest = max(largest, c.MaxBlockSizeBytes())
		}
	}
	return largest
}

func alignDown(v, to int64) int64 { return v / to * to }

// layoutJob is the job Prepare lays the data set out with.
func (ds *dataSet) layoutJob(p *plan.Plan) engine.JobSpec {
	bs := int64(1 << 20)
	if i := p.Data.VerifyIntervalBytes; i > 0 {
		bs = max(bs/i, 1) * i // whole headers' intervals
	}
	return engine.JobSpec{
		Name: "layout", Filenames: ds.files, NrFiles: len(ds.files), Size: ds.size, Offset: ds.offset,
		RW: engine.RWRead, BlockSize: bs, BSMin: bs, BSMax: bs, IODepth: 1, NumJobs: 1,
		Direct: true, IOEngine: p.IOEngine, ZeroBuffers: p.Data.ZeroBuffers, Fill: engineFill(p.Data.Fill),
		Verify: ds.verify(p),
	}
}

// verify is dataset.verify for the engine: the layout stamps a header
// every interval, every cell's writes stamp the ledger's generations and
// its reads check them (VerifySpec.Everywhere).
func (ds *dataSet) verify(p *plan.Plan) engine.VerifySpec {
	if p.Data.Verify == "" {
		return engine.VerifySpec{}
	}
	return engine.VerifySpec{Sum: p.Data.Verify, Interval: p.Data.VerifyIntervalBytes, Everywhere: true, Ledger: ds.ledger}
}

// cellJob translates a matrix cell into the engine job that runs it.
func (ds *dataSet) cellJob(p *plan.Plan, c *sbv1.Cell, seed uint64) engine.JobSpec {
	if c.IsMetadata() {
		return ds.metadataJob(c, seed)
	}
	j := engine.JobSpec{
		Name:        c.Name,
		Filenames:   ds.files,
		NrFiles:     len(ds.files),
		Size:        ds.size,
		Offset:      ds.offset,
		RW:          rwFor(c),
		RWMixRead:   int(c.ReadPercent),
		IODepth:     int(c.QueueDepth),
		NumJobs:     int(c.NumJobs),
		Runtime:     secs(c.DurationSeconds),
		Ramp:        secs(c.RampSeconds),
		TimeBased:   true,
		Direct:      c.Direct,
		DSync:       c.SyncWrites,
		RateIOPS:    int(c.RateIOPS),
		IOEngine:    p.IOEngine,
		RandRepeat:  true,
		RandSeed:    seed,
		ZeroBuffers: p.Data.ZeroBuffers,
		// Prepare laid the data out; a cell never writes it out again.
		Fill:   engine.FillNever,
		Verify: ds.verify(p),
	}
	if c.IOEngine != "" {
		j.IOEngine = c.IOEngine
	}
	ds.splitAmongJobs(&j, p)
	if c.BlockSizeBytes > 0 {
		j.BlockSize, j.BSMin, j.BSMax = c.BlockSizeBytes, c.BlockSizeBytes, c.BlockSizeBytes
	} else {
		j.BlockSize, j.BSMin, j.BSMax = c.BlockSizeMinBytes, c.BlockSizeMinBytes, c.BlockSizeMaxBytes
		// Sizes step by the alignment, as the API documents.
		j.BlockAlign, j.BSStep = c.BlockAlignmentBytes, c.BlockAlignmentBytes
	}
	return j
}

// splitAmongJobs gives each of the job's clones its own equal part of every
// file (of the client's region of a shared device): clone k works on
// [k*part, (k+1)*part) of each, as fio's numjobs clones each work on files
// of their own. Without it every clone of a sequential cell would walk the
// same blocks in lockstep from the same offset, measuring one stream served
// numJobs times (from the storage's cache). The parts are whole largest
// blocks, so a sequential pass never ends on a partial block; the API
// refuses data sets whose parts would be smaller than one (Validate).
func (ds *dataSet) splitAmongJobs(j *engine.JobSpec, p *plan.Plan) {
	if j.NumJobs <= 1 || len(ds.files) == 0 {
		return
	}
	perFile := ds.size / int64(len(ds.files))
	part := alignDown(perFile/int64(j.NumJobs), largestBlock(p))
	if part <= 0 {
		// Validate refuses such data sets; the clones then share the
		// whole files, as before the split.
		return
	}
	j.Size = part * int64(len(ds.files))
	j.OffsetIncrement = part
}

func rwFor(c *sbv1.Cell) string {
	random := c.Access != sbv1.AccessSequential
	switch {
	case c.ReadPercent == 100 && random:
		return engine.RWRandRead
	case c.ReadPercent == 100:
		return engine.RWRead
	case c.ReadPercent == 0 && random:
		return engine.RWRandWrite
	case c.ReadPercent == 0:
		return engine.RWWrite
	case random:
		return engine.RWRandMixed
	default:
		return engine.RWMixed
	}
}

func engineFill(policy string) string {
	switch sbv1.FillPolicy(policy) {
	case sbv1.FillAlways:
		return engine.FillAlways
	case sbv1.FillNever:
		return engine.FillNever
	default:
		return engine.FillIfMissing
	}
}

func secs(n int32) time.Duration { return time.Duration(n) * time.Second }
