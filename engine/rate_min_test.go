//go:build linux

package engine

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The floor is judged per direction with IO, after fio's 2 s settle, over
// each rate_cycle from the previous check.
func TestTheRateFloorJudgesEachCycleAfterTheSettle(t *testing.T) {
	const s = int64(time.Second)
	f := newRateFloor(RateMin{IOPS: 100, Cycle: time.Second}, 0, 1)
	f.restart(0)
	if err := f.check(s, [2]int64{0, 0}, [2]int64{10, 0}); err != nil {
		t.Fatalf("judged within the settle period: %v", err)
	}
	if err := f.check(2*s, [2]int64{}, [2]int64{300, 0}); err != nil {
		t.Fatalf("the first check only starts the cycle: %v", err)
	}
	if err := f.check(2*s+s/2, [2]int64{}, [2]int64{310, 0}); err != nil {
		t.Fatalf("judged before the cycle ended: %v", err)
	}
	if err := f.check(3*s, [2]int64{}, [2]int64{400, 0}); err != nil {
		t.Fatalf("100 IOs in the 1 s cycle meet a floor of 100 IOPS: %v", err)
	}
	err := f.check(4*s, [2]int64{}, [2]int64{499, 0})
	if err == nil || !strings.Contains(err.Error(), "rate_iops_min=100 not met: reads did 99 IOPS over the last 1s") {
		t.Fatalf("99 IOs in a cycle: %v", err)
	}
}

// Lanes of one clone (psync's fallback) each keep their share of the floor.
func TestEachLaneKeepsItsShareOfTheFloor(t *testing.T) {
	const s = int64(time.Second)
	f := newRateFloor(RateMin{Bytes: 4000}, 1, 4)
	f.restart(0)
	_ = f.check(2*s, [2]int64{0, 100}, [2]int64{0, 1})
	if err := f.check(3*s, [2]int64{0, 1100}, [2]int64{0, 2}); err != nil {
		t.Fatalf("1000 B/s is a quarter of 4000: %v", err)
	}
	if err := f.check(4*s, [2]int64{0, 2000}, [2]int64{0, 3}); err == nil || !strings.Contains(err.Error(), "rate_min=1000B/s not met: writes did 900B/s") {
		t.Fatalf("900 B/s against a quarter of 4000: %v", err)
	}
}

// A job that keeps its floor runs to its end; one that falls below it ends
// with an error naming the floor, after the settle and one cycle.
func TestAJobBelowItsFloorEnds(t *testing.T) {
	doc := mustRun(t, "--name=kept", "--ioengine=null", "--size=1m", "--rw=randread", "--bs=4k",
		"--time_based", "--runtime=2500ms", "--rate_iops=1000", "--rate_iops_min=500", "--rate_cycle=200", "--output-format=json")
	if r := doc.Jobs[0].Read; r.TotalIOs < 2000 {
		t.Fatalf("the kept floor ended the job: %d reads", r.TotalIOs)
	}
	jobs, opts, err := ParseArgs([]string{"--name=slow", "--ioengine=null", "--size=1m", "--rw=randread", "--bs=4k",
		"--time_based", "--runtime=10s", "--thinktime=10ms", "--rate_iops_min=1000", "--rate_cycle=200ms"})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	_, err = Run(context.Background(), jobs, opts)
	if err == nil || !strings.Contains(err.Error(), `job "slow": rate_iops_min=1000 not met: reads did`) {
		t.Fatalf("about 100 IOPS against a floor of 1000: %v", err)
	}
	if took := time.Since(started); took > 5*time.Second {
		t.Fatalf("the job ran %v; the floor should end it after 2 s and one 200 ms cycle", took)
	}
}

func TestAFloorAboveTheCapIsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--rate_iops=10", "--rate_iops_min=20"},
		{"--rate=1m", "--rate_min=2m"},
	} {
		jobs, opts, err := ParseArgs(append([]string{"--name=t", "--ioengine=null", "--size=1m"}, args...))
		if err == nil {
			_, err = Run(context.Background(), jobs, opts)
		}
		if err == nil || !strings.Contains(err.Error(), "which caps the job below its floor") {
			t.Errorf("%v: %v", args, err)
		}
	}
}
