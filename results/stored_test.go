package results

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/hist"
)

// bigResult is a valid result of 64 cells whose size grows with its
// clients and repetitions, from one plain ConfigMap value to more than even
// a gzipped one holds.
func bigResult(clients, repetitions int) *TargetResult {
	h := hist.New()
	for v := int64(1000); v < 50_000_000; v = v*21/20 + 1 {
		h.Record(v) // about 220 buckets: a histogram of a few hundred bytes
	}
	tr := &TargetResult{SchemaVersion: TargetResultSchema, Target: "t", Clients: int32(clients)}
	for c := 0; c < 64; c++ {
		cell := CellResult{Cell: sbv1.Cell{Name: fmt.Sprintf("w-bs4k-r100-qd%d-j1", c+1), ReadPercent: 100, BlockSizeBytes: 4096}}
		for r := 0; r < repetitions; r++ {
			rep := RepetitionResult{Repetition: int32(r + 1), Read: &DirectionStats{IOs: h.Count(), Bytes: h.Count() * 4096, IOPS: float64(h.Count()), LatencyHistogram: h.Encode()}}
			for k := 0; k < clients; k++ {
				ios := int64(c*7919 + k*104729 + r*31 + 1)
				rep.Clients = append(rep.Clients, ClientResult{Client: int32(k), Backend: "io_uring", EndUnixNano: int64(c*7919+k*104729) * 1e6,
					Read: &DirectionStats{IOs: ios, Bytes: ios * 4096, IOPS: float64(ios) / 7, BytesPerSecond: float64(ios*4096) / 1.37}})
			}
			cell.Repetitions = append(cell.Repetitions, rep)
		}
		tr.Cells = append(tr.Cells, cell)
	}
	return tr
}

func TestStoredResultsRoundTripPlainGzippedAndTruncated(t *testing.T) {
	for _, tc := range []struct {
		clients, repetitions int
		wantGzip, wantCut    bool
	}{{1, 1, false, false}, {64, 2, true, false}, {64, 9, false, true}} {
		tr := bigResult(tc.clients, tc.repetitions)
		data, binary, err := EncodeStored(tr)
		if err != nil {
			t.Fatalf("%d clients x %d repetitions: %v", tc.clients, tc.repetitions, err)
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
