package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/testenv"
	"github.com/storagebench/storagebench/results"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestRunQuickstartEndToEnd runs the README's first command for real on a
// temporary directory: two targets, five cells, two clients each.
func TestRunQuickstartEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quickstart benchmark for about 100 s")
	}
	workdir := t.TempDir()
	sample := filepath.Join(testenv.RepoRoot(), "config", "samples", "quickstart.yaml")
	code, stdout, stderr := run(t, "run", "-f", sample, "--workdir", workdir, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, want 0 (Passed)\nstderr:\n%s", code, stderr)
	}
	rr := &results.RunResult{}
	if err := json.Unmarshal([]byte(stdout), rr); err != nil {
		t.Fatalf("-o json is not a run result: %v\n%s", err, stdout)
	}
	if rr.SchemaVersion != results.RunResultSchema || rr.Verdict != sbv1.VerdictPassed || len(rr.Targets) != 2 || rr.Error != "" {
		t.Fatalf("result: schema %s verdict %s targets %d error %q", rr.SchemaVersion, rr.Verdict, len(rr.Targets), rr.Error)
	}
	for _, tr := range rr.Targets {
		if tr.SchemaVersion != results.TargetResultSchema || len(tr.Cells) != 5 || tr.Clients != 2 {
			t.Fatalf("target %s: %d cells, %d clients", tr.Target, len(tr.Cells), tr.Clients)
		}
		// The capacity search stepped through queue depths 1, 2, 4, 8 as far
		// as p99 stayed under 2 ms (a depth that failed measured twice, at
		// most maxSteps in all), and said what it found.
		if len(tr.Searches) != 1 || len(tr.Searches[0].Steps) == 0 || len(tr.Searches[0].Steps) > sbv1.DefaultSearchSteps || tr.Searches[0].Message == "" {
			t.Fatalf("target %s: searches %+v", tr.Target, tr.Searches)
		}
		for _, c := range tr.Cells {
			rep := c.Result()
			if c.Cell.Reads() && (rep.Read == nil || rep.Read.IOPS <= 0 || rep.Read.LatencyNs.P99 <= 0) {
				t.Errorf("%s %s: no reads measured", tr.Target, c.Cell.Name)
			}
			if c.Cell.Writes() && (rep.Write == nil || rep.Write.IOPS <= 0) {
				t.Errorf("%s %s: no writes measured", tr.Target, c.Cell.Name)
			}
			if len(rep.Clients) != 2 {
				t.Errorf("%s %s: %d per-client results", tr.Target, c.Cell.Name, len(rep.Clients))
			}
		}
		// The data sets stay in the named workdir for reuse.
		if _, err := os.Stat(filepath.Join(workdir, tr.Target, "client-1", "file-0")); err != nil {
			t.Errorf("data set of %s not in the workdir: %v", tr.Target, err)
		}
	}
	if rr.Comparison == nil || rr.Comparison.Baseline != "standard" || len(rr.Comparison.Cells) != 5 || rr.Recommendation == nil {
		t.Fatalf("comparison %+v recommendation %+v", rr.Comparison, rr.Recommendation)
	}
	// 10 matrix cell runs and the search's steps, all done at the end.
	if final := regexp.MustCompile(`\] (\d+)/(\d+) cells in `).FindStringSubmatch(stderr); final == nil || final[1] != final[2] {
		t.Errorf("no final progress line with every cell run done on stderr:\n%s", stderr)
	}

	// The same result, rendered as the table from the saved file.
	file := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(file, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	code, table, stderr := run(t, "report", "-f", file)
	if code != 0 {
		t.Fatalf("report exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"Benchmark quickstart: 2 target(s), 5 cell(s), 1 capacity search(es), 2 client(s) per target",
		"Capacity p99-2ms-bs4k-r100: the most IOPS with P99 <= 2000 us (vary QueueDepth)",
		"rand: random 4k, queue depth 16, 1 job(s) x 2 client(s), 5 s",
		"100% read", "70% read", "0% read",
		"seq: sequential 1m, queue depth 4",
		"standard", "premium", "vs standard", "Verdict: Passed", "Recommendation: ",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	code, page, _ := run(t, "report", "-f", file, "-o", "html")
	if code != 0 || !strings.Contains(page, "<svg") || !strings.Contains(page, "IOPS relative to standard") || !strings.Contains(page, "P99 latency vs IOPS carried, per step") {
		t.Errorf("html report: exit %d, %d bytes", code, len(page))
	}
}

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tiny := `apiVersion: storagebench.io/v1alpha1
kind: StorageBenchmark
metadata: {name: tiny}
spec:
  targets: [{name: here, storageClassName: any, size: 1Gi}]
  dataset: {sizePerClient: 4Mi}
  workloads: [{name: w, blockSizes: [4Ki], readPercents: [100], queueDepths: [4], durationSeconds: 1, rampSeconds: 0}]
  thresholds: [{name: impossible, workload: w, minIOPS: 1000000000}]
`
	failing := write("failing.yaml", tiny)
	code, out, stderr := run(t, "run", "-f", failing)
	if code != 1 || !strings.Contains(out, "Verdict: Failed") || !strings.Contains(out, "impossible on here") {
		t.Fatalf("a broken threshold exits 1 with the violation: exit %d\n%s\n%s", code, out, stderr)
	}

	invalid := write("invalid.yaml", strings.Replace(tiny, "blockSizes: [4Ki]", "blockSizes: [4k]", 1))
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"invalid spec":     {[]string{"run", "-f", invalid}, "spec.workloads[0].blockSizes[0]: Invalid value"},
		"missing file":     {[]string{"run", "-f", filepath.Join(dir, "nope.yaml")}, "no such file"},
		"no file":          {[]string{"run"}, "-f FILE is required"},
		"bad output":       {[]string{"run", "-f", failing, "-o", "xml"}, `-o "xml"`},
		"unknown target":   {[]string{"run", "-f", failing, "--target", "other=" + dir}, `no target "other"`},
		"bad target":       {[]string{"run", "-f", failing, "--target", "here"}, "use NAME=PATH"},
		"target not a dir": {[]string{"run", "-f", failing, "--target", "here=" + failing}, "not a directory"},
		"report both":      {[]string{"report", "x", "-f", failing}, "one of them"},
		"report not json":  {[]string{"report", "-f", failing}, "failing.yaml:1:1: invalid character"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != 3 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 3 and %q", name, code, stderr, tc.want)
		}
	}
}
