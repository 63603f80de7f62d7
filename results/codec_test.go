package results

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/storagebench/storagebench/engine/result"
)

func sampleReport() *ClientReport {
	return &ClientReport{
		SchemaVersion: ClientReportSchema, Benchmark: "b", Generation: 3, Target: "fast", Client: 1,
		EngineVersion: "test", Runs: []CellRun{{Cell: "w-bs4k-r100-qd1-j1", Repetition: 1, Document: &result.Document{}}},
	}
}

func TestClientReportRoundTripsThroughALogWithOtherLines(t *testing.T) {
	var report bytes.Buffer
	big := sampleReport()
	for i := 0; i < 40; i++ {
		big.Runs = append(big.Runs, CellRun{Cell: strings.Repeat("c", 200), Repetition: int32(i)})
	}
	if err := WriteClientReport(&report, big); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(report.String(), "\n"), "\n")
	if len(lines) < 5 {
		t.Fatalf("a report of %d bytes should span several fragment lines", report.Len())
	}
	for _, l := range lines {
		if len(l) > fragmentBytes+len(fragmentPrefix) {
			t.Fatalf("line of %d bytes: the runtime may split it", len(l))
		}
	}
	// The runtime copies stderr separately: its lines may land anywhere
	// between the report's lines.
	var log bytes.Buffer
	log.WriteString("I1129 layout done\n")
	for i, l := range lines {
		log.WriteString(l + "\n")
		if i%2 == 1 {
			log.WriteString("2026-11-30T01:03:01Z client 1 target fast: cell done\n")
		}
	}
	log.WriteString("I1129 bye\n")
	got, err := ReadClientReport(&log, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got.Target != "fast" || got.Client != 1 || got.Generation != 3 || len(got.Runs) != 41 {
		t.Fatalf("round trip changed the report: %+v", got)
	}
}

func TestReadClientReportRefusesBrokenInput(t *testing.T) {
	var good bytes.Buffer
	report := sampleReport()
	for i := 0; i < 20; i++ {
		report.Runs = append(report.Runs, CellRun{Cell: strings.Repeat("x", 300), Repetition: int32(i)})
	}
	if err := WriteClientReport(&good, report); err != nil {
		t.Fatal(err)
	}
	full := good.String()
	lines := strings.Split(strings.TrimSuffix(full, "\n"), "\n")
	withoutFragment := strings.Join(append(append([]string{}, lines[:2]...), lines[3:]...), "\n") + "\n"
	otherSchema := sampleReport()
	otherSchema.SchemaVersion = "storagebench.io/client-report/v0"
	var old bytes.Buffer
	_ = WriteClientReport(&old, otherSchema)

	cases := map[string]struct {
		log  string
		want string
	}{
		"empty log":               {"", ErrNoReport.Error()},
		"garbage":                 {"\x00\xff garbage\n{not json\n", ErrNoReport.Error()},
		"truncated before end":    {full[:len(full)/2], "incomplete"},
		"body altered":            {strings.Replace(full, `"fast"`, `"slow"`, 1), "checksum does not match"},
		"fragment missing":        {withoutFragment, "checksum does not match"},
		"other schema":            {old.String(), "schema"},
		"valid checksum bad json": {frame("{not json"), "not valid JSON: client report:1:2: invalid character 'n'"},
		"wrong type":              {frame(`{"runs": [{"repetition": "1"}]}`), `client report:1:26: runs[0].repetition: want an integer from -2147483648 to 2147483647, found a string`},
		"two reports in one body": {frame(`{"target": "fast"}{"target": "slow"}`), "trailing data after the JSON value"},
		"oversized":               {strings.Repeat("x", 2000), "larger than"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadClientReport(strings.NewReader(tc.log), 1024+int64(len(full)))
			if name == "oversized" {
				_, err = ReadClientReport(strings.NewReader(tc.log), 1000)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := ReadClientReport(strings.NewReader(""), 10); !errors.Is(err, ErrNoReport) {
		t.Fatalf("an empty log should be ErrNoReport, got %v", err)
	}
}

// frame seals an arbitrary body, to test what a correct checksum over bad
// content does.
func frame(body string) string {
	var b bytes.Buffer
	b.WriteString(beginMarker + "\n" + fragmentPrefix + body + "\n")
	sum := sha256Hex([]byte(body))
	b.WriteString(endPrefix + sum + endSuffix + "\n")
	return b.String()
}

// brokenReader returns its data, then an error: a log stream that breaks.
type brokenReader struct {
	data []byte
	err  error
}

func (b *brokenReader) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		return 0, b.err
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	return n, nil
}

func TestAStreamThatBreaksIsAReadErrorNotAnUnusableReport(t *testing.T) {
	var log bytes.Buffer
	if err := WriteClientReport(&log, &ClientReport{SchemaVersion: ClientReportSchema}); err != nil {
		t.Fatal(err)
	}
	cut := log.Bytes()[:log.Len()/2]
	_, err := ReadClientReport(&brokenReader{data: cut, err: errors.New("connection reset by peer")}, MaxReportBytes)
	var broken *LogReadError
	if !errors.As(err, &broken) || !strings.Contains(err.Error(), "connection reset by peer") {
		t.Fatalf("want a LogReadError, got %v", err)
	}
	// The same bytes read to their end hold no whole report: not a read
	// error, so no retry can help.
	_, err = ReadClientReport(bytes.NewReader(cut), MaxReportBytes)
	if err == nil || errors.As(err, &broken) {
		t.Fatalf("a truncated log that was read whole must be an unusable report, got %v", err)
	}
}
