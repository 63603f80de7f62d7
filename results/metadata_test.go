package results

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// A Metadata group's cells merge as IO cells do (operations counted as
// reads), per-client figures add up to the total, minOpsPerSecond and
// match.operation judge them, and an operation cut short by its duration is
// named in a warning; file engines are no backend fallback.
func TestMetadataCellsMergeAndAreJudged(t *testing.T) {
	spec := sbv1.StorageBenchmarkSpec{
		Repetitions: 1,
		Targets:     []sbv1.Target{{Name: "nfs"}},
		Workloads: []sbv1.WorkloadGroup{{
			Name: "md", Kind: sbv1.WorkloadMetadata, DurationSeconds: 5,
			Metadata: &sbv1.MetadataWorkload{Operations: []sbv1.MetadataOperation{sbv1.MetadataCreate, sbv1.MetadataStat}, FilesPerJob: 1000},
		}},
	}
	p := &plan.Plan{SchemaVersion: plan.SchemaVersion, Benchmark: "b", Generation: 1, Target: "nfs", Clients: 2, Slots: plan.Slots(&spec, "")}
	reports := make([]*ClientReport, 2)
	for c := range reports {
		create := constantSamples(1000, 200_000)
		stat := constantSamples(1000-c*300, 2_000+int64(c)*1000) // client 1 stats only 700 of its 1000
		reports[c] = &ClientReport{SchemaVersion: ClientReportSchema, Benchmark: "b", Generation: 1, Target: "nfs", Client: int32(c), Runs: []CellRun{
			fakeRun("md-create-f1000-j1", 1e9, create, nil, "filecreate"),
			fakeRun("md-stat-f1000-j1", 7e9, stat, nil, "filestat"),
		}}
	}
	tr, err := Merge(p, reports)
	if err != nil {
		t.Fatal(err)
	}
	stat := FindCell(tr, "md-stat-f1000-j1")
	if stat == nil || stat.Read == nil || stat.Read.IOs != 1700 || stat.Write != nil {
		t.Fatalf("stat cell: %+v", stat)
	}
	var perClient int64
	for _, c := range stat.Clients {
		perClient += c.Read.IOs
	}
	if perClient != stat.Read.IOs {
		t.Errorf("clients' operations add up to %d, the cell has %d", perClient, stat.Read.IOs)
	}

	// Both clients ran the same second: the rate is the clients' sum.
	if stat.Read.IOPS != 1700 {
		t.Errorf("stat: %v ops/s over the shared second, want 1700", stat.Read.IOPS)
	}

	spec.Thresholds = []sbv1.Threshold{{Name: "stat-rate", Workload: "md", Match: &sbv1.CellMatch{Operation: ptr.To(sbv1.MetadataStat)}, MinOpsPerSecond: ptr.To[int64](2000)}}
	ev := Evaluate(&spec, map[string]*TargetResult{"nfs": tr})
	if ev.Verdict != sbv1.VerdictFailed || len(ev.Violations) != 1 || ev.Violations[0].Cell != "md-stat-f1000-j1" || ev.Violations[0].Metric != "opsPerSecond" || ev.Violations[0].Measured != "1700" {
		t.Fatalf("verdict %s, violations %+v", ev.Verdict, ev.Violations)
	}

	var reasons []string
	for _, w := range Warnings(tr, WarningInputs{NodeMemoryBytes: map[string]int64{"": 1 << 40}, SizePerClientBytes: 1 << 30}) {
		reasons = append(reasons, w.Reason+" "+w.Cell+": "+w.Message)
	}
	if len(reasons) != 1 || !strings.Contains(reasons[0], "MetadataCutShort md-stat-f1000-j1: the clients did 1700 of 2000 operations") {
		t.Fatalf("want only the cut-short warning on the stat cell, got %v", reasons)
	}
}

// A metadata cell's rate is all operations over the time from the first
// client's start to the last one's end: clients that did not overlap do
// not add their rates up.
func TestAMetadataCellsRateIsOverTheClientsSpan(t *testing.T) {
	p := statPlan(2)
	reports := make([]*ClientReport, 2)
	for c := range reports {
		ops := constantSamples(1000, 1000)
		// Each client takes 1 s (1000 ops/s); client 1 starts when
		// client 0 ends.
		reports[c] = &ClientReport{SchemaVersion: ClientReportSchema, Benchmark: "b", Generation: 1, Target: "nfs", Client: int32(c),
			Runs: []CellRun{fakeRun("md-stat-f1000-j1", 1e9+int64(c)*1e9, ops, nil, "filestat")}}
	}
	tr, err := Merge(p, reports)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Cells[0].Result().Read.IOPS; got != 1000 {
		t.Fatalf("2000 operations over 2 s of clients one after the other: %v ops/s, want 1000 (not the sum 2000)", got)
	}
}

// A metadata cell done in under half a second is flagged as too short to be
// a rate, as bonnie++ prints +++++ for it.
func TestAMetadataCellDoneInMillisecondsIsFlagged(t *testing.T) {
	p := statPlan(1)
	ops := constantSamples(1000, 1000)
	run := fakeRun("md-stat-f1000-j1", 1e9, ops, nil, "filestat")
	run.Document.Storagebench.Jobs[0].EndUnixNano = 1e9 + 10e6 // 10 ms
	tr, err := Merge(p, []*ClientReport{{SchemaVersion: ClientReportSchema, Benchmark: "b", Generation: 1, Target: "nfs", Runs: []CellRun{run}}})
	if err != nil {
		t.Fatal(err)
	}
	w := Warnings(tr, WarningInputs{})
	if len(w) != 1 || w[0].Reason != WarnMetadataTooShort || !strings.Contains(w[0].Message, "the clients' 1000 operations took 10.0 ms in all") {
		t.Fatalf("warnings %+v", w)
	}
}

// statPlan is the plan of one Metadata group that stats 1000 names per
// client, for target "nfs".
func statPlan(clients int32) *plan.Plan {
	spec := sbv1.StorageBenchmarkSpec{
		Repetitions: 1, Targets: []sbv1.Target{{Name: "nfs"}},
		Workloads: []sbv1.WorkloadGroup{{Name: "md", Kind: sbv1.WorkloadMetadata, DurationSeconds: 5,
			Metadata: &sbv1.MetadataWorkload{Operations: []sbv1.MetadataOperation{sbv1.MetadataStat}, FilesPerJob: 1000}}},
	}
	return &plan.Plan{SchemaVersion: plan.SchemaVersion, Benchmark: "b", Generation: 1, Target: "nfs", Clients: clients, Slots: plan.Slots(&spec, "")}
}

// constantSamples is n latencies of ns each.
func constantSamples(n int, ns int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = ns
	}
	return out
}
