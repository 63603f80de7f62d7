//go:build linux

package engine

import (
	"context"
	"testing"
	"time"
)

func runArgs(t *testing.T, args ...string) []jobIOs {
	t.Helper()
	jobs, opts, err := ParseArgs(append([]string{"--directory=" + t.TempDir()}, args...))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []jobIOs
	for i, j := range doc.Jobs {
		ext := doc.Storagebench.Jobs[i]
		out = append(out, jobIOs{Name: j.JobName, IOs: j.Read.TotalIOs + j.Write.TotalIOs, Start: time.Unix(0, ext.StartUnixNano)})
	}
	return out
}

// jobIOs is what these tests read of a job's result.
type jobIOs struct {
	Name  string
	IOs   int64
	Start time.Time
}

// number_ios stops a clone at exactly that many IOs, also when they are
// issued in batches at a queue depth (and, where auto falls back to psync,
// over the threads that keep the depth: see TestShareSplitsACountWhole).
func TestNumberIOsStopsAtExactlyThatMany(t *testing.T) {
	got := runArgs(t, "--name=n", "--ioengine=auto", "--iodepth=8", "--rw=randread", "--size=256k", "--number_ios=10")
	if got[0].IOs != 10 {
		t.Errorf("%d IOs, want number_ios=10", got[0].IOs)
	}
}

// startdelay counts from the run's start, as in fio, not from the other
// job's first IO (which comes a few milliseconds in, after its layout: on a
// loaded machine the two were measured 296.8 ms apart).
func TestStartdelayStartsTheJobLater(t *testing.T) {
	began := time.Now()
	got := runArgs(t, "--ioengine=psync", "--rw=write", "--size=64k", "--name=now", "--name=later", "--startdelay=300ms")
	if d := got[1].Start.Sub(began); d < 300*time.Millisecond {
		t.Errorf("the delayed job started %v after the run began, want at least 300ms", d)
	}
	if d := got[0].Start.Sub(began); d >= 300*time.Millisecond {
		t.Errorf("the job without startdelay started %v after the run began: it waited too", d)
	}
	if !got[1].Start.After(got[0].Start) {
		t.Errorf("the delayed job started at %v, not after the other (%v)", got[1].Start, got[0].Start)
	}
}

func TestShareSplitsACountWhole(t *testing.T) {
	for _, c := range []struct{ n, lanes int64 }{{10, 4}, {3, 8}, {0, 3}, {17, 1}} {
		var sum int64
		for lane := range c.lanes {
			sum += share(c.n, int(lane), int(c.lanes))
		}
		if sum != c.n {
			t.Errorf("shares of %d over %d lanes add up to %d", c.n, c.lanes, sum)
		}
	}
}

// Where auto falls back to psync, a clone keeps its queue depth with one
// thread per IO in flight: the threads' shares of number_ios and of the
// bytes add up to what one thread would issue, also when some threads'
// share is nothing.
func TestLimitsAddUpOverPsyncLanes(t *testing.T) {
	withProbedBackend(t, psyncFallback)
	for _, c := range []struct {
		args []string
		want int64
	}{
		{[]string{"--rw=randread", "--size=256k", "--number_ios=3"}, 3},
		{[]string{"--rw=randread", "--size=256k", "--number_ios=10"}, 10},
		{[]string{"--rw=write", "--size=256k", "--io_size=12k"}, 3},
		{[]string{"--rw=write", "--size=64k"}, 16},
	} {
		got := runArgs(t, append([]string{"--name=lanes", "--ioengine=auto", "--iodepth=8"}, c.args...)...)
		if got[0].IOs != c.want {
			t.Errorf("%v over 8 psync threads: %d IOs, want %d", c.args, got[0].IOs, c.want)
		}
	}
}
