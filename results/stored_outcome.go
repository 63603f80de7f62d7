package results

import (
	"encoding/json"
	"fmt"
)

// OutcomeSchema identifies the layout of a run's stored outcome, as kept in
// its comparison ConfigMap.
const OutcomeSchema = "storagebench.io/outcome/v1"

// StoredOutcome is a run's whole outcome (status keeps bounded summaries):
// the comparison with its rankings and baseline deltas per cell, every
// violation and every warning, the verdict and the recommendation.
type StoredOutcome struct {
	SchemaVersion string `json:"schemaVersion"`
	Benchmark     string `json:"benchmark"`
	Generation    int64  `json:"generation"`
	Outcome
}

// EncodeOutcome renders a run's outcome for its ConfigMap.
func EncodeOutcome(o *StoredOutcome) (map[string]string, map[string][]byte, error) {
	plain, err := json.Marshal(o)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the outcome of %s: %w", o.Benchmark, err)
	}
	data, binary, err := pack(plain)
	if err == nil && data == nil && binary == nil {
		err = fmt.Errorf("the outcome of %s does not fit a ConfigMap even gzipped", o.Benchmark)
	}
	return data, binary, err
}

// DecodeOutcome reads a comparison ConfigMap's data back.
func DecodeOutcome(data map[string]string, binary map[string][]byte) (*StoredOutcome, error) {
	raw, key, err := unpack(data, binary)
	if err != nil {
		return nil, err
	}
	o := &StoredOutcome{}
	if err := DecodeJSON(key, raw, o); err != nil {
		return nil, fmt.Errorf("reading the stored outcome: %w", err)
	}
	if o.SchemaVersion != OutcomeSchema {
		return nil, fmt.Errorf("stored outcome has schema %q, not %q", o.SchemaVersion, OutcomeSchema)
	}
	return o, nil
}
