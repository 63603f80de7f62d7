//go:build linux

package engine

import (
	"strings"
	"testing"
)

// The backends with a completion ring spin before an untimed wait sleeps,
// and say so in the backend reason; psync (its IO happens in the wait) and
// a wait for several completions at once do not.
func TestWhichWorkersSpinBeforeSleeping(t *testing.T) {
	for _, c := range []struct {
		engine, batch string
		spins         bool
	}{
		{EngineIOUring, "1", true},
		{EngineLibaio, "1", true},
		{EngineIOUring, "2", false},
		{EngineLibaio, "2", false},
		{EnginePsync, "1", false},
	} {
		t.Run(c.engine+"-complete-min-"+c.batch, func(t *testing.T) {
			doc := mustRun(t, "--name=s", "--directory="+t.TempDir(), "--size=1m", "--rw=randread", "--bs=4k", "--iodepth=4",
				"--direct=1", "--ioengine="+c.engine, "--iodepth_batch_complete_min="+c.batch)
			if n := doc.Jobs[0].Read.TotalIOs; n != 256 {
				t.Fatalf("%d reads, want 256 (1 MiB / 4 KiB)", n)
			}
			reason := doc.Storagebench.Jobs[0].BackendReason
			if got := strings.Contains(reason, "spin_wait"); got != c.spins {
				t.Fatalf("backend reason %q: spin_wait %v, want %v", reason, got, c.spins)
			}
		})
	}
}
