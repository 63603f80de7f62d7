package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/storagebench/storagebench/results"
)

// The table puts the clients' CPU beside each cell's figures, as bonnie++
// does, and says "-" where the clients reported none.
func TestTheTableShowsCPUBesideTheFigures(t *testing.T) {
	rr := quickstartResult(t)
	var cells int
	for ti := range rr.Targets {
		for ci := range rr.Targets[ti].Cells {
			for ri := range rr.Targets[ti].Cells[ci].Repetitions {
				rr.Targets[ti].Cells[ci].Repetitions[ri].CPU = nil
			}
			cells++
		}
	}
	if cells < 2 {
		t.Fatalf("the quickstart result has %d cells", cells)
	}
	rr.Targets[0].Cells[0].Result().CPU = &results.CPUUsage{Percent: 65.2, MicrosecondsPerIO: 433.33}
	var out bytes.Buffer
	if err := WriteTable(&out, rr); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	if !strings.Contains(table, "%/us per IO") || !strings.Contains(table, "65%/433.3") {
		t.Errorf("no CPU row with 65%%/433.3 in\n%s", table)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, rr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "CPU %/us per IO") || !strings.Contains(page.String(), "65%/433.3") {
		t.Errorf("the HTML table has no CPU column with 65%%/433.3")
	}
}

// A Metadata group's section has one column per operation, with operations
// per second, latency and CPU per operation, in the table and the page.
func TestAMetadataGroupIsOneColumnPerOperation(t *testing.T) {
	rr := metadataResult(t)
	var out bytes.Buffer
	if err := WriteTable(&out, rr); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	for _, want := range []string{
		"files: metadata, 1000 names per job, files of 1k, random order, a directory per client, 1 job(s) x 2 client(s)",
		"Create", "Stat", "Open", "Delete", "ops/s  all clients", "%/us per op", "vs disk      ops/p99",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, rr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Operations per second (all clients)", "Latency, Stat (all operations)", "Create: ops/s all clients"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// A group restricted to some targets shows only their rows, and says so.
func TestAGroupOnSomeTargetsHasOnlyTheirRows(t *testing.T) {
	rr := metadataResult(t)
	rr.Spec.Workloads[1].Targets = []string{"memory"}
	var out bytes.Buffer
	if err := WriteTable(&out, rr); err != nil {
		t.Fatal(err)
	}
	files := out.String()[strings.Index(out.String(), "\nfiles:"):]
	files = files[:strings.Index(files, "\nVerdict")]
	if !strings.Contains(files, "up to 1 s per operation, on memory only") || strings.Contains(files, "disk       ops/s") || !strings.Contains(files, "memory ") {
		t.Errorf("the files section:\n%s", files)
	}
}

// metadataResult is results/testdata/run-result-metadata.json, a real
// `storagebench run -o json` of an IO cell and a Metadata group.
func metadataResult(t *testing.T) *results.RunResult {
	t.Helper()
	data, err := os.ReadFile("../../results/testdata/run-result-metadata.json")
	if err != nil {
		t.Fatal(err)
	}
	rr, err := results.DecodeRunResult("run-result-metadata.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

// With a target's clients on two nodes the table adds each cell's figures
// per node; on one node it adds nothing.
func TestTheTableSplitsACellByNodeWhenClientsSpread(t *testing.T) {
	rr := quickstartResult(t)
	var out bytes.Buffer
	if err := WriteTable(&out, rr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "Per node") {
		t.Fatalf("clients on one node, yet a per-node section:\n%s", out.String())
	}
	tr := rr.Targets[0]
	rep := tr.Cells[0].Result()
	if len(rep.Clients) < 2 {
		t.Fatalf("the quickstart result's first cell has %d clients", len(rep.Clients))
	}
	for i := range tr.ClientSummaries {
		tr.ClientSummaries[i].Node = "node-" + string(rune('a'+i%2))
	}
	out.Reset()
	if err := WriteTable(&out, rr); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	if !strings.Contains(table, "Per node (clients spread over nodes; the nodes add up to the cell):") {
		t.Fatalf("no per-node section:\n%s", table)
	}
	for _, n := range tr.NodeTotals(rep) {
		want := tr.Target + "  " + tr.Cells[0].Cell.Name + "  " + n.Node
		if !strings.Contains(table, want) {
			t.Errorf("no row %q in\n%s", want, table)
		}
	}
}
