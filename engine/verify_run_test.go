//go:build linux

package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tamperingBackend is a device that misbehaves once, on its n-th write or
// read: it drops the write (reads the block instead, leaving what was
// there), sends it one block too low, or corrupts what a read returns.
type tamperingBackend struct {
	backend
	fault          string // "lose", "misplace" or "corrupt"
	n              int
	writes, reads  int
	bufs           map[int][]byte
	corruptPending map[int]bool
}

func (b *tamperingBackend) prepWrite(file int, buf []byte, off int64, slot int) {
	if b.writes++; b.writes == b.n {
		switch b.fault {
		case "lose":
			b.backend.prepRead(file, buf, off, slot)
			return
		case "misplace":
			b.backend.prepWrite(file, buf, off-int64(len(buf)), slot)
			return
		}
	}
	b.backend.prepWrite(file, buf, off, slot)
}

func (b *tamperingBackend) prepRead(file int, buf []byte, off int64, slot int) {
	if b.reads++; b.reads == b.n && b.fault == "corrupt" {
		b.bufs[slot], b.corruptPending[slot] = buf, true
	}
	b.backend.prepRead(file, buf, off, slot)
}

func (b *tamperingBackend) wait(minComplete, maxComplete int, timeout time.Duration, out []completion) ([]completion, error) {
	start := len(out)
	out, err := b.backend.wait(minComplete, maxComplete, timeout, out)
	for _, c := range out[start:] {
		if b.corruptPending[int(c.slot)] {
			b.bufs[int(c.slot)][len(b.bufs[int(c.slot)])-1] ^= 0xff
			delete(b.corruptPending, int(c.slot))
		}
	}
	return out, err
}

func withTampering(t *testing.T, fault string, n int) {
	newBackend = func(kind string, depth int, fds []int, mem []byte) (backend, string, error) {
		be, features, err := openBackend(kind, depth, fds, mem)
		return &tamperingBackend{backend: be, fault: fault, n: n, bufs: map[int][]byte{}, corruptPending: map[int]bool{}}, features, err
	}
	t.Cleanup(func() { newBackend = openBackend })
}

func TestVerifyReadsBackEveryWriteOnce(t *testing.T) {
	for _, tc := range []struct {
		args                []string
		wantReads, wantWrit int64
	}{
		{[]string{"--rw=write"}, 256, 256},
		{[]string{"--rw=randwrite", "--iodepth=16"}, 256, 256},
		{[]string{"--rw=randwrite", "--verify_backlog=10"}, 256, 256},
		{[]string{"--rw=randwrite", "--loops=2"}, 512, 512},
		{[]string{"--rw=write", "--do_verify=0"}, 0, 256},
		{[]string{"--rw=randwrite", "--numjobs=2", "--group_reporting"}, 512, 512},
	} {
		args := append([]string{"--name=v", "--directory=" + t.TempDir(), "--size=1m", "--bs=4k", "--verify=crc32c"}, tc.args...)
		doc := mustRun(t, args...)
		j := doc.Jobs[0]
		if j.Read.TotalIOs != tc.wantReads || j.Write.TotalIOs != tc.wantWrit || j.Error != 0 {
			t.Fatalf("%v: %d reads and %d writes (error %d), want %d and %d", tc.args, j.Read.TotalIOs, j.Write.TotalIOs, j.Error, tc.wantReads, tc.wantWrit)
		}
	}
}

func TestAMixedJobReadsBackWhatItWrote(t *testing.T) {
	doc := mustRun(t, "--name=v", "--directory="+t.TempDir(), "--size=1m", "--bs=4k", "--verify=md5", "--rw=randrw", "--iodepth=4")
	j := doc.Jobs[0]
	// Each block once per pass, read or written, then the writes read
	// back: fio's counts for the same job.
	if j.Read.TotalIOs+j.Write.TotalIOs != 256+j.Write.TotalIOs || j.Write.TotalIOs < 80 || j.Write.TotalIOs > 176 {
		t.Fatalf("%d reads and %d writes: want 256 blocks visited, then the writes read back", j.Read.TotalIOs, j.Write.TotalIOs)
	}
}

func TestVerifyCatchesWhatTheDeviceGetsWrong(t *testing.T) {
	for _, tc := range []struct {
		fault, rw string
		want      string
	}{
		{"corrupt", "write", "corrupted; expected crc32c "},
		{"misplace", "write", "a misplaced write"},
		{"lose", "randwrite", "no verify header"},
	} {
		withTampering(t, tc.fault, 100)
		dir := t.TempDir()
		_, err := Run(context.Background(), mustJobs(t, "--name=v", "--directory="+dir, "--size=1m", "--bs=4k", "--verify=crc32c", "--rw="+tc.rw, "--iodepth=4"), RunOptions{OutputFormat: "json"})
		var ve *VerifyError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir+"/v.0.0") {
			t.Fatalf("%s: got %v, want a verify error naming the file and saying %q", tc.fault, err, tc.want)
		}
	}
}

func TestVerifyCatchesALostWriteOverAnOlderOne(t *testing.T) {
	// The 300th write is in the second pass: the block it loses still
	// holds the first pass's write, intact but of the wrong generation.
	withTampering(t, "lose", 300)
	_, err := Run(context.Background(), mustJobs(t, "--name=v", "--directory="+t.TempDir(), "--size=1m", "--bs=4k", "--verify=crc32c", "--rw=randwrite", "--loops=2"), RunOptions{OutputFormat: "json"})
	if err == nil || !strings.Contains(err.Error(), "holds an older write") {
		t.Fatalf("got %v, want the lost write found", err)
	}
}

func TestAReadJobChecksWhatAWriteJobWrote(t *testing.T) {
	dir := t.TempDir()
	common := []string{"--directory=" + dir, "--filename=data", "--size=1m", "--bs=4k", "--verify=sha256"}
	mustRun(t, append([]string{"--name=w", "--rw=randwrite", "--do_verify=0"}, common...)...)
	doc := mustRun(t, append([]string{"--name=w", "--rw=randwrite", "--verify_only"}, common...)...)
	if j := doc.Jobs[0]; j.Read.TotalIOs != 256 || j.Write.TotalIOs != 0 {
		t.Fatalf("verify_only: %d reads and %d writes, want 256 checked reads and none", j.Read.TotalIOs, j.Write.TotalIOs)
	}
	f, err := unix.Open(dir+"/data", unix.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Pwrite(f, []byte("rot"), 700*1024+9); err != nil {
		t.Fatal(err)
	}
	unix.Close(f)
	jobs := mustJobs(t, append([]string{"--name=r", "--rw=read"}, common...)...)
	doc, err = Run(context.Background(), jobs, RunOptions{OutputFormat: "json"})
	if err == nil || !strings.Contains(err.Error(), "at offset 716800 of "+dir+"/data") || doc.Jobs[0].Error != int(unix.EILSEQ) {
		t.Fatalf("got %v (document %+v), want the corrupted block found and the job's error EILSEQ", err, doc)
	}
}

func mustJobs(t *testing.T, args ...string) []JobSpec {
	jobs, _ := job(t, args...)
	return jobs
}

// Found in review: a backlog read-back at depth must not start a new pass
// (the blocks after the first backlog were never written), a file's tail
// is no block, and do_verify=0 turns the backlog off, as in fio.
func TestVerifyBacklogAtDepthWritesEveryBlockOnce(t *testing.T) {
	dir := t.TempDir()
	common := []string{"--directory=" + dir, "--filename=data", "--size=1m", "--bs=4k", "--verify=crc32c"}
	doc := mustRun(t, append([]string{"--name=w", "--rw=write", "--verify_backlog=7", "--iodepth=16"}, common...)...)
	if j := doc.Jobs[0]; j.Read.TotalIOs != 256 || j.Write.TotalIOs != 256 {
		t.Fatalf("backlog at depth: %d reads and %d writes, want 256 and 256", j.Read.TotalIOs, j.Write.TotalIOs)
	}
	// A read job checks every block: each must hold its own write.
	mustRun(t, append([]string{"--name=r", "--rw=read"}, common...)...)
	if j := mustRun(t, append([]string{"--name=w", "--rw=write", "--verify_backlog=7", "--do_verify=0"}, common...)...).Jobs[0]; j.Read.TotalIOs != 0 {
		t.Fatalf("do_verify=0 with a backlog read %d blocks back, want none (fio's)", j.Read.TotalIOs)
	}
	tail := mustRun(t, "--name=t", "--directory="+t.TempDir(), "--size=10k", "--bs=4k", "--rw=write", "--verify=md5").Jobs[0]
	if tail.Read.TotalIOs != 2 || tail.Write.TotalIOs != 2 {
		t.Fatalf("10k of 4k blocks: %d reads and %d writes, want fio's 2 and 2", tail.Read.TotalIOs, tail.Write.TotalIOs)
	}
}

// Found in review: a psync lane whose share of the blocks is none ended a
// pass with nothing issued, started another, and spun forever.
func TestAVerifyingLaneWithNoBlockEnds(t *testing.T) {
	withProbedBackend(t, backendChoice{name: EnginePsync, reason: "auto: test: using psync"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, size := range [][]string{{"--size=10k"}, {"--size=8k", "--io_size=16k"}} {
		jobs := mustJobs(t, append([]string{"--name=v", "--directory=" + t.TempDir(), "--bs=4k", "--rw=write", "--verify=crc32c", "--ioengine=auto", "--iodepth=4"}, size...)...)
		if _, err := Run(ctx, jobs, RunOptions{OutputFormat: "json"}); err != nil {
			t.Fatalf("%v: %v", size, err)
		}
	}
}

func TestClonesSharingBlocksAreRefusedWithVerify(t *testing.T) {
	_, _, err := ParseArgs([]string{"--name=v", "--filename=/tmp/x", "--size=1m", "--numjobs=2", "--verify=crc32c"})
	if err == nil || !strings.Contains(err.Error(), "the 2 clones would write the same blocks of /tmp/x") {
		t.Fatalf("got %v", err)
	}
}

// dataset.verify's ledger: across runs of one process, a read knows which
// write each interval last got, so a write the device dropped (the older
// write still intact on disk) is caught by a later run's read.
func TestALedgerCatchesALostWriteInALaterRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data")
	ledger := NewVerifyLedger(4096)
	if err := ledger.Reserve(path, 1<<20); err != nil {
		t.Fatal(err)
	}
	run := func(rw string, extra ...string) error {
		jobs := mustJobs(t, append([]string{"--name=" + rw, "--filename=" + path, "--size=1m", "--bs=8k", "--rw=" + rw, "--iodepth=4"}, extra...)...)
		v := &jobs[0].Verify
		v.Sum, v.Interval, v.Everywhere, v.Ledger = "crc32c", 4096, true, ledger
		_, err := Run(context.Background(), jobs, RunOptions{OutputFormat: "json"})
		return err
	}
	// The layout (no headers yet) is written over by a verified write.
	if err := run("write"); err != nil {
		t.Fatal(err)
	}
	if err := run("randread", "--time_based", "--runtime=200ms"); err != nil {
		t.Fatalf("a sound device: %v", err)
	}
	// Timed cells read nothing back (do_verify=0 here): the loss shows
	// only in a later run's read.
	withTampering(t, "lose", 50)
	if err := run("write", "--do_verify=0"); err != nil {
		t.Fatal(err)
	}
	newBackend = openBackend
	err := run("read")
	if err == nil || !strings.Contains(err.Error(), "holds an older write") || !strings.Contains(err.Error(), "the last write to it was lost") {
		t.Fatalf("got %v, want the lost write found by a later read", err)
	}
}
