package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// FuzzReadClientReport feeds arbitrary logs to the parser the controller
// runs on pod logs: it must return a report or an error, never panic, and a
// report it returns must merge without panicking.
func FuzzReadClientReport(f *testing.F) {
	var good bytes.Buffer
	_ = WriteClientReport(&good, sampleReport())
	f.Add(good.Bytes())
	f.Add([]byte(frame(`{"schemaVersion":"storagebench.io/client-report/v1","runs":[{"cell":"x","document":{"jobs":[{"read":{"iops":1e308}}],"storagebench":{"jobs":[{"read":{"clat":"v1.AAAA"}}]}}}]}`)))
	f.Add([]byte(beginMarker + "\n" + fragmentPrefix + "{}\n" + endPrefix + "00" + endSuffix + "\n"))
	f.Add([]byte("plain text\n"))
	f.Fuzz(func(t *testing.T, log []byte) {
		r, err := ReadClientReport(bytes.NewReader(log), 1<<20)
		if err != nil {
			return
		}
		_, _ = Merge(testPlan(), []*ClientReport{r})
	})
}

// FuzzMergeReportBody seals arbitrary JSON bodies with a valid checksum, so
// the fuzzer reaches the schema checks and the merge (histogram decoding,
// counters) rather than stopping at the framing.
func FuzzMergeReportBody(f *testing.F) {
	var good bytes.Buffer
	r := sampleReport()
	r.Runs = []CellRun{
		fakeRun("w-bs4k-r100-qd8-j1", 1, []int64{1000, 2000}, nil, "io_uring"),
		fakeRun("w-bs4k-r70-qd8-j1", 1, []int64{1000}, []int64{5000}, "io_uring"),
	}
	r.Generation, r.Client = 1, 0
	_ = WriteClientReport(&good, r)
	body, _, err := lastFrame(bytes.NewReader(good.Bytes()), &frameBuffers{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add([]byte(`{"schemaVersion":"storagebench.io/client-report/v1","target":"fast","generation":1,"client":1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if bytes.ContainsRune(body, '\n') {
			return
		}
		r, err := ReadClientReport(bytes.NewReader([]byte(frame(string(body)))), 1<<20)
		if err != nil {
			return
		}
		_, _ = Merge(testPlan(), []*ClientReport{r})
	})
}
