package plan

import (
	"encoding/json"
	"fmt"
	"time"
)

// StartPollInterval is how often a waiting cluster client reads the start
// record: the lead must cover one interval.
const StartPollInterval = 200 * time.Millisecond

// startLeadMargin covers what a measured round trip does not: the write
// of the record itself, the clients' decoding and timer set-up, and reads
// from pods slower than the one the controller timed (a short stall of the
// API server, queueing behind other clients' requests). It is also all the
// slack a client whose clock is ahead by the whole allowed offset has.
const startLeadMargin = 500 * time.Millisecond

// maxCountedRoundTrip bounds the measured read round trip that goes into the
// lead, so that one stalled request does not push the start seconds away.
const maxCountedRoundTrip = 500 * time.Millisecond

// StartLead is how far ahead of its publication the start instant lies,
// from a read round trip the controller measured just before publishing
// and the clock offset the spec allows. A waiting client sees the record
// within one poll plus one read; reads from pods may be a few times slower
// than the controller's, hence four round trips; and a client whose clock
// runs ahead of the controller's by up to maxClockOffset must still read it
// before its own clock reaches the start (it refuses to start late). With
// the default bound of 500 ms and a fast API server this is about 1.2 s
// (it was a fixed 3 s); it is never more than MaxStartLead. A client that
// cannot read the API for longer than the lead less a poll and its clock
// offset sees the start too late and fails the run, saying so.
func StartLead(readRoundTrip, maxClockOffset time.Duration) time.Duration {
	counted := min(max(readRoundTrip, 0), maxCountedRoundTrip)
	return StartPollInterval + 4*counted + startLeadMargin + max(maxClockOffset, 0)
}

// MaxStartLead is the longest lead StartLead gives for a clock offset
// bound: what deadlines must allow for.
func MaxStartLead(maxClockOffset time.Duration) time.Duration {
	return StartLead(maxCountedRoundTrip, maxClockOffset)
}

// StartRecord is what the controller publishes, under the target's key of
// the start ConfigMap, once every client of the target is ready.
type StartRecord struct {
	Generation int64     `json:"generation"`
	Start      time.Time `json:"start"`
	// PublishedAt is the controller's clock when it wrote the record; a
	// client that reads it a moment later compares it with its own clock.
	PublishedAt time.Time `json:"publishedAt"`
}

// Encode renders the record as a ConfigMap value.
func (s StartRecord) Encode() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// DecodeStartRecord reads a ConfigMap value.
func DecodeStartRecord(value string) (StartRecord, error) {
	var s StartRecord
	if err := json.Unmarshal([]byte(value), &s); err != nil {
		return s, fmt.Errorf("start record %q: %w", value, err)
	}
	if s.Start.IsZero() || s.PublishedAt.IsZero() {
		return s, fmt.Errorf("start record %q lacks start or publishedAt", value)
	}
	return s, nil
}
