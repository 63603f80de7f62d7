//go:build linux

package engine

import (
	"bytes"
	"errors"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestBackendsReadBackWhatTheyWrote drives every backend through the same
// interface the workers use: write distinct blocks, fsync, read them back.
func TestBackendsReadBackWhatTheyWrote(t *testing.T) {
	for _, kind := range []string{EngineIOUring, EngineLibaio, EnginePsync} {
		t.Run(kind, func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			const bs = 4096
			depth := 8
			if kind == EnginePsync {
				depth = 1
			}
			fd, err := unix.Open(filepath.Join(t.TempDir(), "f"), unix.O_RDWR|unix.O_CREAT|unix.O_DIRECT, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			a, err := newArena(2*depth, bs)
			if err != nil {
				t.Fatal(err)
			}
			defer a.close()
			be, features, err := openBackend(kind, depth, []int{fd}, a.mem)
			if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
				t.Skipf("the kernel refuses %s here: %v", kind, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer be.close()
			t.Logf("%s features: %q", kind, features)
			r := newRNG(7)
			const blocks = 16
			written := make([][]byte, blocks)
			for i := 0; i < blocks; i += depth {
				for k := 0; k < depth; k++ {
					buf := a.slot(k)[:bs]
					r.fill(buf)
					scramble(buf, int64((i+k)*bs), 1)
					written[i+k] = bytes.Clone(buf)
					be.prepWrite(0, buf, int64((i+k)*bs), k)
				}
				waitFor(t, be, depth, depth, bs)
			}
			be.prepSync(0, false, 0)
			waitFor(t, be, 1, 1, 0)
			for i := 0; i < blocks; i += depth {
				for k := 0; k < depth; k++ {
					be.prepRead(0, a.slot(depth + k)[:bs], int64((i+k)*bs), depth+k)
				}
				// One completion per wait, fio's default: the rest
				// stay for the next waits.
				waitFor(t, be, depth, 1, bs)
				for k := 0; k < depth; k++ {
					if !bytes.Equal(a.slot(depth + k)[:bs], written[i+k]) {
						t.Fatalf("block %d read back differs from what was written", i+k)
					}
				}
			}
		})
	}
}

// waitFor submits what is prepared and waits until n IOs completed with
// result res, reaping at most most per wait.
func waitFor(t *testing.T, be backend, n, most int, res int32) {
	t.Helper()
	var got []completion
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		if err := be.submit(); err != nil {
			t.Fatal(err)
		}
		before := len(got)
		var err error
		if got, err = be.wait(1, most, time.Second, got); err != nil {
			t.Fatal(err)
		}
		if len(got)-before > most {
			t.Fatalf("one wait reaped %d completions, at most %d asked for", len(got)-before, most)
		}
	}
	if len(got) != n {
		t.Fatalf("%d of %d completions", len(got), n)
	}
	for _, c := range got {
		if c.res != res {
			t.Fatalf("slot %d: result %d, want %d", c.slot, c.res, res)
		}
	}
}

func TestPacerSchedule(t *testing.T) {
	p := newPacer(1000, 0, 1, 0, RateProcessLinear, 0) // one IO per millisecond from t=0
	if d := p.due(0); d != 1 {
		t.Fatalf("due at 0 = %d, want 1", d)
	}
	if d := p.due(9_999_999); d != 10 {
		t.Fatalf("due just before 10ms = %d, want 10", d)
	}
	for k := uint64(0); k < 10; k++ {
		if got := p.next(); got != int64(k)*1e6 {
			t.Fatalf("IO %d intended at %d", k, got)
		}
	}
	if d := p.due(9_999_999); d != 0 {
		t.Fatalf("after issuing, due = %d", d)
	}
	if p.nextDue() != 10e6 {
		t.Fatalf("next due %d", p.nextDue())
	}
	// Two lanes interleave: lane 1 owns the odd schedule positions.
	l1 := newPacer(1000, 1, 2, 0, RateProcessLinear, 0).(*evenPacer)
	if l1.due(0) != 0 || l1.due(1e6) != 1 || l1.intended(0) != 1e6 || l1.intended(1) != 3e6 {
		t.Fatalf("lane 1: due(0)=%d due(1ms)=%d intended %d %d", l1.due(0), l1.due(1e6), l1.intended(0), l1.intended(1))
	}
}
