//go:build linux

package engine

import (
	"strings"
	"testing"
	"time"
)

func TestIodepthBatchCompleteIsParsedAsFiosOptions(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		least, most    int // reapBounds at iodepth 8
		wantMin, wantM int // CompleteMin, CompleteMax as stored
	}{
		{nil, 1, 1, 0, 0}, // fio's defaults: one, and max = min
		{[]string{"--iodepth_batch_complete_min=0"}, 1, 1, 0, 0},
		{[]string{"--iodepth_batch_complete_min=4"}, 4, 4, 4, 0},
		{[]string{"--iodepth_batch_complete=4"}, 4, 4, 4, 0}, // fio's alias
		{[]string{"--iodepth_batch_complete_max=8"}, 1, 8, 0, 8},
		{[]string{"--iodepth_batch_complete_min=2", "--iodepth_batch_complete_max=6"}, 2, 6, 2, 6},
		{[]string{"--iodepth_batch_complete_max=64"}, 1, 8, 0, 64}, // never more than the queue
		{[]string{"--iodepth_batch_complete_min=16"}, 8, 8, 16, 0},
	} {
		jobs, _, err := ParseArgs(append([]string{"--name=b", "--size=1m", "--iodepth=8"}, tc.args...))
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		j := jobs[0]
		if j.CompleteMin != tc.wantMin || j.CompleteMax != tc.wantM {
			t.Errorf("%v: stored min %d max %d, want %d and %d", tc.args, j.CompleteMin, j.CompleteMax, tc.wantMin, tc.wantM)
		}
		if least, most := j.reapBounds(8); least != tc.least || most != tc.most {
			t.Errorf("%v: a wait reaps %d to %d at iodepth 8, want %d to %d", tc.args, least, most, tc.least, tc.most)
		}
	}
	_, _, err := ParseArgs([]string{"--name=b", "--size=1m", "--iodepth=8", "--iodepth_batch_complete_min=4", "--iodepth_batch_complete_max=2"})
	if want := `job "b": iodepth_batch_complete_max: 2 is below iodepth_batch_complete_min (4)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("max below min: error %v, want one containing %q", err, want)
	}
}

// reapRecorder is a queueDevice that records the bounds of each wait made
// with IOs in flight.
type reapRecorder struct {
	queueDevice
	bounds map[[2]int]int // {minComplete, maxComplete}: waits
}

func (d *reapRecorder) wait(minComplete, maxComplete int, timeout time.Duration, out []completion) ([]completion, error) {
	if len(d.queued) > 0 {
		d.bounds[[2]int{minComplete, maxComplete}]++
	}
	return d.queueDevice.wait(minComplete, maxComplete, timeout, out)
}

// As fio by default, a worker reaps one completion per wait and refills
// its slot, so (after the first fill) every IO goes to the kernel with the
// queue at its depth; reaping every completion there is refilled several
// slots one after another, each at a lower depth.
func TestWorkerReapsAsIodepthBatchCompleteSays(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want [2]int // the bounds of the waits with the queue full
	}{
		{nil, [2]int{1, 1}},
		{[]string{"--iodepth_batch_complete_min=2", "--iodepth_batch_complete_max=6"}, [2]int{2, 6}},
	} {
		dev := &reapRecorder{queueDevice: queueDevice{service: 200 * time.Microsecond}, bounds: map[[2]int]int{}}
		newBackend = func(string, int, []int, []byte) (backend, string, error) { return dev, "", nil }
		args := append([]string{"--name=r", "--directory=" + t.TempDir(), "--size=1m", "--rw=randread", "--bs=4k", "--ioengine=libaio",
			"--iodepth=8", "--runtime=300ms", "--time_based", "--output-format=json"}, tc.args...)
		doc := mustRun(t, args...)
		newBackend = openBackend
		waits := 0
		for b, n := range dev.bounds {
			waits += n
			if b[1] != tc.want[1] || b[0] > tc.want[0] {
				t.Errorf("%v: %d waits reaping %d to %d, want at most %d to %d", tc.args, n, b[0], b[1], tc.want[0], tc.want[1])
			}
		}
		if dev.bounds[tc.want] == 0 {
			t.Errorf("%v: no wait reaping %d to %d (%v)", tc.args, tc.want[0], tc.want[1], dev.bounds)
		}
		if waits == 0 {
			t.Fatalf("%v: no wait with IOs in flight", tc.args)
		}
		if tc.args == nil {
			// Only the first fill counts below 8: 7 of the run's
			// IOs (hundreds at 200 µs per IO).
			if d := doc.Jobs[0].IODepth["8"]; d < 95 {
				t.Errorf("default: %.1f %% of IOs issued at depth 8 (%v), want nearly all", d, doc.Jobs[0].IODepth)
			}
		}
	}
}
