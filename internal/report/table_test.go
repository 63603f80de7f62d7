package report

import (
	"bytes"
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
