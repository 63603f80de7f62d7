package v1alpha1

import (
	"encoding/json"
	"strings"
	"testing"
)

// A ramp of 0 survives a typed client's round trip: dropped, the API server
// would default it to 5 s, and a schedule's runs would differ from its
// template.
func TestAZeroRampIsSerialized(t *testing.T) {
	zero := int32(0)
	b, err := json.Marshal(WorkloadGroup{Name: "w", DurationSeconds: 10, RampSeconds: &zero})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"rampSeconds":0`) {
		t.Fatalf("rampSeconds 0 is left out of %s", b)
	}
}
