package clientrun

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// RoundSignal delivers the search rounds of a plan with searches, as the
// controller publishes them between rounds.
type RoundSignal interface {
	// WaitRound blocks until the round is published; like Wait, it also
	// returns the clock offset, with an error beyond the plan's bound.
	WaitRound(ctx context.Context, round int32) (plan.RoundRecord, time.Duration, error)
}

// roundSeedStride keeps every round's slots on seeds of their own: the
// same step twice must not walk the same offsets (a cache would serve it).
const roundSeedStride = 1 << 12

// runRounds is the client's part of the search protocol: it hands over the
// report of the round just run (round 0 is the plan's slots), waits for the
// next round and runs it, until a round says the searches are done. The
// data set stays as laid out; report then stands for the round under way.
func (c *Client) runRounds(ctx context.Context, report *results.ClientReport, data *dataSet) error {
	rounds, ok := c.Signal.(RoundSignal)
	if !ok || c.Emit == nil {
		return errors.New("the plan has capacity searches, and this client has no way to receive their rounds or hand over its reports")
	}
	for round := int32(1); ; round++ {
		if err := c.Emit(report); err != nil {
			return fmt.Errorf("handing over the report of round %d: %w", report.Round, err)
		}
		waitCtx, cancel := context.WithTimeout(ctx, time.Duration(max(c.Plan.WaitForRoundSeconds, c.Plan.WaitForStartSeconds, 1))*time.Second)
		record, offset, err := rounds.WaitRound(waitCtx, round)
		cancel()
		report.Round, report.Runs = round, nil
		report.ClockOffsetMilliseconds = offset.Milliseconds()
		if err != nil {
			return fmt.Errorf("waiting for search round %d: %w", round, err)
		}
		if record.Done {
			c.logf("searches done after round %d", round-1)
			return nil
		}
		report.StartUnixNano = record.Start.UnixNano()
		c.logf("search round %d: %d step(s) from %s", round, len(record.Slots), record.Start.Format(time.RFC3339Nano))
		for i, slot := range record.Slots {
			due := record.Start.Add(time.Duration(slot.OffsetMilliseconds) * time.Millisecond)
			if err := sleepUntil(ctx, due); err != nil {
				return err
			}
			runs := c.runSlot(ctx, int(round)*roundSeedStride+i, &slot, data, due)
			report.Runs = append(report.Runs, runs...)
			for _, r := range runs {
				if r.Error != "" {
					return fmt.Errorf("round %d, cell %s: %s", round, r.Cell, r.Error)
				}
			}
		}
	}
}
