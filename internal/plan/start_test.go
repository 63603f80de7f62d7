package plan

import (
	"testing"
	"time"
)

func TestStartLeadCoversAPollTheMeasuredReadsAndTheClockOffset(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name              string
		roundTrip, offset time.Duration
		want              time.Duration
	}{
		{"a fast API and the default offset bound", 5 * ms, 500 * ms, 200*ms + 20*ms + 500*ms + 500*ms},
		{"the smallest offset bound the API admits", 0, 10 * ms, 710 * ms},
		{"a slow read counts four times", 100 * ms, 500 * ms, 200*ms + 400*ms + 500*ms + 500*ms},
		{"one stalled read counts as 500 ms, no more", 20 * time.Second, 500 * ms, 200*ms + 2000*ms + 500*ms + 500*ms},
		{"a clock that stepped back measures no negative time", -time.Second, 500 * ms, 1200 * ms},
		{"a wide offset bound is waited for", 0, 60 * time.Second, 60*time.Second + 700*ms},
	} {
		if got := StartLead(tc.roundTrip, tc.offset); got != tc.want {
			t.Errorf("%s: StartLead(%s, %s) = %s, want %s", tc.name, tc.roundTrip, tc.offset, got, tc.want)
		}
	}
	if got, want := MaxStartLead(500*ms), 3200*ms; got != want {
		t.Errorf("MaxStartLead(500ms) = %s, want %s", got, want)
	}
}
