package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/storagebench/storagebench/results"
)

// TestRunJoinsGroupsAcrossTargets runs seed 001's combined shape in
// process: a reader on one target and a rate-capped writer joined to it
// (concurrentWith) on another, side by side. Each target measures only its
// own group's cell, and the two cells run at the same time (one start for
// both, as the controller publishes one record for linked targets).
func TestRunJoinsGroupsAcrossTargets(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "linked.yaml")
	body := `apiVersion: storagebench.io/v1alpha1
kind: StorageBenchmark
metadata: {name: linked}
spec:
  targets: [{name: cached, storageClassName: any, size: 1Gi}, {name: nocache, storageClassName: any, size: 1Gi}]
  targetExecution: Parallel
  clients: {count: 1}
  dataset: {sizePerClient: 4Mi}
  workloads:
    - {name: reader, targets: [cached], blockSizes: [4Ki], readPercents: [100], queueDepths: [4], durationSeconds: 2, rampSeconds: 0}
    - {name: writer, targets: [nocache], concurrentWith: reader, blockSizes: [4Ki], readPercents: [0], queueDepths: [1], rateIOPS: 200, durationSeconds: 2, rampSeconds: 0}
`
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "run", "-f", spec, "--workdir", t.TempDir(), "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rr := &results.RunResult{}
	if err := json.Unmarshal([]byte(out), rr); err != nil {
		t.Fatal(err)
	}
	ends := map[string]int64{}
	for _, tr := range rr.Targets {
		if len(tr.Cells) != 1 {
			t.Fatalf("target %s measured %d cells, want its one group's one cell", tr.Target, len(tr.Cells))
		}
		c := tr.Cells[0]
		if want := map[string]string{"cached": "reader", "nocache": "writer"}[tr.Target]; c.Cell.Workload != want {
			t.Fatalf("target %s measured %s, want %s's cell", tr.Target, c.Cell.Name, want)
		}
		ends[tr.Target] = c.Result().Clients[0].EndUnixNano
	}
	// Equal cells from one start end together; two starts would differ by
	// the second target's layout and readiness.
	if skew := time.Duration(ends["cached"] - ends["nocache"]); skew > 200*time.Millisecond || skew < -200*time.Millisecond {
		t.Fatalf("the joined cells ended %v apart, want them run together", skew)
	}
}
