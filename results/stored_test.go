package results

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

func bigResult(clients int) *TargetResult {
	tr := &TargetResult{SchemaVersion: TargetResultSchema, Target: "t"}
	for c := 0; c < 64; c++ {
		rep := RepetitionResult{Repetition: 1, Read: &DirectionStats{IOPS: 1, LatencyHistogram: strings.Repeat("h", 400)}}
		for k := 0; k < clients; k++ {
			rep.Clients = append(rep.Clients, ClientResult{Client: int32(k), Backend: "io_uring", EndUnixNano: int64(c*7919+k*104729) * 1e6, Read: &DirectionStats{IOPS: float64(k*c) / 7, BytesPerSecond: float64(k*31+c) * 1.37}})
		}
		tr.Cells = append(tr.Cells, CellResult{Repetitions: []RepetitionResult{rep}})
	}
	return tr
}

func TestStoredResultsRoundTripPlainGzippedAndTruncated(t *testing.T) {
	for _, tc := range []struct {
		clients           int
		wantGzip, wantCut bool
	}{{1, false, false}, {100, true, false}, {3000, false, true}} {
		tr := bigResult(tc.clients)
		data, binary, err := EncodeStored(tr)
		if err != nil {
			t.Fatalf("%d clients: %v", tc.clients, err)
		}
		if (binary != nil) != tc.wantGzip {
			t.Errorf("%d clients: gzip %v, want %v", tc.clients, binary != nil, tc.wantGzip)
		}
		size := len(data[StoredKey]) + len(binary[StoredGzipKey])
		if size > maxStoredBytes {
			t.Errorf("%d clients: %d bytes stored, above the limit", tc.clients, size)
		}
		back, err := DecodeStored(data, binary)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Cells) != 64 || back.Cells[0].Repetitions[0].Read.LatencyHistogram == "" {
			t.Errorf("%d clients: merged results or histograms lost", tc.clients)
		}
		if cut := back.Truncated != ""; cut != tc.wantCut {
			t.Errorf("%d clients: truncated %v, want %v", tc.clients, cut, tc.wantCut)
		}
		if !tc.wantCut && len(back.Cells[63].Repetitions[0].Clients) != tc.clients {
			t.Errorf("%d clients: per-client numbers lost", tc.clients)
		}
	}
}

func TestDecodeStoredRefusesForeignData(t *testing.T) {
	for name, data := range map[string]map[string]string{
		"empty":      {},
		"not json":   {StoredKey: "{"},
		"old schema": {StoredKey: `{"schemaVersion":"storagebench.io/target-result/v0"}`},
	} {
		if _, err := DecodeStored(data, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := DecodeStored(nil, map[string][]byte{StoredGzipKey: []byte("not gzip")}); err == nil {
		t.Errorf("bad gzip accepted")
	}
}

func TestDecodeStoredRefusesGzipBeyondItsLimit(t *testing.T) {
	var packed bytes.Buffer
	zw := gzip.NewWriter(&packed)
	spaces := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i <= maxUnpackedBytes>>20; i++ {
		_, _ = zw.Write(spaces)
	}
	_ = zw.Close()
	_, err := DecodeStored(nil, map[string][]byte{StoredGzipKey: packed.Bytes()})
	if err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Fatalf("error %v, want the limit named rather than truncated JSON", err)
	}
}
