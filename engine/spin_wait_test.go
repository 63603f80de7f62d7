package engine

import (
	"testing"
	"time"
)

// fakeSpin is a spinWait on a clock that moves 1 µs per reading and a
// completion that turns up after readyAfter readings of ready (never if
// negative).
type fakeSpin struct {
	s          *spinWait
	now        int64
	clockReads int
	readyCalls int
	readyAfter int
}

func newFakeSpin() *fakeSpin {
	f := &fakeSpin{readyAfter: -1}
	f.s = newSpinWait(func() bool {
		f.readyCalls++
		return f.readyAfter >= 0 && f.readyCalls > f.readyAfter
	}, spinBudget)
	f.s.clock = func() int64 { f.clockReads++; f.now += 1000; return f.now }
	return f
}

// wait runs one spin with a completion readyAfter readings away and says
// whether it spun (read the clock).
func (f *fakeSpin) wait(readyAfter int) (spun bool) {
	f.readyCalls, f.readyAfter = 0, readyAfter
	before := f.clockReads
	f.s.spin()
	return f.clockReads > before
}

func TestSpinReturnsAtOnceWhenACompletionIsThere(t *testing.T) {
	f := newFakeSpin()
	f.s.skip, f.s.backoff = 3, 8
	if f.wait(0) {
		t.Fatal("spun although a completion was already there")
	}
	if f.s.skip != 3 || f.s.backoff != 8 {
		t.Fatalf("skip %d backoff %d, want them untouched (3, 8): nothing was learnt", f.s.skip, f.s.backoff)
	}
}

func TestSpinStopsAtItsBudget(t *testing.T) {
	f := newFakeSpin()
	if !f.wait(-1) {
		t.Fatal("did not spin")
	}
	// The clock moves 1 µs a reading: the budget in µs, plus the reading
	// that set the deadline.
	if want := int(spinBudget.Microseconds()) + 1; f.clockReads != want {
		t.Fatalf("%d clock readings, want %d (the spin ends when its budget is spent)", f.clockReads, want)
	}
}

func TestMissesBackOffAndAHitStartsOver(t *testing.T) {
	f := newFakeSpin()
	// With no completion ever in the budget, spins happen at waits 0, 2,
	// 5, 10, 19, ...: after the k-th miss the next 2^(k-1) waits do not
	// spin, up to spinBackoffMost.
	var spunAt []int
	for i := 0; i < 400; i++ {
		if f.wait(-1) {
			spunAt = append(spunAt, i)
		}
	}
	want := []int{0, 2, 5, 10, 19, 36, 69, 134, 199, 264, 329, 394}
	if len(spunAt) != len(want) {
		t.Fatalf("spun at waits %v, want %v", spunAt, want)
	}
	for i := range want {
		if spunAt[i] != want[i] {
			t.Fatalf("spun at waits %v, want %v", spunAt, want)
		}
	}
	// Waits that skip do not read the clock: a slow device costs at most
	// one budget per spinBackoffMost+1 waits once backed off.
	for f.s.skip > 0 {
		f.wait(-1)
	}
	// A completion within the budget: it is taken, and the next miss skips
	// only one wait again.
	if !f.wait(2) {
		t.Fatal("did not spin")
	}
	if f.s.backoff != 1 {
		t.Fatalf("backoff %d after a hit, want 1", f.s.backoff)
	}
	if !f.wait(-1) || f.wait(-1) || !f.wait(-1) {
		t.Fatal("after a hit and a miss the worker should skip exactly one wait before spinning again")
	}
}

func TestTheLongLookOnlyWhereACPUIsLeftOverAndBlocksAreSmall(t *testing.T) {
	for _, c := range []struct {
		workers, cpus int
		largestBlock  int64
		want          time.Duration
	}{
		{1, 2, 4096, spinBudget},              // QD1 or QD8 on a 2-CPU machine
		{1, 2, 16 << 10, spinBudget},          // the largest block that looks long
		{1, 2, 16<<10 + 512, spinBudgetShort}, // just over
		{1, 2, 128 << 10, spinBudgetShort},    // a 128k job, or a bssplit up to 128k
		{2, 2, 4096, spinBudgetShort},         // every CPU has a worker
		{8, 2, 8192, spinBudgetShort},         // 8 jobs on 2 CPUs
		{3, 16, 4096, spinBudget},
		{1, 1, 4096, spinBudgetShort}, // a pod limited to one CPU
		{0, 0, 4096, spinBudgetShort}, // nothing reserved: the short look
	} {
		if got := spinBudgetFor(c.workers, c.cpus, c.largestBlock); got != c.want {
			t.Errorf("%d workers on %d CPUs, blocks up to %d: look %v, want %v", c.workers, c.cpus, c.largestBlock, got, c.want)
		}
	}
	if spinBudgetShort >= spinBudget {
		t.Fatalf("the short look (%v) must be the shorter", spinBudgetShort)
	}
}
