package engine

import (
	"runtime"
	"testing"
)

func TestOverlappingRunsShareGOMAXPROCS(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	releaseA := mustReserve(t, base+3)
	if got := runtime.GOMAXPROCS(0); got != base+4 {
		t.Fatalf("one run of %d workers: GOMAXPROCS %d, want %d", base+3, got, base+4)
	}
	releaseB := mustReserve(t, 2)
	if got := runtime.GOMAXPROCS(0); got != base+6 {
		t.Fatalf("two overlapping runs: GOMAXPROCS %d, want %d", got, base+6)
	}
	releaseA()
	if got := runtime.GOMAXPROCS(0); got != max(base, 3) {
		t.Fatalf("the first run ended while the second goes on: GOMAXPROCS %d, want %d", got, max(base, 3))
	}
	releaseB()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("all runs ended: GOMAXPROCS %d, want the original %d", got, base)
	}
}

func mustReserve(t *testing.T, n int) func() {
	t.Helper()
	release, err := reserveProcs(n, "test")
	if err != nil {
		t.Fatal(err)
	}
	return release
}
