package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/storagebench/storagebench/results"
)

// seedResults are real `storagebench run -o json` outputs.
var seedResults = []string{
	"testdata/quickstart-result.json",
	"../../results/testdata/run-result-repeated-priced.json",
	"../../results/testdata/run-result-failed-thresholds.json",
}

// chartNumber finds a chart coordinate or size that is no number.
var chartNumber = regexp.MustCompile(`\b(x|y|x1|x2|y1|y2|cx|cy|width|height|points)="[^"]*(NaN|Inf)`)

// FuzzReportFile feeds arbitrary bytes to what `storagebench report -f`
// does with a file: results.DecodeRunResult, then every output format. No
// input may panic; whatever DecodeRunResult accepts must render as a table
// and as HTML without errors and with numbers in its charts, and its -o
// json output must be accepted in turn. What the controller computes from
// checked results must not panic either.
func FuzzReportFile(f *testing.F) {
	for _, file := range seedResults {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		for _, m := range seedMutations {
			f.Add(bytes.Replace(data, []byte(m[0]), []byte(m[1]), 1))
		}
		f.Add(data[:len(data)/2])
	}
	f.Add(smallSeed(f))
	f.Add([]byte(`{"schemaVersion":"storagebench.io/run-result/v1","targets":[null],"spec":{"targets":[{"name":"a"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rr, err := results.DecodeRunResult("fuzz.json", data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteTable(&out, rr); err != nil {
			t.Fatalf("accepted results do not render as a table: %v", err)
		}
		out.Reset()
		if err := WriteHTML(&out, rr); err != nil {
			t.Fatalf("accepted results do not render as HTML: %v", err)
		}
		if bad := chartNumber.Find(out.Bytes()); bad != nil {
			t.Fatalf("a chart of accepted results draws at %s", bad)
		}
		again, err := json.MarshalIndent(rr, "", "  ")
		if err != nil {
			t.Fatalf("accepted results do not render as JSON: %v", err)
		}
		if _, err := results.DecodeRunResult("again.json", again); err != nil {
			t.Fatalf("the -o json output of accepted results is refused: %v", err)
		}
		// The controller computes these from the results ConfigMaps it
		// decodes, which pass the same Check.
		byName := map[string]*results.TargetResult{}
		for _, tr := range rr.Targets {
			byName[tr.Target] = tr
			_ = results.StatusCells(tr)
			_ = results.Warnings(tr, results.WarningInputs{NodeMemoryBytes: map[string]int64{"vm": 1}, SizePerClientBytes: 1})
		}
		_ = results.Conclude(&rr.Spec, byName)
	})
}

// seedMutations break a real result where Check has to catch it: nulls in
// lists, an index out of range, a negative count, a damaged histogram.
var seedMutations = [][2]string{
	{`"targets": [`, `"targets": [null, `},
	{`"cells": [`, `"cells": [null, `},
	{`"repetitions": [`, `"repetitions": [null, `},
	{`"clients": [`, `"clients": [null, `},
	{`"clientSummaries": [`, `"clientSummaries": [null, `},
	{`"vsBaseline": [`, `"vsBaseline": [null, `},
	{`"warnings": [`, `"warnings": [null, `},
	{`"chosen": 0`, `"chosen": 9`},
	{`"ios": `, `"ios": -`},
	{`"latencyHistogram": "v1.`, `"latencyHistogram": "v1.A`},
	{`"p99": `, `"p99": 1`},
}

// smallSeed is a real result cut down to one target, one cell and one
// repetition without per-client numbers: small enough for the fuzzer's
// mutations to reach every part of it.
func smallSeed(f *testing.F) []byte {
	data, err := os.ReadFile(filepath.FromSlash(seedResults[2]))
	if err != nil {
		f.Fatal(err)
	}
	rr, err := results.DecodeRunResult(seedResults[2], data)
	if err != nil {
		f.Fatal(err)
	}
	tr := rr.Targets[0]
	rr.Targets = rr.Targets[:1]
	rr.Spec.Targets = rr.Spec.Targets[:1]
	rr.Spec.Baseline = ""
	rr.Comparison = nil
	tr.Cells = tr.Cells[:1]
	tr.Cells[0].Repetitions[0].Clients = nil
	tr.Cells[0].Chosen = 0
	tr.Cells[0].Repetitions = tr.Cells[0].Repetitions[:1]
	small, err := json.Marshal(rr)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := results.DecodeRunResult("small.json", small); err != nil {
		f.Fatalf("the small seed is refused: %v", err)
	}
	return small
}
