package clientrun

import (
	"context"
	"strings"
	"testing"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// scriptedRounds plays the controller: a start now, then the rounds given,
// then Done; it records which rounds the client asked for.
type scriptedRounds struct {
	rounds [][]plan.Slot
	asked  []int32
}

func (s *scriptedRounds) Wait(context.Context) (time.Time, time.Duration, error) {
	return time.Now().Add(50 * time.Millisecond), 0, nil
}

func (s *scriptedRounds) WaitRound(_ context.Context, round int32) (plan.RoundRecord, time.Duration, error) {
	s.asked = append(s.asked, round)
	now := time.Now()
	r := plan.RoundRecord{StartRecord: plan.StartRecord{Generation: 1, Start: now.Add(50 * time.Millisecond), PublishedAt: now}, Round: round}
	if int(round) > len(s.rounds) {
		r.Done = true
		return r, 0, nil
	}
	r.Slots = s.rounds[round-1]
	return r, 0, nil
}

func TestAClientStaysUpForItsSearchRoundsAndHandsOverEachReport(t *testing.T) {
	b := smallBenchmark(1, false)
	b.Spec.Workloads = []sbv1.WorkloadGroup{{
		Name: "knee", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100}, QueueDepths: []int32{4}, DurationSeconds: 1,
		RampSeconds: ptr32(0), LatencyTarget: &sbv1.LatencyTarget{Microseconds: 2000},
	}}
	p := plan.Build(b, &b.Spec.Targets[0], t.TempDir())
	if !p.HasRounds() || len(p.Slots) != 0 {
		t.Fatalf("plan: %d searches, %d slots", len(p.Searches), len(p.Slots))
	}
	search := p.Searches[0]
	step := func(n int, rate int64) []plan.Slot {
		return p.Round([]sbv1.Cell{search.Step(n, sbv1.StepLoad{OfferedIOPS: rate, QueueDepth: 4}, 1)}, false).Slots
	}
	signal := &scriptedRounds{rounds: [][]plan.Slot{step(1, 0), step(2, 200)}}
	var handed []*results.ClientReport
	c := &Client{Plan: p, Index: 0, Signal: signal, Ready: func() error { return nil },
		Emit: func(r *results.ClientReport) error {
			copied := *r
			handed = append(handed, &copied)
			return nil
		}}
	final := c.Run(context.Background())
	if final.Error != "" {
		t.Fatal(final.Error)
	}
	if got := signal.asked; len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("rounds asked for %v, want 1, 2, 3 (done)", got)
	}
	if len(handed) != 3 || handed[0].Round != 0 || len(handed[0].Runs) != 0 || handed[1].Round != 1 || handed[2].Round != 2 {
		t.Fatalf("reports handed over: %d (rounds %v)", len(handed), roundsOf(handed))
	}
	for _, r := range handed[1:] {
		if len(r.Runs) != 1 || r.Runs[0].Document == nil || r.Runs[0].Document.Jobs[0].Read.TotalIOs == 0 {
			t.Fatalf("round %d: runs %+v", r.Round, r.Runs)
		}
	}
	if !strings.HasSuffix(handed[2].Runs[0].Cell, "-s2") || handed[2].Runs[0].Document.Storagebench.Jobs[0].RateTargetIOPS != 200 {
		t.Fatalf("round 2 ran %s at %d IOPS", handed[2].Runs[0].Cell, handed[2].Runs[0].Document.Storagebench.Jobs[0].RateTargetIOPS)
	}
	if final.Round != 3 || len(final.Runs) != 0 {
		t.Fatalf("final report: round %d with %d runs, want the done round with none", final.Round, len(final.Runs))
	}
}

func TestAClientWithoutARoundChannelFailsSayingWhy(t *testing.T) {
	b := smallBenchmark(1, false)
	b.Spec.Workloads[0].LatencyTarget = &sbv1.LatencyTarget{Microseconds: 2000}
	b.Spec.Workloads = b.Spec.Workloads[:1]
	p := plan.Build(b, &b.Spec.Targets[0], t.TempDir())
	barrier := NewBarrier(1, 10*time.Millisecond)
	c := &Client{Plan: p, Signal: barrier, Ready: barrier.Ready}
	r := c.Run(context.Background())
	if !strings.Contains(r.Error, "no way to receive their rounds") {
		t.Fatalf("error %q", r.Error)
	}
}

func roundsOf(rs []*results.ClientReport) []int32 {
	var out []int32
	for _, r := range rs {
		out = append(out, r.Round)
	}
	return out
}
