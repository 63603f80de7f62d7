//go:build linux

package engine

import (
	"strings"
	"testing"
)

// The backends with a completion ring look for a completion before an
// untimed wait sleeps, and say so in the backend reason; psync (its IO
// happens in the wait), a wait for several completions at once and
// sb_spin_wait=0 do not. io_uring looks only where the kernel flags task
// work (taskrun_flag, 5.19 on).
func TestWhichWorkersSpinBeforeSleeping(t *testing.T) {
	for _, c := range []struct {
		engine, batch, spinWait string
		spins                   bool
	}{
		{EngineIOUring, "1", "1", true},
		{EngineLibaio, "1", "1", true},
		{EngineIOUring, "2", "1", false},
		{EngineLibaio, "2", "1", false},
		{EngineIOUring, "1", "0", false},
		{EngineLibaio, "1", "0", false},
		{EnginePsync, "1", "1", false},
	} {
		t.Run(c.engine+"-complete-min-"+c.batch+"-sb_spin_wait-"+c.spinWait, func(t *testing.T) {
			doc := mustRun(t, "--name=s", "--directory="+t.TempDir(), "--size=1m", "--rw=randread", "--bs=4k", "--iodepth=4",
				"--direct=1", "--ioengine="+c.engine, "--iodepth_batch_complete_min="+c.batch, "--sb_spin_wait="+c.spinWait)
			if n := doc.Jobs[0].Read.TotalIOs; n != 256 {
				t.Fatalf("%d reads, want 256 (1 MiB / 4 KiB)", n)
			}
			reason := doc.Storagebench.Jobs[0].BackendReason
			want := c.spins
			if c.engine == EngineIOUring && !strings.Contains(reason, "taskrun_flag") {
				want = false // a kernel before 5.19: nothing tells a waiting completion
			}
			if got := strings.Contains(reason, "spin_wait"); got != want {
				t.Fatalf("backend reason %q: spin_wait %v, want %v", reason, got, want)
			}
		})
	}
}

// The backend reason names the look a job's workers take: the short one
// for blocks over 16 KiB whatever the CPUs, and one of the two for 4k.
func TestTheBackendReasonNamesTheLook(t *testing.T) {
	for _, c := range []struct {
		bs   string
		want []string
	}{
		{"128k", []string{"spin_wait_5us"}},
		{"4k", []string{"spin_wait_30us", "spin_wait_5us"}},
	} {
		doc := mustRun(t, "--name=s", "--directory="+t.TempDir(), "--size=1m", "--rw=randread", "--bs="+c.bs, "--iodepth=4",
			"--direct=1", "--ioengine=libaio")
		reason := doc.Storagebench.Jobs[0].BackendReason
		found := false
		for _, w := range c.want {
			found = found || strings.Contains(reason, w)
		}
		if !found {
			t.Errorf("bs=%s: backend reason %q names none of %v", c.bs, reason, c.want)
		}
	}
}
