//go:build linux

package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// writtenBlocks are the offsets of the 4 KiB blocks of a file that hold
// the engine's scramble stamp of their own offset: the blocks it wrote.
func writtenBlocks(t *testing.T, path string) []int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for off := 0; off+4096 <= len(data); off += 4096 {
		if binary.LittleEndian.Uint64(data[off:]) == uint64(off) {
			out = append(out, int64(off))
		}
	}
	return out
}

func TestSequentialHolesLeaveTheBlocksBetweenUntouched(t *testing.T) {
	dir := t.TempDir()
	doc := mustRun(t, "--name=h", "--directory="+dir, "--size=48k", "--bs=4k", "--rw=write:8k", "--ioengine=psync")
	got := writtenBlocks(t, filepath.Join(dir, "h.0.0"))
	want := []int64{0, 12 << 10, 24 << 10, 36 << 10}
	if len(got) != len(want) || doc.Jobs[0].Write.TotalIOs != 12 {
		t.Fatalf("wrote blocks %v in %d writes, want %v over and over (12 writes, fio's)", got, doc.Jobs[0].Write.TotalIOs, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("wrote blocks %v, want %v", got, want)
		}
	}
}

func TestARandomPatternTakesANewOffsetEveryNIOs(t *testing.T) {
	dir := t.TempDir()
	// 8 writes of a 1 MiB file, one random offset: one run of 8 blocks.
	mustRun(t, "--name=r", "--directory="+dir, "--size=1m", "--bs=4k", "--rw=randwrite:8", "--number_ios=8", "--ioengine=psync")
	got := writtenBlocks(t, filepath.Join(dir, "r.0.0"))
	if len(got) != 8 || got[7]-got[0] != 7*4096 {
		t.Fatalf("wrote blocks %v, want 8 in a row from one random offset", got)
	}
	dir = t.TempDir()
	mustRun(t, "--name=r", "--directory="+dir, "--size=1m", "--bs=4k", "--rw=randwrite:8", "--rw_sequencer=identical", "--number_ios=8", "--ioengine=psync")
	if got := writtenBlocks(t, filepath.Join(dir, "r.0.0")); len(got) != 1 {
		t.Fatalf("rw_sequencer=identical wrote blocks %v, want one, 8 times", got)
	}
}

func TestOffsetModifiersRefuseWhatTheyCannotMean(t *testing.T) {
	for args, want := range map[string]string{
		"--rw=read:-8k":        "moves backwards, which is not implemented",
		"--rw=randread:x":      "the offset modifier :\"x\" is not a size",
		"--rw_sequencer=other": `"other" is not sequential or identical`,
	} {
		_, _, err := ParseArgs([]string{"--name=m", "--size=1m", args})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", args, err, want)
		}
	}
}

func TestReadsAndWritesTakeTheirOwnBlockSize(t *testing.T) {
	dir := t.TempDir()
	doc := mustRun(t, "--name=d", "--directory="+dir, "--size=1m", "--bs=4k,16k", "--rw=randrw", "--ioengine=psync")
	j := doc.Jobs[0]
	if j.Read.TotalIOs == 0 || j.Write.TotalIOs == 0 || j.Read.IOBytes != j.Read.TotalIOs*4096 || j.Write.IOBytes != j.Write.TotalIOs*16384 {
		t.Fatalf("%d reads of %d bytes, %d writes of %d bytes: want 4 KiB reads and 16 KiB writes", j.Read.TotalIOs, j.Read.IOBytes, j.Write.TotalIOs, j.Write.IOBytes)
	}
	_, _, err := ParseArgs([]string{"--name=d", "--size=1m", "--bs=4k,8k,16k,32k"})
	if err == nil || !strings.Contains(err.Error(), "has 4 sizes: want READ[,WRITE[,TRIM]]") {
		t.Fatalf("four sizes: %v", err)
	}
}

// stampTimes are the times stamped into the first bytes of every 4 KiB
// block of a file the engine wrote (scramble: offset, then time).
func stampTimes(t *testing.T, path string) []uint64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for off := 0; off+4096 <= len(data); off += 4096 {
		out = append(out, binary.LittleEndian.Uint64(data[off+8:]))
	}
	return out
}

func TestFileServiceTypesChooseFilesAsFiosDo(t *testing.T) {
	// sequential: every block of the first file before any of the second.
	dir := t.TempDir()
	mustRun(t, "--name=f", "--directory="+dir, "--nrfiles=2", "--size=64k", "--bs=4k", "--rw=write", "--file_service_type=sequential", "--ioengine=psync")
	first, second := stampTimes(t, filepath.Join(dir, "f.0.0")), stampTimes(t, filepath.Join(dir, "f.0.1"))
	if len(first) != 8 || len(second) != 8 || slices.Max(first) >= slices.Min(second) {
		t.Fatalf("sequential: the files' write times overlap (%v then %v)", first, second)
	}
	// roundrobin:4: 4 sequential writes in one file, then 4 in the next.
	dir = t.TempDir()
	mustRun(t, "--name=f", "--directory="+dir, "--nrfiles=2", "--size=64k", "--bs=4k", "--rw=write", "--file_service_type=roundrobin:4", "--ioengine=psync")
	first, second = stampTimes(t, filepath.Join(dir, "f.0.0")), stampTimes(t, filepath.Join(dir, "f.0.1"))
	if !(first[3] < second[0] && second[3] < first[4] && first[7] < second[4]) {
		t.Fatalf("roundrobin:4: write times %v and %v, want runs of 4 in turn", first, second)
	}
	for v, want := range map[string]string{
		"zipf:1.2":     "is not implemented",
		"sequential:2": "sequential takes no :N",
		"random:0":     "is not a count",
		"other":        "is not a file service type",
	} {
		_, _, err := ParseArgs([]string{"--name=f", "--size=1m", "--file_service_type=" + v})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", v, err, want)
		}
	}
}

// create_on_open: a write job creates its file empty when it opens it (no
// layout); a read job on such a file fails at its first read, as fio's
// does (EIO), saying why.
func TestCreateOnOpenLaysNothingOut(t *testing.T) {
	dir := t.TempDir()
	doc := mustRun(t, "--name=w", "--directory="+dir, "--size=64k", "--bs=4k", "--rw=randwrite", "--create_on_open")
	st, err := os.Stat(filepath.Join(dir, "w.0.0"))
	if err != nil || doc.Jobs[0].Write.TotalIOs != 16 || st.Mode().Perm() != 0o600 {
		t.Fatalf("write job: %v, %d writes, mode %v; want the file created by the job (0600, as fio) and 16 writes", err, doc.Jobs[0].Write.TotalIOs, st.Mode())
	}
	jobs := mustJobs(t, "--name=r", "--directory="+dir, "--size=64k", "--bs=4k", "--rw=randread", "--create_on_open")
	_, err = Run(context.Background(), jobs, RunOptions{OutputFormat: "json"})
	if !errors.Is(err, unix.EIO) || !strings.Contains(err.Error(), "the file ends before it (create_on_open leaves new files empty)") {
		t.Fatalf("read job on a file created empty: %v", err)
	}
}
