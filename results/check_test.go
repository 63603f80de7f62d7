package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/storagebench/storagebench/engine/hist"
)

// realRunResults are outputs of real `go run . run -f SPEC -o json` runs
// (each holds its spec): two targets, two clients, 1-second cells on 8 MiB
// data sets, one run with two repetitions, prices and a block-size range,
// one whose thresholds fail; and the quickstart sample's result that the
// HTML report's tests render.
var realRunResults = []string{
	"testdata/run-result-repeated-priced.json",
	"testdata/run-result-failed-thresholds.json",
	"../internal/report/testdata/quickstart-result.json",
	// Two targets, two clients, an IO cell and a Metadata group (Create,
	// Stat, Open, Delete of 1000 files of 1 KiB per client).
	"testdata/run-result-metadata.json",
}

func readTestdata(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// edit changes a JSON document: each edit sets the value at a path
// (targets[1].cells[3].chosen) to a Go value (nil for null), or deletes it
// when the value is deleted{}. The document is re-encoded indented, so that
// positions in errors can be checked against its lines.
type edit struct {
	path  string
	value any
}

type deleted struct{}

func applyEdits(t *testing.T, data []byte, edits ...edit) []byte {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		doc = setPath(t, doc, splitPath(e.path), e.value)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// splitPath splits targets[1].cells into targets, [1], cells.
func splitPath(path string) []string {
	var steps []string
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			steps = append(steps, name)
		}
		for rest != "" {
			i, after, _ := strings.Cut(rest, "]")
			steps = append(steps, "["+i)
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return steps
}

func setPath(t *testing.T, node any, steps []string, value any) any {
	t.Helper()
	if len(steps) == 0 {
		return value
	}
	step := steps[0]
	if i, isIndex := strings.CutPrefix(step, "["); isIndex {
		list, ok := node.([]any)
		n, _ := strconv.Atoi(i)
		if !ok || n >= len(list) {
			t.Fatalf("no element %s in %T", step, node)
		}
		if _, del := value.(deleted); del && len(steps) == 1 {
			return append(list[:n:n], list[n+1:]...)
		}
		list[n] = setPath(t, list[n], steps[1:], value)
		return list
	}
	obj, ok := node.(map[string]any)
	if !ok {
		t.Fatalf("no member %s in %T", step, node)
	}
	if _, del := value.(deleted); del && len(steps) == 1 {
		delete(obj, step)
		return obj
	}
	obj[step] = setPath(t, obj[step], steps[1:], value)
	return obj
}

func TestRealResultsPassCheck(t *testing.T) {
	for _, file := range realRunResults {
		rr, err := DecodeRunResult(file, readTestdata(t, file))
		if err != nil {
			t.Fatalf("a real result is refused: %v", err)
		}
		for _, tr := range rr.Targets {
			data, binary, err := EncodeStored(tr)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeStored(data, binary); err != nil {
				t.Errorf("%s: the stored results of target %s are refused: %v", file, tr.Target, err)
			}
		}
	}
}

func TestCheckRejectsWhatCannotBeRenderedWithItsPath(t *testing.T) {
	const (
		read100 = "targets[0].cells[0]"               // 100% reads, 2 repetitions
		mixed   = "targets[1].cells[3]"               // 50% reads, 4k to 64k
		rep     = read100 + ".repetitions[0]"         // client 0 and 1
		read    = rep + ".read"                       // with histograms
		latency = read + ".latencyNs"                 // a full summary
		client  = rep + ".clients[1]"                 // client 1
		outcome = "comparison.cells[0].vsBaseline[0]" // premium vs standard
	)
	for _, tc := range []struct {
		name  string
		edits []edit
		want  string
	}{
		{"a null target", []edit{{"targets[1]", nil}}, "targets[1]: null"},
		{"a negative IO count", []edit{{mixed + ".repetitions[0].read.ios", -5}}, mixed + ".repetitions[0].read.ios: -5 is negative"},
		{"a chosen repetition past the last", []edit{{read100 + ".chosen", 2}}, read100 + ".chosen: 2 is not one of the 2 repetitions (0 to 1)"},
		{"a negative chosen repetition", []edit{{read100 + ".chosen", -1}}, read100 + ".chosen: -1 is not one of"},
		{"no repetitions", []edit{{read100 + ".repetitions", []any{}}}, read100 + ".repetitions: empty"},
		{"a null cell", []edit{{read100, nil}}, read100 + ".cell.name: empty"},
		{"a null repetition", []edit{{rep, nil}}, rep + ".read: missing, yet cell rand-bs4k-r100-qd4-j1 is 100% reads"},
		{"writes in a read-only cell", []edit{{rep + ".write", map[string]any{}}}, rep + ".write: present, yet cell rand-bs4k-r100-qd4-j1 is 100% reads"},
		{"a null client", []edit{{client, nil}}, client + ".client: 0 again"},
		{"a client the target does not have", []edit{{client + ".client", 2}}, client + ".client: 2 is not one of the 2 clients (0 to 1)"},
		{"a null client summary", []edit{{"targets[0].clientSummaries[1]", nil}}, "targets[0].clientSummaries[1].client: 0 again"},
		{"no clients", []edit{{"targets[0].clients", 0}}, "targets[0].clients: 0, want 1 to 64"},
		{"reads that moved no bytes", []edit{{read + ".bytes", 0}}, read + ".bytes: 0, yet"},
		{"more bytes than the block size allows", []edit{{read + ".ios", 1}, {read + ".bytes", 8192}}, read + ".bytes: 8192 is more than 1 IOs of at most 4096 bytes each can move"},
		{"rates without IOs", []edit{{read + ".ios", 0}}, read + ".ios: 0, yet"},
		{"absurd IOPS", []edit{{read + ".iops", 1e300}}, read + ".iops: 1e+300 from"},
		{"negative bytes per second", []edit{{read + ".bytesPerSecond", -1}}, read + ".bytesPerSecond: -1 is negative"},
		{"a negative latency", []edit{{latency + ".min", -1}}, latency + ".min: -1 is negative"},
		{"min above max", []edit{{latency + ".min", 1e12}}, latency + ".min: 1000000000000 is above max"},
		{"percentiles out of order", []edit{{latency + ".p99", 1}}, latency + ".p99: 1 is below p90"},
		{"a mean beyond max", []edit{{latency + ".mean", 1e15}}, latency + ".mean: 1e+15 is outside min"},
		{"an undecodable histogram", []edit{{read + ".latencyHistogram", "v1.AAAA"}}, read + ".latencyHistogram: invalid histogram encoding"},
		{"a histogram with more latencies than IOs", []edit{{read + ".ios", 1}, {read + ".bytes", 4096}, {read + ".iops", 1}, {read + ".bytesPerSecond", 4096}}, read + ".latencyHistogram: holds"},
		{"a negative spread", []edit{{read100 + ".spreadPercent", -3}}, read100 + ".spreadPercent: -3 is negative"},
		{"a cell twice", []edit{{"targets[0].cells[1].cell.name", "rand-bs4k-r100-qd4-j1"}}, "targets[0].cells[1].cell.name: rand-bs4k-r100-qd4-j1 again"},
		{"a read share beyond 100%", []edit{{read100 + ".cell.readPercent", 101}}, read100 + ".cell.readPercent: 101 is not a percentage"},
		{"a target not in the spec", []edit{{"targets[1].target", "other"}}, `targets[1].target: "other" is not one of spec.targets`},
		{"a target twice", []edit{{"targets[1].target", "standard"}}, `targets[1].target: "standard" again`},
		{"a target of another schema", []edit{{"targets[0].schemaVersion", "x"}}, `targets[0].schemaVersion: "x", want`},
		{"a negative start skew", []edit{{"targets[0].startSkewMicroseconds", -1}}, "targets[0].startSkewMicroseconds: -1 is negative"},
		{"a null comparison cell", []edit{{"comparison.cells[0]", nil}}, "comparison.cells[0].cell: empty"},
		{"a null baseline delta", []edit{{outcome, nil}}, outcome + ".target: empty"},
		{"a ratio that is no decimal", []edit{{outcome + ".iopsRatio", "Inf"}}, outcome + `.iopsRatio: "Inf" is not a decimal number`},
		{"a latency ratio in exponent notation", []edit{{outcome + ".latencyRatio.p99", "1e308"}}, outcome + `.latencyRatio.p99: "1e308" is not a decimal number`},
		{"a peak that is no number", []edit{{"comparison.targets[0].peakIOPS", "lots"}}, `comparison.targets[0].peakIOPS: "lots" is not a decimal number`},
		{"a violation's measure that is no number", []edit{{"violations[0].measured", "55%"}}, `violations[0].measured: "55%" is not a decimal number`},
		{"a null violation", []edit{{"violations[0]", nil}}, "violations[0].threshold: empty"},
		{"a violation of no severity", []edit{{"violations[0].severity", "Sometimes"}}, `violations[0].severity: "Sometimes" is not Fail or Warn`},
		{"a null warning", []edit{{"warnings[1]", nil}}, "warnings[1].reason: empty"},
		{"an unknown verdict", []edit{{"verdict", "Maybe"}}, `verdict: "Maybe" is not Passed`},
		{"a recommendation of nothing", []edit{{"recommendation.target", deleted{}}}, "recommendation.target: empty"},
		{"a baseline that is no target", []edit{{"spec.baseline", "gold"}}, `spec.baseline: "gold" is not one of spec.targets`},
		{"a spec target twice", []edit{{"spec.targets[1].name", "standard"}}, `spec.targets[1].name: "standard" again`},
		{"a matrix too large to expand", []edit{{"spec.workloads[0].queueDepths", []any{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}}}, "spec.workloads: the matrix expands to more than 64 cells"},
		{"a spec read share beyond 100%", []edit{{"spec.workloads[0].readPercents[0]", 200}}, "spec.workloads[0].readPercents[0]: 200 is not a percentage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := applyEdits(t, readTestdata(t, realRunResults[0]), tc.edits...)
			_, err := DecodeRunResult("result.json", data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// A metadata cell may be far shorter than an IO cell (a thousand stats take
// a millisecond), but not absurdly so; CPU figures are numbers, not
// negative.
func TestCheckBoundsMetadataRatesAndCPU(t *testing.T) {
	const stat = "targets[0].cells[2].repetitions[0]" // files-stat: 2000 operations
	for _, tc := range []struct {
		name  string
		edits []edit
		want  string
	}{
		{"absurd operations per second", []edit{{stat + ".read.iops", 1e10}}, stat + ".read.iops: 1e+10 from 2000 IOs: the cell would have lasted under a microsecond"},
		{"negative CPU seconds", []edit{{stat + ".cpu.systemSeconds", -0.5}}, stat + ".cpu.systemSeconds: -0.5 is negative"},
		{"a client's negative CPU share", []edit{{stat + ".clients[1].cpu.percent", -1}}, stat + ".clients[1].cpu.percent: -1 is negative"},
		{"more names than a job may have", []edit{{"spec.workloads[1].metadata.filesPerJob", 1e9}}, "spec.workloads[1].metadata.filesPerJob: 1000000000 is outside 1..65536"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := applyEdits(t, readTestdata(t, "testdata/run-result-metadata.json"), tc.edits...)
			_, err := DecodeRunResult("result.json", data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestCheckErrorsSayLineAndColumn: a hand-edited file's error points at the
// value (or, for a null, at the null) in the file, not only at its path.
func TestCheckErrorsSayLineAndColumn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  edit
		value string // the line's text from the error's column on
	}{
		{"a value that is wrong", edit{"targets[1].cells[3].repetitions[0].read.ios", -5}, "-5,"},
		{"a value inside a null", edit{"targets[0].cells[2]", nil}, "null,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := applyEdits(t, readTestdata(t, realRunResults[0]), tc.edit)
			_, err := DecodeRunResult("result.json", data)
			var doc *documentError
			if !errors.As(err, &doc) || doc.line == 0 {
				t.Fatalf("error %v says no line", err)
			}
			lines := bytes.Split(data, []byte("\n"))
			if got := string(lines[doc.line-1][doc.col-1:]); got != tc.value {
				t.Fatalf("%v points at %q, want %q", err, got, tc.value)
			}
			if !strings.HasPrefix(err.Error(), "result.json:"+strconv.Itoa(doc.line)+":"+strconv.Itoa(doc.col)+": targets[") {
				t.Fatalf("error %q does not start with file:line:column: path", err)
			}
		})
	}
}

func TestDecodeStoredChecksTheResults(t *testing.T) {
	rr, err := DecodeRunResult("run.json", readTestdata(t, realRunResults[0]))
	if err != nil {
		t.Fatal(err)
	}
	tr := rr.Targets[0]
	tr.Cells[1].Chosen = 5
	data, _, err := EncodeStored(tr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = DecodeStored(data, nil)
	if err == nil || !strings.Contains(err.Error(), "result.json:1:") || !strings.Contains(err.Error(), "cells[1].chosen: 5 is not one of the 2 repetitions") {
		t.Fatalf("error %v, want the stored key, position and path of the chosen repetition", err)
	}
	tr.Cells[1].Chosen = 0
	tr.Cells[1].Repetitions[0].Write.CompletionLatencyHistogram = "v1.x"
	data, _, _ = EncodeStored(tr)
	_, err = DecodeStored(data, nil)
	if !errors.Is(err, hist.ErrEncoding) || !strings.Contains(err.Error(), "cells[1].repetitions[0].write.completionLatencyHistogram") {
		t.Fatalf("error %v, want the histogram's path and its decode error", err)
	}
}

func TestRunResultNeedsItsSchema(t *testing.T) {
	_, err := DecodeRunResult(filepath.Join("dir", "r.json"), []byte(`{"schemaVersion":"storagebench.io/target-result/v1"}`))
	if err == nil || !strings.Contains(err.Error(), `r.json: schema "storagebench.io/target-result/v1", want "storagebench.io/run-result/v1"`) {
		t.Fatalf("error %v", err)
	}
}

func TestIsDecimalAcceptsWhatDecimalWrites(t *testing.T) {
	for _, v := range []float64{0, -0.5, 1234.5678, 1e21, -3e-7, 42} {
		if s := Decimal(v, 3); !isDecimal(s) {
			t.Errorf("Decimal(%v) = %q is refused", v, s)
		}
	}
	for _, s := range []string{"", "-", ".5", "1.", "1e3", "Inf", "NaN", "+1", "1.2.3", " 1"} {
		if isDecimal(s) {
			t.Errorf("%q is accepted", s)
		}
	}
}
