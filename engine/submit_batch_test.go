//go:build linux

package engine

import (
	"testing"
	"time"
)

// submitCounter is a queueDevice that records how many IOs each submission
// carried.
type submitCounter struct {
	queueDevice
	sizes []int
}

func (d *submitCounter) submit() error {
	if len(d.pending) > 0 {
		d.sizes = append(d.sizes, len(d.pending))
	}
	return d.queueDevice.submit()
}

func TestIodepthBatchSubmitIsParsedAsFiosOption(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want int // SubmitBatch; submitEvery at iodepth 8 follows
		at8  int
	}{
		{"", 0, 1},
		{"--iodepth_batch_submit=1", 1, 1},
		{"--iodepth_batch_submit=4", 4, 4},
		{"--iodepth_batch=4", 4, 4}, // fio's alias
		{"--iodepth_batch_submit=0", maxSubmitBatch, 8},
		{"--iodepth_batch_submit=16", 16, 8},
		{"--iodepth_batch_submit=1k", 1024, 8},
		{"--iodepth_batch_submit=1g", maxSubmitBatch, 8},
	} {
		args := []string{"--name=b", "--size=1m", "--iodepth=8"}
		if tc.arg != "" {
			args = append(args, tc.arg)
		}
		jobs, _, err := ParseArgs(args)
		if err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		if got := jobs[0].SubmitBatch; got != tc.want {
			t.Errorf("%q: SubmitBatch %d, want %d", tc.arg, got, tc.want)
		}
		if got := jobs[0].submitEvery(8); got != tc.at8 {
			t.Errorf("%q: %d IOs per submission at iodepth 8, want %d", tc.arg, got, tc.at8)
		}
	}
}

// As fio by default, each IO goes to the kernel as soon as it is prepared
// (a batch holds an IO back until the last of it is prepared, and the
// device idles meanwhile); iodepth_batch_submit groups them, and 0 submits
// every free slot at once.
func TestWorkerSubmitsAsIodepthBatchSubmitSays(t *testing.T) {
	for _, tc := range []struct {
		arg      string
		max, top int // the largest submission; the first one's size
	}{
		{"", 1, 1},
		{"--iodepth_batch_submit=3", 3, 3},
		{"--iodepth_batch_submit=0", 8, 8},
	} {
		dev := &submitCounter{queueDevice: queueDevice{service: 200 * time.Microsecond}}
		newBackend = func(string, int, []int, []byte) (backend, string, error) { return dev, "", nil }
		args := []string{"--name=b", "--directory=" + t.TempDir(), "--size=1m", "--rw=randread", "--bs=4k", "--ioengine=libaio",
			"--iodepth=8", "--runtime=300ms", "--time_based", "--output-format=json"}
		if tc.arg != "" {
			args = append(args, tc.arg)
		}
		doc := mustRun(t, args...)
		newBackend = openBackend
		if len(dev.sizes) == 0 {
			t.Fatalf("%q: nothing was submitted", tc.arg)
		}
		most := 0
		for _, n := range dev.sizes {
			most = max(most, n)
		}
		if most != tc.max || dev.sizes[0] != tc.top {
			t.Errorf("%q: largest submission %d IOs, first %d; want %d and %d", tc.arg, most, dev.sizes[0], tc.max, tc.top)
		}
		// Each submission counts at the depth it brought the queue to, as
		// fio's does: refilling k slots one at a time counts depths 9-k
		// to 8 (the model completes a few IOs per wait, more on a loaded
		// machine, so only the full queue's presence is asserted).
		if d := doc.Jobs[0].IODepth["8"]; d == 0 {
			t.Errorf("%q: no IO issued at depth 8 (%v), want the queue filled", tc.arg, doc.Jobs[0].IODepth)
		}
	}
}
