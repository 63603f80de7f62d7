package clientrun

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/storagebench/storagebench/internal/plan"
)

func TestAClientWhoseSlotNeedsTooManyThreadsFailsBeforeLayingOut(t *testing.T) {
	b := smallBenchmark(1, false)
	dir := t.TempDir()
	p := plan.Build(b, &b.Spec.Targets[0], dir)
	// No spec admits this (16 groups of 64 jobs is 1024): a plan is input
	// to the client all the same, and 65 cells of 64 jobs is 4160 threads.
	cell := p.Slots[0].Cells[0]
	cell.NumJobs = 64
	p.Slots[0].Cells = nil
	for range 65 {
		p.Slots[0].Cells = append(p.Slots[0].Cells, cell)
	}
	r := (&Client{Plan: p, Signal: NewBarrier(1, 0)}).Run(context.Background())
	for _, want := range []string{"one client needs 4160 engine threads at once", "slot 1 of repetition 1", "more than the 4096", "lower numJobs"} {
		if !strings.Contains(r.Error, want) {
			t.Errorf("error %q lacks %q", r.Error, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("the data set was laid out before the refusal: %v", entries)
	}
}
