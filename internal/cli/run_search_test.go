package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storagebench/storagebench/results"
)

// TestRunSearchesRoundByRound runs capacity searches for real, with two
// in-process clients per target: a bound nothing meets ends a Rate search
// after its probe and its lowest paced step (two rounds, the second paced
// over both clients), a bound everything meets ends a QueueDepth search at
// its largest depth, and the matrix cell before them runs as usual. The
// capacity threshold judges what the searches found.
func TestRunSearchesRoundByRound(t *testing.T) {
	if testing.Short() {
		t.Skip("runs five one-second steps and a cell")
	}
	spec := `apiVersion: storagebench.io/v1alpha1
kind: StorageBenchmark
metadata:
  name: searches
spec:
  targets:
  - name: local
    storageClassName: local
    size: 1Gi
  clients:
    count: 2
  dataset:
    sizePerClient: 8Mi
    fill: Always
  workloads:
  - name: plain
    blockSizes: [4Ki]
    readPercents: [100]
    queueDepths: [4]
    durationSeconds: 1
    rampSeconds: 0
  - name: never
    blockSizes: [4Ki]
    readPercents: [100]
    queueDepths: [8]
    durationSeconds: 1
    rampSeconds: 0
    latencyTarget:
      microseconds: 1
  - name: always
    blockSizes: [4Ki]
    readPercents: [100]
    queueDepths: [2]
    durationSeconds: 1
    rampSeconds: 0
    latencyTarget:
      microseconds: 60000000
      vary: QueueDepth
  thresholds:
  - workload: never
    minIOPSAtLatency: 1
`
	file := filepath.Join(t.TempDir(), "searches.yaml")
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "run", "-f", file, "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the capacity threshold fails)\nstderr:\n%s", code, stderr)
	}
	rr := &results.RunResult{}
	if err := json.Unmarshal([]byte(stdout), rr); err != nil {
		t.Fatalf("-o json is not a run result: %v\n%s", err, stdout)
	}
	tr := rr.Targets[0]
	if len(tr.Cells) != 1 || tr.Cells[0].Cell.Name != "plain-bs4k-r100-qd4-j1" {
		t.Fatalf("matrix cells %+v: the search steps must not be among them", tr.Cells)
	}
	never := results.FindSearch(tr, "never-bs4k-r100")
	// the probe, then the lowest paced step, failed twice
	if never == nil || never.Outcome != results.SearchNotReachable || len(never.Steps) != 3 || never.Capacity != nil {
		t.Fatalf("search never: %+v", never)
	}
	probe, paced, again := never.Steps[0], never.Steps[1], never.Steps[2]
	if probe.OfferedIOPS != 0 || probe.QueueDepth != 8 || probe.AchievedIOPS <= 0 || paced.OfferedIOPS <= 0 || paced.OfferedIOPS%2 != 0 {
		t.Fatalf("steps %+v: the probe is unpaced at depth 8, the paced step splits its rate over 2 clients", never.Steps)
	}
	if again.StepLoad != paced.StepLoad || again.Cell == paced.Cell {
		t.Fatalf("steps %+v: the failed paced step is measured again as a step of its own", never.Steps)
	}
	always := results.FindSearch(tr, "always-bs4k-r100")
	if always == nil || always.Outcome != results.SearchHoldsAtMaximum || len(always.Steps) != 2 || always.Capacity.QueueDepth != 2 {
		t.Fatalf("search always: %+v", always)
	}
	if len(rr.Violations) != 1 || rr.Violations[0].Metric != results.MetricIOPSAtLatency || rr.Violations[0].Measured != "0" {
		t.Fatalf("violations %+v", rr.Violations)
	}
	if c := rr.Comparison; c == nil || len(c.Searches) != 2 || c.Searches[1].Best != "local" || c.Searches[0].Best != "" {
		t.Fatalf("comparison of searches %+v", c)
	}

	_, table, _ := run(t, "report", "-f", writeTemp(t, stdout))
	for _, want := range []string{
		"Capacity never-bs4k-r100: the most IOPS with P99 <= 1 us (vary Rate)",
		"local: 0 IOPS, NotReachable: P99 <= 1 us is not reachable at ",
		"HoldsAtMaximum: P99 <= 60000000 us holds at the most this search offers (queue depth 2, unpaced)",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "result.json")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}
