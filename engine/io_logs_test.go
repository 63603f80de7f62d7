//go:build linux

package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// logShape is what a tool's logs must agree on: the file names, and per
// file its lines' field counts and block sizes (the time, value, direction
// and offset are each run's own).
func logShape(t *testing.T, dir string) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	shape := map[string][]string{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "lg_") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := []string{}
		for _, l := range strings.Fields(strings.ReplaceAll(string(data), ", ", ",")) {
			l = strings.ReplaceAll(l, ",", ", ")
			f := strings.Split(l, ", ")
			if len(f) < 5 {
				t.Fatalf("%s: line %q has %d fields, fio's logs have 5 or 6", e.Name(), l, len(f))
			}
			lines = append(lines, fmt.Sprintf("%d fields, bs %s", len(f), f[3]))
		}
		sort.Strings(lines)
		shape[e.Name()] = lines
	}
	return shape
}

// The logs name their files, and fill their lines, as fio's: per IO (a
// line per IO in every log, with its block size, and its offset with
// log_offset) and, with per_job_logs=0, one file for both clones.
func TestLogsAreWrittenAsFioWritesThem(t *testing.T) {
	fio := fioCommand(t)
	args := func(dir string) []string {
		return []string{"--name=x", "--directory=" + dir, "--size=64k", "--rw=randrw", "--bs=4k", "--ioengine=psync",
			"--number_ios=12", "--numjobs=2", "--write_bw_log=" + dir + "/lg", "--write_iops_log=" + dir + "/lg", "--write_lat_log=" + dir + "/lg",
			"--name=y", "--stonewall", "--directory=" + dir, "--size=32k", "--rw=write", "--bs=8k", "--ioengine=psync", "--per_job_logs=0",
			"--write_bw_log=" + dir + "/lg", "--log_offset=1"}
	}
	fioDir := t.TempDir()
	if out, err := exec.Command(fio, append([]string{"--output-format=json"}, args(fioDir)...)...).CombinedOutput(); err != nil {
		t.Fatalf("fio: %v\n%s", err, out)
	}
	ourDir := t.TempDir()
	mustRun(t, append([]string{"--output-format=json"}, args(ourDir)...)...)
	want, got := logShape(t, fioDir), logShape(t, ourDir)
	// The mix of reads and writes is each tool's own random draw: compare
	// how many lines each file has, and the block sizes.
	if len(got) != len(want) {
		t.Fatalf("log files %v, fio's %v", keys(got), keys(want))
	}
	for name, lines := range want {
		if len(got[name]) != len(lines) {
			t.Errorf("%s: %d lines, fio's %d", name, len(got[name]), len(lines))
		}
		for i := range min(len(lines), len(got[name])) {
			if got[name][i] != lines[i] {
				t.Errorf("%s line %d: %q, fio's %q", name, i, got[name][i], lines[i])
				break
			}
		}
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// With log_avg_msec each whole window gives its bandwidth (KiB/s), IOPS
// and mean latencies per direction with IO, at the window's end; the last,
// partial window only its latencies; a window without IO nothing.
func TestLogWindowsAverageAsFiosDo(t *testing.T) {
	dir := t.TempDir()
	fs := &logFiles{}
	cfg := IOLogs{BW: filepath.Join(dir, "lg"), IOPS: filepath.Join(dir, "lg"), Lat: filepath.Join(dir, "lg"), AvgMsec: 500}
	c, err := openCloneLogs(fs, cfg, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	const ms = int64(1e6)
	c.begin(1000 * ms)
	base := 1000 * ms
	for i := range 10 { // window 1: 10 reads of 4 KiB, latency 100 us
		c.io(opRead, 4096, 0, base+int64(i)*40*ms, 100_000, 80_000, 20_000)
	}
	c.io(opWrite, 8192, 0, base+450*ms, 300_000, 250_000, 50_000)
	// window 2 (500..1000 ms): nothing; window 3: one read, then the end.
	c.io(opRead, 4096, 0, base+1100*ms, 200_000, 150_000, 50_000)
	c.end(base + 1200*ms)
	if err := fs.closeAll(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"lg_bw.3.log":   "500, 80, 0, 0, 0\n500, 16, 1, 0, 0\n",
		"lg_iops.3.log": "500, 20, 0, 0, 0\n500, 2, 1, 0, 0\n",
		"lg_lat.3.log":  "500, 100000, 0, 0, 0\n500, 300000, 1, 0, 0\n1200, 200000, 0, 0, 0\n",
		"lg_clat.3.log": "500, 80000, 0, 0, 0\n500, 250000, 1, 0, 0\n1200, 150000, 0, 0, 0\n",
		"lg_slat.3.log": "500, 20000, 0, 0, 0\n500, 50000, 1, 0, 0\n1200, 50000, 0, 0, 0\n",
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != want {
			t.Errorf("%s:\n%s\nwant\n%s", name, data, want)
		}
	}
}

// A log option given without a prefix, even in [global] (here the command
// line before the first job), names its files after each job.
func TestALogWithoutAPrefixIsNamedAfterItsJob(t *testing.T) {
	jobs, _, err := ParseArgs([]string{"--write_bw_log", "--ioengine=null", "--size=1m", "--name=first", "--name=second", "--write_iops_log=mine"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][2]string{{"first", ""}, {"second", "mine"}} {
		j := jobs[i]
		if err := j.resolve(); err != nil {
			t.Fatal(err)
		}
		if j.Logs.BW != want[0] || j.Logs.IOPS != want[1] {
			t.Errorf("job %s: bw log %q, iops log %q; want %q and %q", j.Name, j.Logs.BW, j.Logs.IOPS, want[0], want[1])
		}
	}
}
