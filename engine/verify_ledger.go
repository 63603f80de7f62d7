package engine

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"
)

// VerifyLedger remembers, across the runs of one process (a client's
// cells), which write each interval of a verified data set last got: its
// generation, stamped into the interval's header. A read then knows what
// each interval must hold, so a lost write (the storage kept the older,
// intact interval) is caught as well as corruption and misplaced writes.
// Two bytes per interval (a 1 GiB data set in 4 KiB intervals: 512 KiB).
// An interval the process has not written nor read yet is unknown (0): its
// first read learns what is there; its first write takes the ledger's
// start, which is random per process, so that a lost write is not taken
// for one of an earlier run's.
type VerifyLedger struct {
	mu       sync.Mutex
	interval int64
	start    uint16
	files    map[string][]uint16
}

// NewVerifyLedger makes a ledger of intervals of the given length.
func NewVerifyLedger(interval int64) *VerifyLedger {
	start := uint16(mix64(uint64(time.Now().UnixNano())))
	if start == 0 {
		start = 1
	}
	return &VerifyLedger{interval: interval, start: start, files: map[string][]uint16{}}
}

// MaxLedgerBytes bounds a ledger: a data set needing more (two bytes per
// interval) is refused by the API's validation.
const MaxLedgerBytes = 256 << 20

// Reserve makes room for the intervals of path up to end (bytes from the
// file's start). It is done once per file before the first run: a
// worker's slice of a ledger that grew later would be a stale copy.
func (l *VerifyLedger) Reserve(path string, end int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := (end + l.interval - 1) / l.interval
	if n*2 > MaxLedgerBytes {
		return fmt.Errorf("verify: %s needs a ledger of %d intervals of %d bytes, more than %d MiB", path, n, l.interval, MaxLedgerBytes>>20)
	}
	if int64(len(l.files[path])) < n {
		l.files[path] = append(l.files[path], make([]uint16, n-int64(len(l.files[path])))...)
	}
	return nil
}

// file is the generations of path's intervals, which must reach end.
func (l *VerifyLedger) file(path string, end int64) ([]uint16, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.files[path]
	if int64(len(g))*l.interval < end {
		return nil, fmt.Errorf("verify: the ledger holds %d bytes of %s, the job's region ends at %d", int64(len(g))*l.interval, path, end)
	}
	return g, nil
}

// next is the generation of a new write of interval i.
func (l *VerifyLedger) next(gens []uint16, i int64) uint16 {
	g := gens[i] + 1
	if gens[i] == 0 {
		g = l.start
	}
	if g == 0 {
		g = 1 // 0 means unknown
	}
	gens[i] = g
	return g
}

// stampWith stamps each interval of buf (a write at off) with its next
// generation from gens.
func (c *blockChecker) stampWith(l *VerifyLedger, gens []uint16, buf []byte, off int64) {
	step := c.step(len(buf))
	for i := 0; i < len(buf); i += step {
		at := off + int64(i)
		c.stampOne(buf[i:min(i+step, len(buf))], at, uint64(l.next(gens, at/l.interval)))
	}
}

// checkWith checks each interval of buf (a read at off) against gens: a
// known generation must be in the header; an unknown one is learnt.
func (c *blockChecker) checkWith(l *VerifyLedger, gens []uint16, buf []byte, off int64) *blockProblem {
	step := c.step(len(buf))
	for i := 0; i < len(buf); i += step {
		at, chunk := off+int64(i), buf[i:min(i+step, len(buf))]
		want := gens[at/l.interval]
		if p := c.checkOne(chunk, at, uint64(want), want != 0); p != nil {
			if step < len(buf) {
				p.what = fmt.Sprintf("in its %d-byte interval at offset %d, %s", step, at, p.what)
			}
			return p
		}
		if want == 0 {
			gens[at/l.interval] = uint16(binary.LittleEndian.Uint64(chunk[24:]))
		}
	}
	return nil
}
