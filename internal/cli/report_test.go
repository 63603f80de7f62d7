package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storagebench/storagebench/internal/testenv"
)

// realResult is the output of a real `storagebench run -o json`.
func realResult(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "results", "testdata", "run-result-failed-thresholds.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestReportRendersARealResultsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(file, []byte(realResult(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	for output, want := range map[string]string{"table": "Verdict: Failed", "json": `"schemaVersion": "storagebench.io/run-result/v1"`, "html": "<svg"} {
		code, stdout, stderr := run(t, "report", "-f", file, "-o", output)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("-o %s: exit %d, output without %q\n%s", output, code, want, stderr)
		}
	}
}

func TestReportRefusesBadFilesWithAUsageErrorNamingFileAndProblem(t *testing.T) {
	real := realResult(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body, want string
	}{
		{"a null target (it used to panic)",
			`{"schemaVersion":"storagebench.io/run-result/v1","targets":[null],"spec":{"targets":[{"name":"a"}]}}`,
			"1:61: targets[0]: null"},
		{"a syntax error", "{\n  \"benchmark\": x\n}", "2:16: benchmark: invalid character 'x'"},
		{"a value of the wrong type", strings.Replace(real, `"generation": 1,`, `"generation": "one",`, 1), `4:17: generation: want an integer`},
		{"a truncated file", real[:len(real)/2], "the document ends inside a value (truncated?)"},
		{"data after the results", real + "{}\n", "trailing data after the JSON value"},
		{"an undecodable histogram", strings.Replace(real, `"latencyHistogram": "v1.`, `"latencyHistogram": "v2.`, 1),
			`targets[0].cells[0].repetitions[0].read.latencyHistogram: invalid histogram encoding: missing "v1." prefix`},
		{"another kind of file", "apiVersion: storagebench.io/v1alpha1\n", "1:1: invalid character 'a' looking for beginning of value"},
		{"another schema", `{"schemaVersion":"storagebench.io/target-result/v1"}`, `schema "storagebench.io/target-result/v1", want "storagebench.io/run-result/v1"`},
		{"an empty file", "", "empty, no JSON document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if err := os.WriteFile(file, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(t, "report", "-f", file)
			if code != exitUsage || !strings.Contains(stderr, file+":") || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d naming %s and %q", code, stderr, exitUsage, file, tc.want)
			}
			if stdout != "" {
				t.Errorf("a refused file still printed %q", stdout)
			}
		})
	}
}

// report --compare relates a run to another one: here a real run to a copy
// of itself, so every cell of both targets matches with ratios of 1.
func TestReportComparesWithAnotherRun(t *testing.T) {
	dir := t.TempDir()
	this := filepath.Join(dir, "today.json")
	if err := os.WriteFile(this, []byte(realResult(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "before.json")
	if err := os.WriteFile(other, []byte(realResult(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "report", "-f", this, "--compare", other)
	if code != 0 || !strings.Contains(stdout, "Compared with file "+other) || strings.Contains(stdout, "not compared") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Count(stdout, "(3 matched)") != 2 {
		t.Errorf("want both targets with their 3 cells matched:\n%s", stdout)
	}
	code, stdout, _ = run(t, "report", "-f", this, "--compare", other, "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"compareTo": {`) || !strings.Contains(stdout, `"iopsRatio": "1"`) {
		t.Errorf("-o json: exit %d, no compareTo with ratios of 1:\n%.2000s", code, stdout)
	}
	code, stdout, _ = run(t, "report", "-f", this, "--compare", other, "-o", "html")
	if code != 0 || !strings.Contains(stdout, "<h2>Compared with another run</h2>") || strings.Count(stdout, "<td>3</td>") < 2 {
		t.Errorf("-o html: exit %d, no comparison section with both targets' 3 matched cells", code)
	}
	if code, _, stderr := run(t, "report", "-f", this, "--compare", filepath.Join(dir, "missing.json")); code != exitUsage || !strings.Contains(stderr, "--compare") {
		t.Errorf("a missing --compare file: exit %d, %s", code, stderr)
	}
}
