package plan

import (
	"encoding/json"
	"fmt"
	"time"
)

// RoundKey is the key of the start ConfigMap under which the controller
// publishes a target's search rounds (the start is under the target's own
// name): one record at a time, the latest round.
func RoundKey(target string) string { return target + ".round" }

// RoundRecord is one round of search steps as the controller publishes it
// for a target's clients, which stay up between rounds: what to run (its
// slots, from Start as a start record's), or that the search is over and
// the clients may exit (Done).
type RoundRecord struct {
	StartRecord
	// Round counts from 1; round 0 is the plan's own slots.
	Round int32  `json:"round"`
	Slots []Slot `json:"slots,omitempty"`
	Done  bool   `json:"done,omitempty"`
}

// Encode renders the record as a ConfigMap value.
func (r RoundRecord) Encode() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// DecodeRoundRecord reads a ConfigMap value and checks that a client can
// run it.
func DecodeRoundRecord(value string) (RoundRecord, error) {
	var r RoundRecord
	if err := json.Unmarshal([]byte(value), &r); err != nil {
		return r, fmt.Errorf("round record: %w", err)
	}
	switch {
	case r.Round < 1:
		return r, fmt.Errorf("round record: round %d, want 1 or more", r.Round)
	case r.PublishedAt.IsZero() || (!r.Done && r.Start.IsZero()):
		return r, fmt.Errorf("round record %d lacks start or publishedAt", r.Round)
	case !r.Done && len(r.Slots) == 0:
		return r, fmt.Errorf("round record %d has no slots and is not done", r.Round)
	}
	return r, nil
}

// Duration is how long the round's slots run from its start.
func (r RoundRecord) Duration() time.Duration {
	return (&Plan{Slots: r.Slots}).Duration()
}

// roundOverhead is what a round costs besides its slots, at most: the
// start lead, and the controller reading the reports and deciding.
const roundOverhead = 10 * time.Second

// MaxSearchDuration bounds how long a target's search rounds can take: its
// clients stay up that much longer than its slots (their Jobs' deadline
// allows for it). Every search runs its steps in rounds of its own, so the
// bound is the sum over searches of maxSteps steps, each its ramp,
// duration and slot gap plus a round's overhead.
func (p *Plan) MaxSearchDuration() time.Duration {
	var total time.Duration
	for _, s := range p.Searches {
		step := time.Duration(s.Base.RampSeconds+s.Base.DurationSeconds)*time.Second + SlotGap + roundOverhead
		total += time.Duration(s.Target.MaxSteps) * step
	}
	return total
}
