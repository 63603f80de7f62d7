package plan

import (
	"encoding/json"
	"fmt"
	"time"
)

// StartLead is how far ahead of its publication the start instant lies:
// long enough for every polling client to see it in time.
const StartLead = 3 * time.Second

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
