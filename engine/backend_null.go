//go:build linux

package engine

import "time"

// nullBackend is fio's null engine: no IO and no system call, every IO
// completes at once. What a null run measures is the engine's own cost per
// IO (preparation, timing, accounting), for comparing the tool with fio's
// null engine, never storage.
type nullBackend struct {
	prepared, submitted []completion
}

func (b *nullBackend) prep(buf []byte, slot int) {
	b.prepared = append(b.prepared, completion{slot: int32(slot), res: int32(len(buf))})
}
func (b *nullBackend) prepRead(_ int, buf []byte, _ int64, slot int)  { b.prep(buf, slot) }
func (b *nullBackend) prepWrite(_ int, buf []byte, _ int64, slot int) { b.prep(buf, slot) }
func (b *nullBackend) prepSync(_ int, _ bool, slot int)               { b.prep(nil, slot) }

// submit hands the prepared IOs over; they are complete from then on, as
// fio's null engine completes its queue at the next getevents.
func (b *nullBackend) submit() error {
	b.submitted = append(b.submitted, b.prepared...)
	b.prepared = b.prepared[:0]
	return nil
}

func (b *nullBackend) wait(minComplete, maxComplete int, timeout time.Duration, out []completion) ([]completion, error) {
	if len(b.submitted) == 0 && minComplete > 0 && timeout > 0 {
		// Nothing in flight: a paced or thinking worker sleeps until
		// its next IO, as with the other backends.
		time.Sleep(timeout)
	}
	n := min(len(b.submitted), maxComplete)
	out = append(out, b.submitted[:n]...)
	b.submitted = b.submitted[:copy(b.submitted, b.submitted[n:])]
	return out, nil
}

func (b *nullBackend) close() {}
