package results

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Keys of a results ConfigMap.
const (
	StoredKey        = "result.json"
	StoredGzipKey    = "result.json.gz"
	maxStoredBytes   = 900 << 10 // a ConfigMap holds at most 1 MiB in all
	maxUnpackedBytes = 64 << 20
)

// EncodeStored renders a target's result for its ConfigMap: plain JSON when
// it fits, gzipped when that is needed, and without the per-client numbers
// (noted in Truncated) when even that does not fit. The merged results and
// histograms are always kept.
func EncodeStored(tr *TargetResult) (data map[string]string, binary map[string][]byte, err error) {
	for _, slimmer := range []func(*TargetResult) *TargetResult{nil, withoutClientDetail, withoutSeries} {
		if slimmer != nil {
			tr = slimmer(tr)
		}
		plain, err := json.Marshal(tr)
		if err != nil {
			return nil, nil, fmt.Errorf("encoding the results of target %s: %w", tr.Target, err)
		}
		data, binary, err := pack(plain)
		if err != nil || data != nil || binary != nil {
			return data, binary, err
		}
	}
	return nil, nil, fmt.Errorf("the results of target %s do not fit a ConfigMap even without per-client numbers and time series", tr.Target)
}

// pack stores a JSON document under StoredKey when it fits a ConfigMap,
// else gzipped under StoredGzipKey; both nil when even that does not fit.
func pack(plain []byte) (map[string]string, map[string][]byte, error) {
	if len(plain) <= maxStoredBytes {
		return map[string]string{StoredKey: string(plain)}, nil, nil
	}
	// The fastest compression first: measured on a 64-client, 64-cell
	// result (2.7 MB of JSON), level 1 packs it 5.5x in 11 ms, the default
	// level 6.7x in 45 ms; the best level only when the fast one is too big.
	for _, level := range []int{gzip.BestSpeed, gzip.BestCompression} {
		var packed bytes.Buffer
		zw, err := gzip.NewWriterLevel(&packed, level)
		if err != nil {
			return nil, nil, err
		}
		_, _ = zw.Write(plain)
		if err := zw.Close(); err != nil {
			return nil, nil, err
		}
		if packed.Len() <= maxStoredBytes {
			return nil, map[string][]byte{StoredGzipKey: packed.Bytes()}, nil
		}
	}
	return nil, nil, nil
}

func withoutClientDetail(tr *TargetResult) *TargetResult {
	return slimmed(tr, "per-client results left out: they do not fit a ConfigMap", func(r *RepetitionResult) { r.Clients = nil })
}

// withoutSeries leaves the time series out too (after the per-client
// numbers): at most MaxSeriesPoints per cell run keeps them in at the
// documented maxima, so this is for what lies beyond.
func withoutSeries(tr *TargetResult) *TargetResult {
	return slimmed(tr, "per-client results and time series left out: they do not fit a ConfigMap", func(r *RepetitionResult) { r.Series = nil })
}

// slimmed is a copy of tr whose repetitions lost what strip takes, with a
// note saying what.
func slimmed(tr *TargetResult, note string, strip func(*RepetitionResult)) *TargetResult {
	slim := *tr
	slim.Cells = make([]CellResult, len(tr.Cells))
	for i, c := range tr.Cells {
		c.Repetitions = append([]RepetitionResult(nil), c.Repetitions...)
		for k := range c.Repetitions {
			strip(&c.Repetitions[k])
		}
		slim.Cells[i] = c
	}
	slim.Truncated = note
	return &slim
}

// DecodeStored reads a results ConfigMap's data back and checks it (see
// Check): the controller and `storagebench report NAME` read results
// ConfigMaps, which anything allowed to write ConfigMaps can change.
func DecodeStored(data map[string]string, binary map[string][]byte) (*TargetResult, error) {
	raw, key, err := unpack(data, binary)
	if err != nil {
		return nil, err
	}
	tr := &TargetResult{}
	if err := DecodeJSON(key, raw, tr); err != nil {
		return nil, fmt.Errorf("reading stored results: %w", err)
	}
	if tr.SchemaVersion != TargetResultSchema {
		return nil, fmt.Errorf("stored results have schema %q, not %q", tr.SchemaVersion, TargetResultSchema)
	}
	if err := tr.Check(""); err != nil {
		return nil, fmt.Errorf("reading stored results: %w", placeInDocument(key, raw, err))
	}
	return tr, nil
}

// unpack returns the JSON document pack stored, and the key it was under
// (errors name it).
func unpack(data map[string]string, binary map[string][]byte) ([]byte, string, error) {
	switch {
	case data[StoredKey] != "":
		return []byte(data[StoredKey]), StoredKey, nil
	case len(binary[StoredGzipKey]) > 0:
		zr, err := gzip.NewReader(bytes.NewReader(binary[StoredGzipKey]))
		if err != nil {
			return nil, "", fmt.Errorf("unpacking %s: %w", StoredGzipKey, err)
		}
		raw, err := io.ReadAll(io.LimitReader(zr, maxUnpackedBytes+1))
		if err != nil {
			return nil, "", fmt.Errorf("unpacking %s: %w", StoredGzipKey, err)
		}
		if len(raw) > maxUnpackedBytes {
			// Cut off at the limit, it would only read as truncated JSON.
			return nil, "", fmt.Errorf("unpacking %s: more than the limit of %d bytes", StoredGzipKey, maxUnpackedBytes)
		}
		return raw, StoredGzipKey, nil
	}
	return nil, "", errors.New("no " + StoredKey + " or " + StoredGzipKey + " key")
}
