//go:build linux

package engine

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
