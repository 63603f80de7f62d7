package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// TestRenderersTolerateResultsCheckWouldRefuse: results read from files and
// ConfigMaps pass results' Check first; results built any other way must
// still render rather than panic or draw charts of NaN.
func TestRenderersTolerateResultsCheckWouldRefuse(t *testing.T) {
	rr := quickstartResult(t)
	rr.Targets = append([]*results.TargetResult{nil}, rr.Targets...)
	rr.Targets[1].Cells[0].Chosen = 7
	rep := rr.Targets[2].Cells[1].Result()
	rep.Read.IOPS = math.Inf(1)
	rep.Write.LatencyHistogram = "v1.AAAA"
	rr.Comparison.Cells[0].VsBaseline[0].IOPSRatio = "Inf"
	rr.Comparison.Cells[1].VsBaseline[0].IOPSRatio = "1e308"
	rr.Spec.Targets = append(rr.Spec.Targets, rr.Spec.Targets[0])
	for name, write := range map[string]func(*bytes.Buffer, *results.RunResult) error{
		"table": func(b *bytes.Buffer, rr *results.RunResult) error { return WriteTable(b, rr) },
		"html":  func(b *bytes.Buffer, rr *results.RunResult) error { return WriteHTML(b, rr) },
	} {
		var out bytes.Buffer
		if err := write(&out, rr); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The table prints the comparison's ratios as the file spells them;
		// what the renderers compute must be numbers.
		rendered := strings.ReplaceAll(out.String(), "xInf/", "")
		for _, bad := range []string{"NaN", "Inf"} {
			if strings.Contains(rendered, bad) {
				t.Errorf("%s output holds %s", name, bad)
			}
		}
		if err := write(&out, nil); err == nil {
			t.Errorf("%s: no error for no results", name)
		}
		if err := write(&out, &results.RunResult{Spec: sbv1.StorageBenchmarkSpec{Targets: []sbv1.Target{{Name: "a"}}}}); err != nil {
			t.Errorf("%s: an empty run: %v", name, err)
		}
	}
}
