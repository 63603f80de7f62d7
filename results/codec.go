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
	"sync"
)

// A client report travels through pod logs, which also carry whatever the
// client wrote to stderr, and which the kubelet may rotate or truncate. The
// container runtime copies stdout and stderr separately and splits lines
// longer than its limit (16 KiB by default) into parts: a stderr line can
// land between the parts of one long stdout line. So the report's JSON is
// written as short fragment lines (well under any split limit), each with a
// prefix, between marker lines, and sealed with a checksum: a reader picks
// the fragments out from among other lines and knows when any is missing.
const (
	beginMarker    = "----- BEGIN STORAGEBENCH CLIENT REPORT -----"
	endPrefix      = "----- END STORAGEBENCH CLIENT REPORT sha256="
	endSuffix      = " -----"
	fragmentPrefix = "sbr:"
	fragmentBytes  = 2048
)

// MaxReportBytes bounds one client report; longer logs are refused rather
// than read into memory.
const MaxReportBytes = 16 << 20

// LogReadError is a log that could not be read to its end (the stream
// broke: a reset connection, a cancelled request), as opposed to one that
// was read and holds no usable report: reading it again may succeed.
type LogReadError struct{ Err error }

func (e *LogReadError) Error() string { return "reading the log: " + e.Err.Error() }
func (e *LogReadError) Unwrap() error { return e.Err }

// ErrNoReport means the log holds no report: the client did not get to the
// end (it was killed, or never started).
var ErrNoReport = errors.New("no client report in the log")

// ErrReportIncomplete means the log ends inside a report: the client is
// still writing it, or was killed while it did.
var ErrReportIncomplete = errors.New("client report incomplete: the log ends before its end marker")

// WriteClientReport writes the framed report, with what the merge reads of
// each engine document (client_report_wire.go).
func WriteClientReport(w io.Writer, r *ClientReport) error {
	body, err := json.Marshal(wireReport(r))
	if err != nil {
		return fmt.Errorf("encoding the client report: %w", err)
	}
	return writeFrame(w, body)
}

// writeFrame writes a report's JSON body framed for a pod log.
func writeFrame(w io.Writer, body []byte) error {
	sum := sha256.Sum256(body)
	var out bytes.Buffer
	out.WriteString(beginMarker + "\n")
	for start := 0; start < len(body); start += fragmentBytes {
		out.WriteString(fragmentPrefix)
		out.Write(body[start:min(start+fragmentBytes, len(body))])
		out.WriteByte('\n')
	}
	fmt.Fprintf(&out, "%s%s%s\n", endPrefix, hex.EncodeToString(sum[:]), endSuffix)
	_, err := w.Write(out.Bytes())
	return err
}

// ReadClientReport finds the last complete report in a log and checks it.
// The log is untrusted: any input gives a report or an error, never a panic,
// and no more than maxBytes are read.
func ReadClientReport(log io.Reader, maxBytes int64) (*ClientReport, error) {
	// The log is scanned as it streams in, not read whole first: at 64
	// clients a target's logs are hundreds of MB of copies otherwise.
	counted := &countingReader{r: io.LimitReader(log, maxBytes+1)}
	bufs := framePool.Get().(*frameBuffers)
	defer framePool.Put(bufs)
	body, wantSum, err := lastFrame(counted, bufs)
	if counted.n > maxBytes {
		return nil, fmt.Errorf("log larger than the %d-byte limit", maxBytes)
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != wantSum {
		return nil, errors.New("client report damaged: checksum does not match (truncated or interleaved log)")
	}
	wire := &wireClientReport{}
	// The checksum proves the body is what the client wrote, not that it
	// decodes; where it does not, line and column point into the body.
	if err := DecodeJSON("client report", body, wire); err != nil {
		return nil, fmt.Errorf("client report is not valid JSON: %w", err)
	}
	r := wire.report()
	if r.SchemaVersion != ClientReportSchema {
		return nil, fmt.Errorf("client report schema %q is not %q", r.SchemaVersion, ClientReportSchema)
	}
	return r, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// frameBuffers are what reading a log needs, kept between reads: the
// controller reads a target's client logs (up to 64, hundreds of KB each)
// several at once, and growing fresh buffers for each allocated twice the
// size of all the logs.
type frameBuffers struct {
	scan, body, found []byte
}

var framePool = sync.Pool{New: func() any { return &frameBuffers{scan: make([]byte, 0, 64<<10)} }}

// spare returns a buffer for the next frame: the previous found one's.
func (f *frameBuffers) spare(previous []byte) []byte {
	if previous != nil {
		return previous[:0]
	}
	return f.found[:0]
}

// maxPooledBuffer is the largest buffer kept for the next read: a report
// may be up to MaxReportBytes, but keeping that much per pooled entry for
// the rare report that large is not worth it.
const maxPooledBuffer = 2 << 20

// keep remembers the (grown) buffers for the next read.
func (f *frameBuffers) keep(body, found []byte) {
	if found != nil {
		f.body, f.found = found, body
	} else {
		f.body = body
	}
	if cap(f.body) > maxPooledBuffer {
		f.body = nil
	}
	if cap(f.found) > maxPooledBuffer {
		f.found = nil
	}
}

// lastFrame returns the body and checksum of the last framed report. Lines
// between the markers that are not fragments (other output interleaved by
// the runtime) are skipped; the checksum tells whether fragments are
// missing.
func lastFrame(log io.Reader, bufs *frameBuffers) ([]byte, string, error) {
	scanner := bufio.NewScanner(log)
	scanner.Buffer(bufs.scan[:0], MaxReportBytes+1024)
	var (
		inside, sawBegin, sawFrame bool
		body                       = bufs.body[:0]
		found                      []byte
		foundSum                   string
	)
	for scanner.Scan() {
		line := scanner.Bytes()
		switch {
		case string(line) == beginMarker:
			inside, sawBegin, body = true, true, body[:0]
		case inside && bytes.HasPrefix(line, []byte(endPrefix)):
			// The frame found so far is kept; a later one reuses the
			// other buffer.
			found, body = body, bufs.spare(found)
			foundSum = strings.TrimSuffix(strings.TrimPrefix(string(line), endPrefix), endSuffix)
			inside, sawFrame = false, true
		case inside && bytes.HasPrefix(line, []byte(fragmentPrefix)):
			body = append(body, line[len(fragmentPrefix):]...)
		}
	}
	bufs.keep(body, found)
	if err := scanner.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, "", fmt.Errorf("reading the log: %w", err)
		}
		return nil, "", &LogReadError{Err: err}
	}
	if sawFrame {
		return found, foundSum, nil
	}
	if sawBegin {
		return nil, "", ErrReportIncomplete
	}
	return nil, "", ErrNoReport
}
