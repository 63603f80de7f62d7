package results

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A client report travels through pod logs, which also carry whatever the
// client wrote to stderr, and which the kubelet may rotate or truncate. So it
// is framed by marker lines and sealed with a checksum: a reader finds it
// among other lines and knows when it is incomplete.
const (
	beginMarker = "----- BEGIN STORAGEBENCH CLIENT REPORT -----"
	endPrefix   = "----- END STORAGEBENCH CLIENT REPORT sha256="
	endSuffix   = " -----"
)

// MaxReportBytes bounds one client report; longer logs are refused rather
// than read into memory.
const MaxReportBytes = 16 << 20

// ErrNoReport means the log holds no report: the client did not get to the
// end (it was killed, or never started).
var ErrNoReport = errors.New("no client report in the log")

// WriteClientReport writes the framed report.
func WriteClientReport(w io.Writer, r *ClientReport) error {
	body, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encoding the client report: %w", err)
	}
	sum := sha256.Sum256(body)
	_, err = fmt.Fprintf(w, "%s\n%s\n%s%s%s\n", beginMarker, body, endPrefix, hex.EncodeToString(sum[:]), endSuffix)
	return err
}

// ReadClientReport finds the last complete report in a log and checks it.
// The log is untrusted: any input gives a report or an error, never a panic,
// and no more than maxBytes are read.
func ReadClientReport(log io.Reader, maxBytes int64) (*ClientReport, error) {
	data, err := io.ReadAll(io.LimitReader(log, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the log: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("log larger than the %d-byte limit", maxBytes)
	}
	body, wantSum, err := lastFrame(data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != wantSum {
		return nil, errors.New("client report damaged: checksum does not match (truncated or interleaved log)")
	}
	r := &ClientReport{}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf("client report is not valid JSON: %w", err)
	}
	if r.SchemaVersion != ClientReportSchema {
		return nil, fmt.Errorf("client report schema %q is not %q", r.SchemaVersion, ClientReportSchema)
	}
	return r, nil
}

// lastFrame returns the body and checksum of the last framed report.
func lastFrame(data []byte) ([]byte, string, error) {
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 0, 64<<10), MaxReportBytes+1024)
	var (
		inside    bool
		body      []byte
		found     []byte
		foundSum  string
		sawBegin  bool
		bodyLines int
	)
	for scanner.Scan() {
		line := scanner.Bytes()
		switch {
		case string(line) == beginMarker:
			inside, sawBegin, body, bodyLines = true, true, nil, 0
		case inside && bytes.HasPrefix(line, []byte(endPrefix)):
			sum := strings.TrimSuffix(strings.TrimPrefix(string(line), endPrefix), endSuffix)
			if bodyLines == 1 {
				found, foundSum = body, sum
			}
			inside = false
		case inside:
			// Anything else a client printed meanwhile lands between the
			// markers in a merged log; the checksum tells.
			body = append([]byte(nil), line...)
			bodyLines++
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, "", fmt.Errorf("reading the log: %w", err)
	}
	if found != nil {
		return found, foundSum, nil
	}
	if sawBegin {
		return nil, "", errors.New("client report incomplete: the log ends before its end marker, or other output was interleaved")
	}
	return nil, "", ErrNoReport
}
