//go:build linux

package engine

import (
	"time"

	"github.com/storagebench/storagebench/engine/aio"
)

// aioBackend adapts an aio.Context (Linux native AIO) to the worker's
// backend interface.
type aioBackend struct {
	c       *aio.Context
	scratch []aio.Completion
}

func (b *aioBackend) prepRead(file int, buf []byte, off int64, slot int) {
	b.c.PrepRead(file, buf, off, uint64(slot))
}
func (b *aioBackend) prepWrite(file int, buf []byte, off int64, slot int) {
	b.c.PrepWrite(file, buf, off, uint64(slot))
}
func (b *aioBackend) prepSync(file int, datasync bool, slot int) {
	b.c.PrepFsync(file, datasync, uint64(slot))
}
func (b *aioBackend) submit() error { return b.c.Submit() }
func (b *aioBackend) wait(minComplete, maxComplete int, timeout time.Duration, out []completion) ([]completion, error) {
	if b.c.Unsent() > 0 {
		// A partial io_submit (EAGAIN) left IOs queued: retry first.
		if err := b.c.Submit(); err != nil {
			return out, err
		}
	}
	if minComplete == 0 {
		timeout = 1 // poll: a (nearly) zero timespec returns at once
	}
	var err error
	b.scratch, err = b.c.Wait(minComplete, maxComplete, timeout, b.scratch[:0])
	for _, c := range b.scratch {
		out = append(out, completion{slot: int32(c.UserData), res: c.Res})
	}
	return out, err
}
func (b *aioBackend) canTellReady() bool { return b.c.CanTellReady() }
func (b *aioBackend) ready() bool        { return b.c.Unsent() > 0 || b.c.Ready() }
func (b *aioBackend) close()             { b.c.Close() }
