package results

import (
	"math"
	"strings"
	"testing"
)

// CPU seconds come back from fio's percentages of each job's runtime and add
// up over clients; the percentage is the clients' mean, CPU per IO is over
// all IOs of all clients.
func TestCPUIsCarriedThroughTheMergeExactly(t *testing.T) {
	p := testPlan()
	reports := make([]*ClientReport, 2)
	for c := range reports {
		reads := make([]int64, 1000*(c+1)) // client 0: 1000 IOs, client 1: 2000
		for i := range reads {
			reads[i] = 50_000
		}
		run := fakeRun("w-bs4k-r100-qd8-j1", 1_000_000_000, reads, nil, "io_uring")
		job := &run.Document.Jobs[0]
		// 1 s measured (the extension's start..end); client 0 used
		// 0.2 s user + 0.3 s system, client 1 0.1 s + 0.7 s.
		job.JobRuntime = 1000
		job.UsrCPU, job.SysCPU = []float64{20, 10}[c], []float64{30, 70}[c]
		reports[c] = &ClientReport{SchemaVersion: ClientReportSchema, Benchmark: "b", Generation: 1, Target: "fast", Client: int32(c),
			Runs: []CellRun{run, fakeRun("w-bs4k-r70-qd8-j1", 5_000_000_000, reads, reads, "io_uring")}}
	}
	tr, err := Merge(p, reports)
	if err != nil {
		t.Fatal(err)
	}
	rep := tr.Cells[0].Result()
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	if rep.CPU == nil || rep.Clients[0].CPU == nil || rep.Clients[1].CPU == nil {
		t.Fatalf("no CPU in the merged cell: %+v", rep)
	}
	near("client 0 percent", rep.Clients[0].CPU.Percent, 50)
	near("client 1 percent", rep.Clients[1].CPU.Percent, 80)
	near("client 1 µs per IO", rep.Clients[1].CPU.MicrosecondsPerIO, 0.8/2000*1e6)
	near("user seconds", rep.CPU.UserSeconds, 0.3)
	near("system seconds", rep.CPU.SystemSeconds, 1.0)
	near("percent (mean of clients)", rep.CPU.Percent, 65)
	near("µs per IO (all clients)", rep.CPU.MicrosecondsPerIO, 1.3/3000*1e6)
	if tr.Cells[1].Result().CPU != nil {
		t.Errorf("a cell whose engine reported no CPU has none: %+v", tr.Cells[1].Result().CPU)
	}

	// The extension's nanoseconds, where the engine wrote them, win over
	// the percentages of a runtime in whole milliseconds.
	ext := &reports[0].Runs[0].Document.Storagebench.Jobs[0]
	ext.UserCPUNanoseconds, ext.SystemCPUNanoseconds = 123_456_789, 1
	if tr, err = Merge(p, reports); err != nil {
		t.Fatal(err)
	}
	near("client 0 user seconds from nanoseconds", tr.Cells[0].Result().Clients[0].CPU.UserSeconds, 0.123456789)

	// A report with impossible CPU figures is refused, naming the job.
	reports[1].Runs[0].Document.Jobs[0].SysCPU = math.Inf(1)
	if _, err := Merge(p, reports); err == nil || !strings.Contains(err.Error(), "non-finite CPU") {
		t.Fatalf("infinite CPU: %v", err)
	}
	reports[1].Runs[0].Document.Jobs[0].SysCPU, reports[1].Runs[0].Document.Jobs[0].JobRuntime = 1e300, 1e9
	if _, err := Merge(p, reports); err == nil || !strings.Contains(err.Error(), "implausible CPU time") {
		t.Fatalf("a forged CPU time: %v", err)
	}
	ext.SystemCPUNanoseconds = -1
	if _, err := Merge(p, reports); err == nil || !strings.Contains(err.Error(), "negative CPU time") {
		t.Fatalf("negative nanoseconds: %v", err)
	}
}
