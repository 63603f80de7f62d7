package engine

import (
	"errors"
	"strings"
	"testing"
)

// withProbedBackend makes the auto probe answer choice for the test.
func withProbedBackend(t *testing.T, choice backendChoice) {
	t.Helper()
	probeCache.Lock()
	savedDone, savedChoice := probeCache.done, probeCache.choice
	probeCache.done, probeCache.choice = true, choice
	probeCache.Unlock()
	t.Cleanup(func() {
		probeCache.Lock()
		probeCache.done, probeCache.choice = savedDone, savedChoice
		probeCache.Unlock()
	})
}

var psyncFallback = backendChoice{name: EnginePsync, reason: "auto: io_uring refused; libaio refused; using psync"}

func jobsOf(t *testing.T, args ...string) []JobSpec {
	t.Helper()
	jobs, _, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func TestWorkerThreadsCountsWhatRunStarts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		probed backendChoice
		args   []string
		want   int
		detail []string
	}{
		{"io_uring runs one thread per clone whatever the queue depth", backendChoice{name: EngineIOUring}, []string{"--name=a", "--size=1m", "--numjobs=4", "--iodepth=32"},
			4, []string{`job "a": 4 (numjobs=4, one thread per clone)`}},
		{"psync asked for by name runs one thread per clone, ignoring iodepth as fio does", psyncFallback, []string{"--name=a", "--size=1m", "--numjobs=3", "--iodepth=32", "--ioengine=psync"},
			3, []string{`job "a": 3 (numjobs=3, one thread per clone)`}},
		{"auto falling back to psync keeps iodepth with one thread per IO", psyncFallback, []string{"--name=a", "--size=1m", "--numjobs=2", "--iodepth=8"},
			16, []string{`job "a": 16 (numjobs=2 x iodepth=8: psync keeps the queue depth with one thread per IO)`}},
		{"the jobs of a list add up, the largest named first", psyncFallback, []string{"--size=1m", "--name=small", "--ioengine=libaio", "--name=big", "--iodepth=64", "--numjobs=2"},
			129, []string{`job "big": 128`, `; job "small": 1`}},
		{"beyond three jobs the rest are summed", backendChoice{name: EngineLibaio}, []string{"--size=1m", "--name=a", "--name=b", "--name=c", "--name=d", "--numjobs=2", "--name=e"},
			6, []string{`job "d": 2`, "2 more job(s): 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withProbedBackend(t, tc.probed)
			threads, detail := WorkerThreads(jobsOf(t, tc.args...))
			if threads != tc.want {
				t.Errorf("%d threads, want %d (%s)", threads, tc.want, detail)
			}
			for _, w := range tc.detail {
				if !strings.Contains(detail, w) {
					t.Errorf("detail %q lacks %q", detail, w)
				}
			}
		})
	}
}

func TestCheckWorkerThreadsAdmitsTheBoundAndRefusesOneMore(t *testing.T) {
	withProbedBackend(t, psyncFallback)
	atBound := jobsOf(t, "--name=a", "--size=1m", "--numjobs=2", "--iodepth=2048")
	if n, _ := WorkerThreads(atBound); n != MaxWorkerThreads {
		t.Fatalf("%d threads, want exactly the bound %d", n, MaxWorkerThreads)
	}
	if err := CheckWorkerThreads(atBound); err != nil {
		t.Fatalf("a plan at the bound is refused: %v", err)
	}
	above := jobsOf(t, "--size=1m", "--name=a", "--numjobs=2", "--iodepth=2048", "--name=b", "--ioengine=io_uring")
	err := CheckWorkerThreads(above)
	if err == nil || !errors.Is(err, ErrUsage) {
		t.Fatalf("a plan one thread above the bound: error %v, want a usage error", err)
	}
	for _, w := range []string{"need 4097 worker threads", `job "a": 4096 (numjobs=2 x iodepth=2048`, "bound of 4096",
		"reduce numjobs, or iodepth where psync keeps it with one thread per IO, or run fewer jobs concurrently"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

func TestThreadBudgetCountsEveryRunInFlight(t *testing.T) {
	// Account without raising the real GOMAXPROCS to thousands.
	procsNow := 1
	gomaxprocs = func(n int) int {
		prev := procsNow
		if n > 0 {
			procsNow = n
		}
		return prev
	}
	t.Cleanup(func() { gomaxprocs = runtimeGOMAXPROCS })

	t.Run("a run at the bound is admitted and gets one P per worker", func(t *testing.T) {
		release, err := reserveProcs(MaxWorkerThreads, "test")
		if err != nil {
			t.Fatal(err)
		}
		if procsNow != MaxWorkerThreads+1 {
			t.Errorf("GOMAXPROCS %d, want %d", procsNow, MaxWorkerThreads+1)
		}
		release()
		if procsNow != 1 {
			t.Errorf("GOMAXPROCS %d after the run, want 1 again", procsNow)
		}
	})
	t.Run("concurrent reservations add up against one bound", func(t *testing.T) {
		releaseA, err := reserveProcs(3000, "first")
		if err != nil {
			t.Fatal(err)
		}
		_, err = reserveProcs(MaxWorkerThreads-3000+1, `job "second": 1097`)
		if err == nil || !errors.Is(err, ErrUsage) {
			t.Fatalf("a second run over the bound: error %v, want a usage error", err)
		}
		for _, w := range []string{"need 1097 worker threads", `job "second": 1097`, "3000 are in use by other runs in this process", "bound of 4096"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
		releaseB, err := reserveProcs(MaxWorkerThreads-3000, "fits")
		if err != nil {
			t.Fatalf("a refused reservation was counted: %v", err)
		}
		releaseB()
		releaseA()
	})
	t.Run("a finished run makes room for the next", func(t *testing.T) {
		release, err := reserveProcs(MaxWorkerThreads, "again")
		if err != nil {
			t.Fatal(err)
		}
		release()
	})
}
