//go:build linux

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// fioCommand is fio's path. Where fio is missing the comparison is skipped,
// unless STORAGEBENCH_REQUIRE_FIO is set (CI installs fio and sets it), so
// that a machine without fio cannot hide a difference.
func fioCommand(t *testing.T) string {
	path, err := exec.LookPath("fio")
	if err != nil {
		if os.Getenv("STORAGEBENCH_REQUIRE_FIO") != "" {
			t.Fatalf("fio is required (STORAGEBENCH_REQUIRE_FIO is set): %v", err)
		}
		t.Skip("fio is not installed: the job files are not compared with fio's reading of them")
	}
	return path
}

// bothTools runs one command line through fio and through the engine, each
// in a directory of its own (given to the job files as SB_JOBFILE_DIR), and
// returns each tool's JSON document and directory.
func bothTools(t *testing.T, fio string, commandLine func(dir string) []string) (fioJSON []byte, fioDir string, ours []byte, ourDir string) {
	t.Helper()
	fioDir = t.TempDir()
	t.Setenv("SB_JOBFILE_DIR", fioDir)
	cmd := exec.Command(fio, append([]string{"--output-format=json"}, commandLine(fioDir)...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	fioJSON, err := cmd.Output()
	if err != nil {
		t.Fatalf("fio: %v\n%s", err, stderr.String())
	}
	// fio prints notes ("queue depth will be capped at 1") on stdout
	// before the document.
	if i := bytes.IndexByte(fioJSON, '{'); i > 0 {
		fioJSON = fioJSON[i:]
	}
	ourDir = t.TempDir()
	t.Setenv("SB_JOBFILE_DIR", ourDir)
	jobs, opts, err := ParseArgs(append([]string{"--output-format=json"}, commandLine(ourDir)...))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteOutput(&out, doc, opts.OutputFormat); err != nil {
		t.Fatal(err)
	}
	return fioJSON, fioDir, out.Bytes(), ourDir
}

// jobOutcome is what a job file must mean to both tools: each job's name,
// group, IO counts and the names of the options it echoes, and the files
// the run left.
type jobOutcome struct {
	Jobs  []string
	Files []string
}

func outcomeOf(t *testing.T, report []byte, dir string) jobOutcome {
	t.Helper()
	var r fioReport
	if err := json.Unmarshal(report, &r); err != nil {
		t.Fatalf("reading the JSON report: %v\n%s", err, report)
	}
	var o jobOutcome
	for _, j := range r.Jobs {
		var echoed []string
		for k := range j.JobOptions {
			echoed = append(echoed, k)
		}
		sort.Strings(echoed)
		// fio 3.33's sync total_ios stays 0; its latency samples count
		// the syncs.
		o.Jobs = append(o.Jobs, fmt.Sprintf("%s group %d: %d reads (%d bytes), %d writes (%d bytes), %d syncs, options echoed %v",
			j.JobName, j.GroupID, j.Read.TotalIOs, j.Read.IOBytes, j.Write.TotalIOs, j.Write.IOBytes, j.Sync.LatNs.N, echoed))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		o.Files = append(o.Files, fmt.Sprintf("%s %d", e.Name(), info.Size()))
	}
	sort.Strings(o.Files)
	return o
}

// The job files in testdata/jobfiles (written for these tests, one per
// feature of the syntax) must mean to the engine what they mean to fio:
// the same jobs with the same names, groups and IO counts, and the same
// files created.
func TestJobFilesMeanWhatTheyMeanToFio(t *testing.T) {
	fio := fioCommand(t)
	type fioCase struct {
		files []string
		// args come before the files on both command lines; DIR is the
		// tool's own directory.
		args []string
	}
	cases := []fioCase{
		{files: []string{"syntax.fio"}},
		{files: []string{"include.fio"}},
		{files: []string{"groups.fio", "second-file.fio"}},
		{files: []string{"amounts.fio"}},
		{files: []string{"shape.fio"}},
		{files: []string{"sync.fio"}},
		{files: []string{"thinktime.fio"}},
		{files: []string{"waitfor.fio"}},
		{files: []string{"verify.fio"}},
		{files: []string{"modifiers.fio"}},
		{files: []string{"directions.fio"}},
		{files: []string{"content.fio"}},
		{files: []string{"mmap.fio"}},
		{files: []string{"fileservice.fio"}},
		// The first file inherits the command line's globals (bs=8k) and
		// runs beside its job; the second starts from the defaults, after.
		{files: []string{"second-file.fio", "include.fio"},
			args: []string{"--bs=8k", "--ioengine=psync", "--rw=write", "--directory=DIR", "--name=cli", "--size=32k"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(append(append([]string(nil), c.args...), c.files...), " "), func(t *testing.T) {
			commandLine := func(dir string) []string {
				var out []string
				for _, a := range c.args {
					out = append(out, strings.ReplaceAll(a, "DIR", dir))
				}
				for _, f := range c.files {
					out = append(out, filepath.Join("testdata", "jobfiles", f))
				}
				return out
			}
			t.Setenv("SB_JOBFILE_SIZE", "48k")
			fioJSON, fioDir, ours, ourDir := bothTools(t, fio, commandLine)
			want := outcomeOf(t, fioJSON, fioDir)
			if got := outcomeOf(t, ours, ourDir); !reflect.DeepEqual(got, want) {
				t.Errorf("the engine read %v as\n  %s\n  files %v\nfio as\n  %s\n  files %v", c.files,
					strings.Join(got.Jobs, "\n  "), got.Files, strings.Join(want.Jobs, "\n  "), want.Files)
			}
		})
	}
}

// A job after a stonewall starts once every job before it has finished.
func TestAStonewallJobStartsAfterTheJobsBeforeItEnd(t *testing.T) {
	dir := t.TempDir()
	// The first two jobs run for a fixed time, so that they overlap however
	// late the machine (a loaded CI) schedules the second one: sized jobs of
	// a few hundred KiB ended before it started.
	jobs, opts, err := ParseArgs([]string{"--directory=" + dir, "--ioengine=psync", "--rw=write", "--bs=4k",
		"--name=first", "--size=256k", "--time_based", "--runtime=500ms", "--name=beside", "--size=128k", "--time_based", "--runtime=500ms",
		"--name=after", "--size=64k", "--stonewall"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	ext := doc.Storagebench.Jobs
	if len(ext) != 3 || doc.Jobs[2].JobName != "after" || doc.Jobs[2].GroupID != 1 || doc.Jobs[1].GroupID != 0 {
		t.Fatalf("jobs %+v", doc.Jobs)
	}
	for _, before := range ext[:2] {
		if ext[2].StartUnixNano < before.EndUnixNano {
			t.Errorf("%s started at %d, before %s ended at %d", ext[2].JobName, ext[2].StartUnixNano, before.JobName, before.EndUnixNano)
		}
	}
	if ext[1].StartUnixNano >= ext[0].EndUnixNano {
		t.Errorf("beside started after first ended: the jobs of one group run concurrently")
	}
}
