//go:build linux

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/storagebench/storagebench/engine/result"
)

// listTree is every file and directory under dir, with regular files'
// sizes, relative and sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out = append(out, rel+"/")
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d", rel, info.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// names is "<stem>.<clone>.<n> <size>" for every clone and file, sorted.
func names(stem string, clones, files int, size int64, dir bool) []string {
	var out []string
	for c := 0; c < clones; c++ {
		for n := 0; n < files; n++ {
			name := fmt.Sprintf("%s.%d.%d", stem, c, n)
			if dir {
				out = append(out, name+"/")
			} else {
				out = append(out, fmt.Sprintf("%s %d", name, size))
			}
		}
	}
	sort.Strings(out)
	return out
}

// Each file engine makes, touches or removes exactly fio's names, and counts
// one operation per name (two for a rename there and back).
func TestFileEnginesDoWhatFioDoesToTheNames(t *testing.T) {
	dir := t.TempDir()
	run := func(engine string, extra ...string) (reads, writes, bytes int64) {
		t.Helper()
		doc := mustRun(t, append([]string{"--name=md", "--directory=" + dir, "--nrfiles=25", "--numjobs=2", "--ioengine=" + engine}, extra...)...)
		for _, j := range doc.Jobs {
			reads += j.Read.TotalIOs
			writes += j.Write.TotalIOs
			bytes += j.Read.IOBytes + j.Write.IOBytes
			if j.Read.ClatNs.N != j.Read.TotalIOs || j.Write.ClatNs.N != j.Write.TotalIOs {
				t.Errorf("%s: every operation is one latency sample: clat N %d/%d for %d/%d operations", engine, j.Read.ClatNs.N, j.Write.ClatNs.N, j.Read.TotalIOs, j.Write.TotalIOs)
			}
		}
		return
	}
	check := func(step string, want []string) {
		t.Helper()
		if got := listTree(t, dir); !reflect.DeepEqual(got, want) {
			t.Fatalf("after %s: files\n  %v\nwant\n  %v", step, got, want)
		}
	}

	if r, w, b := run(EngineFileCreate); r != 50 || w != 0 || b != 0 {
		t.Errorf("filecreate: %d reads, %d writes, %d bytes; want 50 operations in read, no bytes", r, w, b)
	}
	check("filecreate", names("md", 2, 25, 0, false))
	for _, st := range []string{StatStat, StatLstat, StatStatx} {
		if r, _, _ := run(EngineFileStat, "--stat_type="+st, "--file_service_type=random"); r != 50 {
			t.Errorf("filestat stat_type=%s: %d operations, want 50", st, r)
		}
	}
	if r, _, b := run(EngineFileRead); r != 50 || b != 0 {
		t.Errorf("sb_fileread of empty files: %d operations, %d bytes; want 50, 0", r, b)
	}
	if r, _, _ := run(EngineFileRename); r != 100 {
		t.Errorf("sb_filerename: %d operations, want 100 (away and back)", r)
	}
	check("sb_filerename", names("md", 2, 25, 0, false))
	if _, w, _ := run(EngineFileDelete, "--rw=write"); w != 50 {
		t.Errorf("filedelete with rw=write: %d operations in write, want 50 (fio's rule)", w)
	}
	check("filedelete", nil)

	// Files that a stat or delete needs are laid out first, untimed.
	if r, _, b := run(EngineFileRead, "--filesize=3000"); r != 50 || b != 50*3000 {
		t.Errorf("sb_fileread of laid-out files: %d operations, %d bytes; want 50, %d", r, b, 50*3000)
	}
	check("sb_fileread", names("md", 2, 25, 3000, false))
	run(EngineFileDelete)

	run(EngineFileCreate, "--filesize=5000", "--sb_create_write")
	check("filecreate with sb_create_write", names("md", 2, 25, 5000, false))
	run(EngineFileDelete)

	if r, _, _ := run(EngineDirCreate); r != 50 {
		t.Errorf("dircreate: %d operations, want 50", r)
	}
	check("dircreate", names("md", 2, 25, 0, true))
	run(EngineDirStat)
	run(EngineDirDelete)
	check("dirdelete", nil)
	// dirstat makes the directories it stats, as fio's setup does.
	run(EngineDirStat)
	check("dirstat on nothing", names("md", 2, 25, 0, true))
	run(EngineDirDelete)
}

// sb_files_per_dir spreads the names over subdirectories, which a delete
// removes once it has emptied them.
func TestFilesPerDirFansNamesOut(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "--name=f", "--directory="+dir, "--nrfiles=5", "--ioengine=filecreate", "--sb_files_per_dir=2")
	want := []string{"f.0.d0/", "f.0.d0/f.0.0 0", "f.0.d0/f.0.1 0", "f.0.d1/", "f.0.d1/f.0.2 0", "f.0.d1/f.0.3 0", "f.0.d2/", "f.0.d2/f.0.4 0"}
	if got := listTree(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	mustRun(t, "--name=f", "--directory="+dir, "--nrfiles=5", "--ioengine=filedelete", "--sb_files_per_dir=2")
	if got := listTree(t, dir); len(got) != 0 {
		t.Fatalf("after filedelete: %v left", got)
	}
}

// A random file order visits every file once per pass.
func TestRandomFileOrderIsAPermutation(t *testing.T) {
	w := &worker{rng: newRNG(7), order: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
	moved := false
	for pass := 0; pass < 20; pass++ {
		w.shuffleOrder()
		seen := map[int]bool{}
		for i, v := range w.order {
			seen[v] = true
			moved = moved || v != i
		}
		if len(seen) != 10 {
			t.Fatalf("pass %d: order %v is not a permutation of 0..9", pass, w.order)
		}
	}
	if !moved {
		t.Fatal("20 shuffles never moved anything")
	}
}

// What cannot work is refused naming the option and the value.
func TestFileEngineOptionsAreChecked(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ioengine=filedelete", "--loops=2"}, "loops/time_based: ioengine=filedelete can do each name only once"},
		{[]string{"--ioengine=dircreate", "--time_based", "--runtime=1"}, "ioengine=dircreate can do each name only once"},
		{[]string{"--ioengine=filestat", "--ramp_time=1"}, "ramp_time: ioengine=filestat visits each file once per pass"},
		{[]string{"--ioengine=filecreate", "--sb_create_write"}, "sb_create_write: needs a filesize"},
		{[]string{"--ioengine=filestat", "--sb_create_write", "--filesize=4k"}, "sb_create_write: only with ioengine=filecreate, not filestat"},
		{[]string{"--ioengine=filestat", "--stat_type=fstat"}, `--stat_type=fstat: unknown call "fstat"`},
		{[]string{"--ioengine=sb_fileread", "--direct=1"}, "direct: ioengine=sb_fileread reads through the page cache"},
		{[]string{"--ioengine=filestat", "--rate_iops=10"}, "rate_iops: not supported with ioengine=filestat"},
		{[]string{"--ioengine=filestat", "--file_service_type=zipf"}, `--file_service_type=zipf: "zipf" is not implemented`},
		{[]string{"--ioengine=fileslurp"}, `unsupported engine "fileslurp"`},
		{[]string{"--size=1m", "--nrfiles=4", "--openfiles=2"}, "openfiles: 2 is less than the job's 4 files"},
		{[]string{"--ioengine=filestat", "--filename=a:b", "--sb_files_per_dir=1"}, "sb_files_per_dir: spreads generated names; it does not apply to filename="},
		// create_on_open: nothing is laid out, so a stat meets no file...
		{[]string{"--ioengine=filestat", "--create_on_open"}, "ioengine=filestat: stat " + filepath.Join(dir, "x.0.0") + ": no such file or directory"},
		// ... and a read job, the empty file it creates (fio's EIO).
		{[]string{"--size=1m", "--create_on_open"}, "the file ends before it (create_on_open leaves new files empty)"},
	} {
		jobs, opts, err := ParseArgs(append([]string{"--name=x", "--directory=" + dir}, c.args...))
		if err == nil {
			_, err = Run(context.Background(), jobs, opts)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

// A failed operation names the job, the call and the path, and keeps the
// errno.
func TestAFailedFileOperationNamesCallAndPath(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "--name=d", "--directory="+dir, "--nrfiles=2", "--ioengine=dircreate")
	jobs, opts := job(t, "--name=d", "--directory="+dir, "--nrfiles=2", "--ioengine=dircreate")
	_, err := Run(context.Background(), jobs, opts)
	if err == nil || !errors.Is(err, unix.EEXIST) || !strings.Contains(err.Error(), "mkdir "+filepath.Join(dir, "d.0.0")) {
		t.Fatalf("mkdir of an existing directory: %v", err)
	}
}

// fileOpsOutcome is what fio's file engines and ours must agree on: each
// job's name, group and number of timed operations (fio counts made-up
// IOs of filesize/bs each in total_ios, so its latency samples are what
// count), and the files left after each run.
func fileOpsOutcome(t *testing.T, report []byte, dir string) ([]string, []string) {
	t.Helper()
	var r fioReport
	if err := json.Unmarshal(report, &r); err != nil {
		t.Fatalf("reading the JSON report: %v\n%s", err, report)
	}
	var jobs []string
	for _, j := range r.Jobs {
		jobs = append(jobs, fmt.Sprintf("%s group %d: %d read ops, %d write ops", j.JobName, j.GroupID, j.Read.ClatNs.N, j.Write.ClatNs.N))
	}
	return jobs, listTree(t, dir)
}

// testdata/jobfiles/fileops.fio means to the engine what it means to fio.
func TestFileEnginesMatchFio(t *testing.T) {
	fio := fioCommand(t)
	file := filepath.Join("testdata", "jobfiles", "fileops.fio")
	fioJSON, fioDir, ours, ourDir := bothTools(t, fio, func(string) []string { return []string{file} })
	wantJobs, wantFiles := fileOpsOutcome(t, fioJSON, fioDir)
	gotJobs, gotFiles := fileOpsOutcome(t, ours, ourDir)
	if !reflect.DeepEqual(gotJobs, wantJobs) || !reflect.DeepEqual(gotFiles, wantFiles) {
		t.Errorf("the engine ran %s as\n  %s\n  files %v\nfio as\n  %s\n  files %v", file,
			strings.Join(gotJobs, "\n  "), gotFiles, strings.Join(wantJobs, "\n  "), wantFiles)
	}
}

// The result package's list of file engines is the engine's.
func TestTheResultPackageKnowsEveryFileEngine(t *testing.T) {
	var got []string
	for n := range fileOpEngines {
		got = append(got, n)
	}
	sort.Strings(got)
	want := append([]string(nil), result.FileEngines...)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("engine file engines %v, result.FileEngines %v", got, want)
	}
	if !result.IsFileEngine("filestat (file operations: ...)") || result.IsFileEngine("io_uring") {
		t.Fatal("IsFileEngine reads the name before the reason")
	}
}

// A rename away is always renamed back, even when the job stops between
// the two (number_ios, runtime).
func TestARenameIsNeverLeftHalfDone(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "--name=r", "--directory="+dir, "--nrfiles=10", "--ioengine=filecreate")
	doc := mustRun(t, "--name=r", "--directory="+dir, "--nrfiles=10", "--ioengine=sb_filerename", "--number_ios=3")
	if got := doc.Jobs[0].Read.TotalIOs; got != 4 {
		t.Errorf("number_ios=3 stops after the visit it falls in: %d renames, want 4", got)
	}
	if got, want := listTree(t, dir), names("r", 1, 10, 0, false); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a stopped rename: %v, want %v", got, want)
	}
}

// fio's rules where the file engines meet IO options: any pattern that
// reads counts in read (randrw at rwmixread=0 too); without filesize, size
// over nrfiles is each file's size; sb_create_write writes files larger
// than its buffer in several calls.
func TestFileEnginesFollowFiosRulesForIOOptions(t *testing.T) {
	dir := t.TempDir()
	doc := mustRun(t, "--name=d", "--directory="+dir, "--nrfiles=3", "--ioengine=filecreate", "--rw=randrw", "--rwmixread=0")
	if doc.Jobs[0].Read.TotalIOs != 3 || doc.Jobs[0].Write.TotalIOs != 0 {
		t.Errorf("randrw at rwmixread=0: %d reads, %d writes; want 3 reads", doc.Jobs[0].Read.TotalIOs, doc.Jobs[0].Write.TotalIOs)
	}
	mustRun(t, "--name=s", "--directory="+dir, "--nrfiles=4", "--size=1m", "--ioengine=filestat")
	mustRun(t, "--name=w", "--directory="+dir, "--nrfiles=1", "--filesize=3m", "--ioengine=filecreate", "--sb_create_write")
	got := listTree(t, dir)
	want := append(append(names("d", 1, 3, 0, false), names("s", 1, 4, 256<<10, false)...), names("w", 1, 1, 3<<20, false)...)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	doc = mustRun(t, "--name=w", "--directory="+dir, "--nrfiles=1", "--ioengine=sb_fileread")
	if doc.Jobs[0].Read.IOBytes != 3<<20 {
		t.Errorf("sb_fileread of a 3 MiB file read %d bytes", doc.Jobs[0].Read.IOBytes)
	}
}
