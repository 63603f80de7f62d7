//go:build linux

package engine

import (
	"fmt"
	"time"

	"github.com/storagebench/storagebench/engine/aio"
	"github.com/storagebench/storagebench/engine/uring"
)

// completion is one finished IO: the slot it used and its result (bytes,
// or -errno).
type completion struct {
	slot int32
	res  int32
}

// backend is what a worker needs from an IO interface. A worker prepares
// IOs into slots and then, with one call, submits them and waits for
// completions, so each backend can use its cheapest system calls.
type backend interface {
	prepRead(file int, buf []byte, off int64, slot int)
	prepWrite(file int, buf []byte, off int64, slot int)
	// prepSync queues an fsync, or an fdatasync when datasync.
	prepSync(file int, datasync bool, slot int)
	// submit hands the prepared IOs to the kernel (psync: nothing; its IO
	// happens in wait). It is separate from wait, as in fio, so that
	// submission latency (slat) and completion latency (clat) can be told
	// apart.
	submit() error
	// wait waits until at least minComplete IOs completed or timeout
	// passed (timeout <= 0: no limit), appending at most maxComplete
	// completions to out (maxComplete >= max(minComplete, 1)); the others
	// stay for the next wait. With nothing in flight and minComplete > 0
	// it sleeps for the timeout, which is how a paced worker waits for its
	// next due IO.
	wait(minComplete, maxComplete int, timeout time.Duration, out []completion) ([]completion, error)
	close()
}

// readiness is implemented by the backends that can tell, without a system
// call, that a completion waits (the completion rings of io_uring and
// libaio): a worker then looks for its next completion for a moment
// before it sleeps for it (spin_wait.go). ready also says yes while IOs
// the kernel refused wait to be submitted again: the wait does that first,
// and no look could find their completions.
type readiness interface {
	canTellReady() bool
	ready() bool
}

// newBackend is the seam tests use to simulate a device that fails IOs.
var newBackend = openBackend

// openBackend creates a backend of the given kind for depth IOs in flight
// on fds, with arena as the memory IOs use. It runs on the worker's locked
// thread (io_uring rings are created single-issuer).
func openBackend(kind string, depth int, fds []int, mem []byte) (backend, string, error) {
	switch kind {
	case EngineIOUring:
		r, err := uring.New(uring.Config{Entries: uint32(depth), Files: fds, Arena: mem})
		if err != nil {
			return nil, "", err
		}
		return &uringBackend{r: r, scratch: make([]uring.Completion, 0, 2*depth)}, r.Features(), nil
	case EngineLibaio:
		c, err := aio.New(depth, fds)
		if err != nil {
			return nil, "", err
		}
		return &aioBackend{c: c, scratch: make([]aio.Completion, 0, depth)}, "", nil
	case EnginePsync:
		return &psyncBackend{fds: fds}, "", nil
	case EngineNull:
		return &nullBackend{}, "", nil
	case EngineMmap:
		b, err := newMmapBackend(fds)
		return b, "", err
	}
	return nil, "", fmt.Errorf("unknown backend %q", kind)
}
