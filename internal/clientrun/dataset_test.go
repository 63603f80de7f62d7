package clientrun

import (
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine"
	"github.com/storagebench/storagebench/internal/plan"
)

// A cell's jobs each get their own equal part of every file, in whole
// largest blocks, as fio's numjobs clones each get files of their own; one
// job keeps the whole files.
func TestEachJobOfACellWorksOnItsOwnPartOfEveryFile(t *testing.T) {
	b := smallBenchmark(1, false) // 8Mi over 2 files, 4Ki blocks
	p := plan.Build(b, &b.Spec.Targets[0], t.TempDir())
	ds, err := dataFor(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	cell := sbv1.Cell{Name: "seq", Access: sbv1.AccessSequential, BlockSizeBytes: 4096, ReadPercent: 100, QueueDepth: 1, NumJobs: 3, DurationSeconds: 1}
	j := ds.cellJob(p, &cell, 1)
	// 4 MiB per file / 3 jobs, down to whole 4 KiB blocks.
	part := int64(4<<20) / 3 / 4096 * 4096
	if j.OffsetIncrement != part || j.Size != 2*part || j.NumJobs != 3 {
		t.Fatalf("3 jobs: offset_increment %d, size %d; want %d and %d (each job its own part of both files)", j.OffsetIncrement, j.Size, part, 2*part)
	}
	cell.NumJobs = 1
	if j := ds.cellJob(p, &cell, 1); j.OffsetIncrement != 0 || j.Size != 8<<20 {
		t.Fatalf("1 job: offset_increment %d, size %d; want the whole 8 MiB", j.OffsetIncrement, j.Size)
	}
}

func TestACellsEngineIsTheWorkloadsOrTheClientsDefault(t *testing.T) {
	b := smallBenchmark(1, false)
	p := plan.Build(b, &b.Spec.Targets[0], t.TempDir())
	ds := &dataSet{}
	cell := sbv1.Cell{Name: "c", BlockSizeBytes: 4096, ReadPercent: 100, QueueDepth: 1, NumJobs: 1}
	if j := ds.cellJob(p, &cell, 1); j.IOEngine != p.IOEngine {
		t.Fatalf("no engine asked: %q, want the client's %q", j.IOEngine, p.IOEngine)
	}
	cell.IOEngine = engine.EngineLibaio
	if j := ds.cellJob(p, &cell, 1); j.IOEngine != engine.EngineLibaio {
		t.Fatalf("libaio asked: %q", j.IOEngine)
	}
}

// Sequential cells with several jobs run within the laid-out files (the
// parts add up to no more than each file) and every job does IO.
func TestSeveralJobsOfASequentialCellRunOnTheirParts(t *testing.T) {
	b := smallBenchmark(1, false)
	b.Spec.Workloads = []sbv1.WorkloadGroup{{Name: "seq", Access: sbv1.AccessSequential, BlockSizes: []sbv1.BlockSize{"64Ki"},
		ReadPercents: []int32{100, 0}, QueueDepths: []int32{2}, NumJobs: []int32{3}, DurationSeconds: 1, Direct: ptrBool(true)}}
	if errs := b.Spec.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	tr, _ := runClients(t, plan.Build(b, &b.Spec.Targets[0], t.TempDir()))
	for i := range tr.Cells {
		r := tr.Cells[i].Result()
		if (r.Read == nil || r.Read.IOs == 0) && (r.Write == nil || r.Write.IOs == 0) {
			t.Fatalf("cell %s did no IO: %+v", tr.Cells[i].Cell.Name, r)
		}
	}
}

// dataset.verify reaches the engine: the layout stamps a header every
// smallest block (in writes of whole intervals) and every cell checks its
// reads against them.
func TestAVerifiedDataSetIsLaidOutAndReadWithHeaders(t *testing.T) {
	b := smallBenchmark(1, false)
	b.Spec.Dataset.Verify = sbv1.VerifySHA256
	for i := range b.Spec.Workloads {
		b.Spec.Workloads[i].BlockSizes = []sbv1.BlockSize{"12Ki", "24Ki"}
	}
	p := plan.Build(b, &b.Spec.Targets[0], t.TempDir())
	if p.Data.Verify != "sha256" || p.Data.VerifyIntervalBytes != 12<<10 {
		t.Fatalf("plan: verify %q every %d bytes, want sha256 every 12288", p.Data.Verify, p.Data.VerifyIntervalBytes)
	}
	ds := &dataSet{files: []string{"f"}, size: 1 << 30}
	want := engine.VerifySpec{Sum: "sha256", Interval: 12 << 10, Everywhere: true}
	layout := ds.layoutJob(p)
	if layout.Verify != want || layout.BSMin%(12<<10) != 0 {
		t.Fatalf("layout: verify %+v with blocks of %d bytes, want %+v in whole intervals", layout.Verify, layout.BSMin, want)
	}
	cell := sbv1.Cell{Name: "c", BlockSizeBytes: 24 << 10, ReadPercent: 50, QueueDepth: 1, NumJobs: 1}
	if j := ds.cellJob(p, &cell, 1); j.Verify != want {
		t.Fatalf("cell: verify %+v, want %+v", j.Verify, want)
	}
}

// The API refuses the data sets whose ledger the engine would refuse.
func TestTheLedgerBoundIsTheSameInTheAPIAndTheEngine(t *testing.T) {
	if sbv1.VerifyLedgerMaxBytes != engine.MaxLedgerBytes {
		t.Fatalf("api %d, engine %d", sbv1.VerifyLedgerMaxBytes, engine.MaxLedgerBytes)
	}
}
