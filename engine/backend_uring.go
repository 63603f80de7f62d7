//go:build linux

package engine

import (
	"time"

	"github.com/storagebench/storagebench/engine/uring"
)

// uringBackend adapts a uring.Ring to the worker's backend interface.
type uringBackend struct {
	r       *uring.Ring
	scratch []uring.Completion
}

func (b *uringBackend) prepRead(file int, buf []byte, off int64, slot int) {
	b.r.PrepRead(file, buf, off, uint64(slot))
}
func (b *uringBackend) prepWrite(file int, buf []byte, off int64, slot int) {
	b.r.PrepWrite(file, buf, off, uint64(slot))
}
func (b *uringBackend) prepSync(file int, datasync bool, slot int) {
	b.r.PrepFsync(file, datasync, uint64(slot))
}
func (b *uringBackend) submit() error {
	if b.r.Unsent() == 0 {
		return nil
	}
	return b.r.SubmitAndWait(0, 0)
}
func (b *uringBackend) wait(minComplete, maxComplete int, timeout time.Duration, out []completion) ([]completion, error) {
	// Completions may already be posted: then do not enter the kernel.
	b.scratch = b.r.Reap(b.scratch[:0], maxComplete)
	if len(b.scratch) < minComplete || b.r.Unsent() > 0 {
		// With unsent IOs left over (the kernel refused part of a
		// submission) enough completions may already be in hand: then
		// only submit.
		if err := b.r.SubmitAndWait(completionsStillNeeded(minComplete, len(b.scratch)), timeout); err != nil {
			return out, err
		}
		b.scratch = b.r.Reap(b.scratch, maxComplete-len(b.scratch))
	}
	for _, c := range b.scratch {
		out = append(out, completion{slot: int32(c.UserData), res: c.Res})
	}
	return out, nil
}
func (b *uringBackend) canTellReady() bool { return b.r.CanTellReady() }
func (b *uringBackend) ready() bool        { return b.r.Unsent() > 0 || b.r.Ready() }
func (b *uringBackend) close()             { b.r.Close() }
