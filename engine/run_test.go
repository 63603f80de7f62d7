//go:build linux

package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storagebench/storagebench/engine/hist"
	"github.com/storagebench/storagebench/engine/result"
	"golang.org/x/sys/unix"
)

// job returns a parsed job for a fio-style argument list, failing the test
// on a parse error.
func job(t *testing.T, args ...string) ([]JobSpec, RunOptions) {
	t.Helper()
	jobs, opts, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	return jobs, opts
}

// plannedWorkers places and plans jobs as Run does, failing the test on an
// error.
func plannedWorkers(t *testing.T, jobs []JobSpec) []*jobRun {
	t.Helper()
	place, err := newPlacement(jobs)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := planWorkers(jobs, place, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func mustRun(t *testing.T, args ...string) *result.Document {
	t.Helper()
	jobs, opts := job(t, args...)
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestSequentialWriteLandsWhereItSays runs a full sequential write of a file
// with every backend and checks each 512-byte chunk's stamp: the offset the
// engine meant to write there.
func TestSequentialWriteLandsWhereItSays(t *testing.T) {
	for _, eng := range []string{EngineIOUring, EngineLibaio, EnginePsync, EngineAuto} {
		t.Run(eng, func(t *testing.T) {
			dir := t.TempDir()
			doc := mustRun(t, "--name=w", "--directory="+dir, "--size=1m", "--rw=write", "--bs=16k", "--iodepth=4",
				"--direct=1", "--ioengine="+eng, "--output-format=json")
			if n := doc.Jobs[0].Write.TotalIOs; n != 64 {
				t.Fatalf("%d writes, want 64 (1 MiB / 16 KiB)", n)
			}
			if doc.Jobs[0].Write.IOBytes != 1<<20 {
				t.Fatalf("io_bytes %d", doc.Jobs[0].Write.IOBytes)
			}
			data, err := os.ReadFile(filepath.Join(dir, "w.0.0"))
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off < len(data); off += 512 {
				if got := binary.LittleEndian.Uint64(data[off:]); got != uint64(off) {
					t.Fatalf("chunk at %d carries offset stamp %d", off, got)
				}
			}
			if b := doc.Storagebench.Jobs[0].Backend; eng != EngineAuto && b != eng {
				t.Fatalf("backend %q ran, %q requested", b, eng)
			}
		})
	}
}

// runCached prepares the jobs, reads their files once so that they sit in
// the page cache, and runs them. Timing tests use buffered IO on cached
// files: they check the engine's clock and pacing, which must not depend on
// how busy the CI machine's disk is.
func runCached(t *testing.T, args ...string) *result.Document {
	t.Helper()
	jobs, opts := job(t, args...)
	if err := Prepare(context.Background(), jobs); err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		for c := 0; c < jobs[i].NumJobs; c++ {
			for _, p := range jobs[i].clonePaths(c) {
				if _, err := os.ReadFile(p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestRateLimitWithinTwoPercentAt2000IOPS(t *testing.T) {
	doc := runCached(t, "--name=r", "--directory="+t.TempDir(), "--size=8m", "--rw=randread", "--bs=4k", "--iodepth=16",
		"--rate_iops=2000", "--runtime=2", "--time_based")
	iops := doc.Jobs[0].Read.IOPS
	if iops < 1960 || iops > 2040 {
		t.Fatalf("achieved %.1f IOPS, want 2000 +- 2%%", iops)
	}
	ext := doc.Storagebench.Jobs[0]
	if ext.RateTargetIOPS != 2000 || ext.RateMet == nil || !*ext.RateMet {
		t.Fatalf("rate target %d met %v", ext.RateTargetIOPS, ext.RateMet)
	}
	// Latency from the intended start can only be longer than clat.
	if doc.Jobs[0].Read.LatNs.Mean < doc.Jobs[0].Read.ClatNs.Mean {
		t.Fatalf("lat mean %.0f < clat mean %.0f", doc.Jobs[0].Read.LatNs.Mean, doc.Jobs[0].Read.ClatNs.Mean)
	}
}

func TestRampIsExcludedFromStats(t *testing.T) {
	before := time.Now()
	doc := runCached(t, "--name=r", "--directory="+t.TempDir(), "--size=8m", "--rw=randread", "--bs=4k", "--iodepth=16",
		"--rate_iops=1000", "--ramp_time=1", "--runtime=1", "--time_based")
	r := doc.Jobs[0].Read
	// A ramp counted in would double the IOs.
	if r.TotalIOs < 980 || r.TotalIOs > 1020 {
		t.Fatalf("%d IOs measured, want about 1000 (ramp excluded)", r.TotalIOs)
	}
	if r.Runtime < 980 || r.Runtime > 1020 {
		t.Fatalf("measured runtime %d ms, want 1000", r.Runtime)
	}
	ext := doc.Storagebench.Jobs[0]
	if start := time.Unix(0, ext.StartUnixNano); start.Sub(before) < 990*time.Millisecond {
		t.Fatalf("measurement started %v after the run, before the 1s ramp ended", start.Sub(before))
	}
}

func TestRuntimeWithinTwoPercent(t *testing.T) {
	start := time.Now()
	doc := runCached(t, "--name=r", "--directory="+t.TempDir(), "--size=8m", "--rw=randrw", "--bs=4k", "--iodepth=16",
		"--runtime=1500ms", "--time_based")
	wall := time.Since(start)
	for _, rt := range []int64{doc.Jobs[0].Read.Runtime, doc.Jobs[0].JobRuntime} {
		if rt < 1470 || rt > 1530 {
			t.Fatalf("runtime %d ms, want 1500 +- 2%%", rt)
		}
	}
	if wall > 5*time.Second {
		t.Fatalf("Run took %v for a 1.5 s job (layout included)", wall)
	}
	// The mix follows rwmixread (default 50).
	r, w := doc.Jobs[0].Read.TotalIOs, doc.Jobs[0].Write.TotalIOs
	if share := float64(r) / float64(r+w); share < 0.45 || share > 0.55 {
		t.Fatalf("read share %.3f, want 0.5", share)
	}
}

func TestGroupReportingMergesExactly(t *testing.T) {
	jobs, opts := job(t, "--name=g", "--directory="+t.TempDir(), "--size=8m", "--rw=randread", "--bs=4k", "--iodepth=4",
		"--direct=1", "--numjobs=3", "--runtime=500ms", "--time_based")
	opts.fillDefaults()
	ex, err := execute(context.Background(), runGroup{jobs: jobs}, opts)
	if err != nil || ex.err != nil {
		t.Fatal(err, ex.err)
	}
	perClone := buildDocument(ex.runs, opts, ex.startWall, ex.targets)
	opts.GroupReporting = true
	group := buildDocument(ex.runs, opts, ex.startWall, ex.targets)
	if len(perClone.Jobs) != 3 || len(group.Jobs) != 1 {
		t.Fatalf("%d per-clone entries, %d group entries", len(perClone.Jobs), len(group.Jobs))
	}
	merged := hist.New()
	var ios int64
	for i, j := range perClone.Jobs {
		ios += j.Read.TotalIOs
		h, err := hist.Decode(perClone.Storagebench.Jobs[i].Read.Clat)
		if err != nil {
			t.Fatal(err)
		}
		merged.Merge(h)
	}
	g := group.Jobs[0]
	if g.Read.TotalIOs != ios || g.Read.ClatNs.N != ios {
		t.Fatalf("group has %d IOs, clones %d", g.Read.TotalIOs, ios)
	}
	if group.Storagebench.Jobs[0].Read.Clat != merged.Encode() {
		t.Fatal("group histogram differs from the merge of the clones' histograms")
	}
	if g.Read.ClatNs.Percentile["99.000000"] != merged.Percentile(99) {
		t.Fatal("group p99 is not the merged histogram's p99")
	}
}

func TestCancelReturnsPromptlyWithPartialResult(t *testing.T) {
	jobs, opts := job(t, "--name=c", "--directory="+t.TempDir(), "--size=8m", "--rw=randread", "--bs=4k", "--iodepth=4",
		"--direct=1", "--runtime=30", "--time_based")
	if err := Prepare(context.Background(), jobs); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	doc, err := Run(ctx, jobs, opts)
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Fatalf("Run returned %v after a cancel at 300ms", el)
	}
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the context's", err)
	}
	if doc == nil || !doc.Storagebench.Partial || doc.Storagebench.Error == "" || doc.Jobs[0].Read.TotalIOs == 0 {
		t.Fatalf("want a partial document with the IO done so far, got %+v", doc)
	}
}

func TestPrepareFillPolicies(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	jobsFor := func(fill string) []JobSpec {
		jobs, _ := job(t, "--name=p", "--filename="+path, "--size=1m", "--rw=randread", "--fill="+fill)
		return jobs
	}
	// never: a missing file is an error naming it.
	err := Prepare(context.Background(), jobsFor(FillNever))
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--fill=never") {
		t.Fatalf("fill=never on a missing file: %v", err)
	}
	// A sparse file of the right size is not reused: reads would hit holes.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<20); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(context.Background(), jobsFor(FillIfMissing)); err != nil {
		t.Fatal(err)
	}
	assertNoHoles(t, path, 1<<20)
	first, _ := os.ReadFile(path)
	// ifmissing reuses a complete file (in a new process too: forget
	// what this one laid out).
	forgetLayout(path)
	if err := Prepare(context.Background(), jobsFor(FillIfMissing)); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(first) {
		t.Fatal("fill=ifmissing rewrote a complete file")
	}
	if err := Prepare(context.Background(), jobsFor(FillNever)); err != nil {
		t.Fatalf("fill=never on a complete file: %v", err)
	}
	forgetLayout(path)
	if err := Prepare(context.Background(), jobsFor(FillAlways)); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); string(again) == string(first) {
		t.Fatal("fill=always did not rewrite the file")
	}
}

func forgetLayout(path string) {
	laidOut.Lock()
	delete(laidOut.done, path)
	laidOut.Unlock()
}

func assertNoHoles(t *testing.T, path string, size int64) {
	t.Helper()
	fd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if hole, err := unix.Seek(fd, 0, unix.SEEK_HOLE); err != nil || hole < size {
		t.Fatalf("first hole at %d (%v), want none before %d", hole, err, size)
	}
}

func TestErrorsNameTheCauseAndFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--name=a", "--directory=" + filepath.Join(dir, "missing"), "--size=1m"}, []string{"missing", "no such file"}},
		{[]string{"--name=a", "--filename=" + small}, []string{small, "smaller than one block"}},
		{[]string{"--name=a", "--filename=" + dir}, []string{dir, "directory"}},
		{[]string{"--name=a", "--directory=" + dir, "--size=1m", "--bs=4k", "--offset=100", "--direct=1"}, []string{"--offset=100", "O_DIRECT alignment"}},
		{[]string{"--name=a", "--directory=" + dir, "--size=1m", "--bsrange=4k-6k", "--direct=1", "--bs=4k"}, nil},
	} {
		jobs, opts, err := ParseArgs(tc.args)
		if err == nil {
			_, err = Run(context.Background(), jobs, opts)
		}
		if tc.want == nil {
			continue // accepted combinations only need not panic
		}
		if err == nil {
			t.Errorf("%q: no error", tc.args)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error spans several lines: %q", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", tc.args, err, w)
			}
		}
	}
}

func TestNoSpaceDuringLayout(t *testing.T) {
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill up (needs root): %v", err)
	}
	defer unix.Unmount(mnt, 0)
	jobs, opts := job(t, "--name=full", "--directory="+mnt, "--size=4m", "--rw=read")
	_, err := Run(context.Background(), jobs, opts)
	if !errors.Is(err, unix.ENOSPC) || !strings.Contains(err.Error(), filepath.Join(mnt, "full.0.0")) {
		t.Fatalf("error %v, want ENOSPC naming the file", err)
	}
}

func TestBlockDevice(t *testing.T) {
	if _, err := exec.LookPath("losetup"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and losetup to attach a loop device")
	}
	backing := filepath.Join(t.TempDir(), "disk")
	if err := os.WriteFile(backing, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(backing, 8<<20); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "--find", "--show", backing).Output()
	if err != nil {
		t.Skipf("no loop device available: %v", err)
	}
	dev := strings.TrimSpace(string(out))
	defer exec.Command("losetup", "--detach", dev).Run()
	// A device node says nothing about what is behind it: forget what an
	// earlier test run laid out on a loop device of the same name.
	forgetLayout(dev)
	doc := mustRun(t, "--name=dev", "--filename="+dev, "--offset=1m", "--rw=randread", "--bs=4k", "--iodepth=4",
		"--direct=1", "--runtime=300ms", "--time_based", "--output-format=json")
	if doc.Jobs[0].Read.TotalIOs == 0 || doc.Storagebench.Environment.FilesystemType != "block-device" {
		t.Fatalf("device run: %d IOs, fs %q", doc.Jobs[0].Read.TotalIOs, doc.Storagebench.Environment.FilesystemType)
	}
	// The read job laid the region out: sampled blocks are written.
	if written, err := sampleWritten(dev, 1<<20, 8<<20); err != nil || !written {
		t.Fatalf("device region not laid out: %v %v", written, err)
	}
}

// failingBackend wraps a real backend and fails one IO with EIO, as a
// device with a bad sector does.
type failingBackend struct {
	backend
	n, failAt int
}

func (f *failingBackend) wait(least, most int, timeout time.Duration, out []completion) ([]completion, error) {
	start := len(out)
	out, err := f.backend.wait(least, most, timeout, out)
	for i := start; i < len(out); i++ {
		if f.n++; f.n == f.failAt {
			out[i].res = -int32(unix.EIO)
		}
	}
	return out, err
}

func TestDeviceErrorGivesPartialResult(t *testing.T) {
	newBackend = func(kind string, depth int, fds []int, mem []byte) (backend, string, error) {
		be, features, err := openBackend(kind, depth, fds, mem)
		return &failingBackend{backend: be, failAt: 500}, features, err
	}
	defer func() { newBackend = openBackend }()
	dir := t.TempDir()
	jobs, opts := job(t, "--name=bad", "--directory="+dir, "--size=8m", "--rw=randread", "--bs=4k", "--iodepth=4",
		"--direct=1", "--runtime=10", "--time_based")
	doc, err := Run(context.Background(), jobs, opts)
	if !errors.Is(err, unix.EIO) {
		t.Fatalf("error %v, want EIO", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, filepath.Join(dir, "bad.0.0")) || !strings.Contains(msg, "read of 4096 bytes at offset") {
		t.Fatalf("error %q does not name the file and IO", msg)
	}
	if doc == nil || !doc.Storagebench.Partial || doc.Storagebench.Error != msg || doc.Jobs[0].Error != int(unix.EIO) {
		t.Fatalf("want a partial document carrying the error, got %+v", doc)
	}
	if n := doc.Jobs[0].Read.TotalIOs; n < 400 || n > 600 {
		t.Fatalf("%d IOs reported, want those done before the failure (about 500)", n)
	}
}

func TestAutoFallbackToPsyncKeepsQueueDepth(t *testing.T) {
	withProbedBackend(t, backendChoice{name: EnginePsync, reason: "auto: io_uring refused (operation not permitted); libaio refused (operation not permitted); using psync"})
	doc := runCached(t, "--name=fb", "--directory="+t.TempDir(), "--size=8m", "--rw=randread", "--bs=4k", "--iodepth=4",
		"--rate_iops=400", "--runtime=1", "--time_based")
	ext := doc.Storagebench.Jobs[0]
	if ext.Backend != EnginePsync || !strings.Contains(ext.BackendReason, "iodepth=4 kept with 4 locked threads") ||
		!strings.Contains(ext.BackendReason, "io_uring refused") {
		t.Fatalf("backend %q reason %q", ext.Backend, ext.BackendReason)
	}
	// The four lanes share one schedule: together they meet the rate.
	if iops := doc.Jobs[0].Read.IOPS; iops < 392 || iops > 408 {
		t.Fatalf("%.1f IOPS from the lanes, want 400 +- 2%%", iops)
	}
	if len(doc.Jobs) != 1 {
		t.Fatalf("%d entries: lanes of a clone must report as one job", len(doc.Jobs))
	}
}

func TestRunRefusesTooManyThreadsBeforeLayingOutOrStarting(t *testing.T) {
	withProbedBackend(t, psyncFallback)
	dir := t.TempDir()
	jobs, opts := job(t, "--name=many", "--directory="+dir, "--size=1m", "--numjobs=2", "--iodepth=2049", "--rw=randread")
	_, runErr := Run(context.Background(), jobs, opts)
	prepareErr := Prepare(context.Background(), jobs)
	for what, err := range map[string]error{"Run": runErr, "Prepare": prepareErr} {
		if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "need 4098 worker threads") ||
			!strings.Contains(err.Error(), "bound of 4096") || !strings.Contains(err.Error(), "reduce numjobs") {
			t.Errorf("%s: error %v, want the thread budget's usage error", what, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused run laid out %d file(s)", len(entries))
	}
	procs.Lock()
	inUse := procs.workers
	procs.Unlock()
	if inUse != 0 {
		t.Errorf("%d worker threads still reserved after the refusal", inUse)
	}
}

func TestWorkerThreadsIsTheNumberOfWorkersPlanned(t *testing.T) {
	for _, probed := range []backendChoice{{name: EngineIOUring}, psyncFallback} {
		withProbedBackend(t, probed)
		jobs, _ := job(t, "--size=1m", "--directory="+t.TempDir(), "--name=a", "--numjobs=3", "--iodepth=5", "--name=b", "--ioengine=psync", "--iodepth=7")
		workers := 0
		for _, r := range plannedWorkers(t, jobs) {
			workers += len(r.workers)
		}
		if threads, detail := WorkerThreads(jobs); threads != workers {
			t.Errorf("probed %s: WorkerThreads says %d (%s), planWorkers made %d", probed.name, threads, detail, workers)
		}
	}
}

// The StorageBenchmark API's blockSizeRange steps sizes by its alignment:
// a minimum that is not a power of two (12 KiB) then still gives sizes
// O_DIRECT accepts, where fio's rule would step by single bytes.
func TestBlockSizeRangeStepsByItsSizeStep(t *testing.T) {
	dir := t.TempDir()
	jobs, opts := job(t, "--name=r", "--directory="+dir, "--size=4m", "--rw=randread", "--bsrange=12k-64k",
		"--direct=1", "--iodepth=4", "--runtime=300ms", "--time_based", "--output-format=json")
	jobs[0].BSStep = 4096
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatalf("a range stepping by 4 KiB must run with O_DIRECT: %v", err)
	}
	r := doc.Jobs[0].Read
	if r.TotalIOs == 0 || r.IOBytes%4096 != 0 || r.IOBytes < r.TotalIOs*12<<10 || r.IOBytes > r.TotalIOs*64<<10 {
		t.Fatalf("%d reads of %d bytes in all: sizes off the 4 KiB grid or outside 12k-64k", r.TotalIOs, r.IOBytes)
	}

	jobs[0].BSStep = 5 << 10
	if _, err := Run(context.Background(), jobs, opts); err == nil || !strings.Contains(err.Error(), "size step 5120 does not divide the range 12288-65536") {
		t.Fatalf("a step that misses the maximum must be refused, got %v", err)
	}
}

// null (fio's null engine) opens and lays out nothing, whatever the
// file's name, and still counts its IOs; it needs a size for its offsets.
func TestNullEngineTouchesNoFile(t *testing.T) {
	dir := t.TempDir()
	doc := mustRun(t, "--name=n", "--directory="+dir, "--ioengine=null", "--size=1g", "--rw=randwrite", "--direct=1",
		"--bs=4k", "--iodepth=8", "--number_ios=1000", "--output-format=json")
	if w := doc.Jobs[0].Write; w.TotalIOs != 1000 || w.IOBytes != 1000*4096 {
		t.Fatalf("null: %d writes of %d bytes, want 1000 of 4096000", w.TotalIOs, w.IOBytes)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Fatalf("null left files behind: %v %v", entries, err)
	}
	// Even a file that exists gives null no size: it never looks at it.
	existing := filepath.Join(dir, "existing")
	if err := os.WriteFile(existing, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	jobs, opts := job(t, "--name=n", "--filename="+existing, "--ioengine=null")
	if _, err := Run(context.Background(), jobs, opts); err == nil || !strings.Contains(err.Error(), "ioengine=null touches no file, so it needs --size") {
		t.Fatalf("null without a size: %v", err)
	}
}
