package clientrun

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Barrier is the in-process start signal of the local runner: once all its
// clients are ready, the start is fixed a short lead ahead. Clients share
// one clock, so the offset is zero.
type Barrier struct {
	clients int
	lead    time.Duration

	mu    sync.Mutex
	ready int
	start time.Time
	done  chan struct{}
}

// NewBarrier makes a barrier for n clients.
func NewBarrier(n int, lead time.Duration) *Barrier {
	return &Barrier{clients: n, lead: lead, done: make(chan struct{})}
}

// Ready counts one client in; the last one fixes the start.
func (b *Barrier) Ready() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ready++
	if b.ready > b.clients {
		return fmt.Errorf("%d clients ready, but the barrier is for %d", b.ready, b.clients)
	}
	if b.ready == b.clients {
		b.start = time.Now().Add(b.lead)
		close(b.done)
	}
	return nil
}

// Wait returns the start once every client is ready.
func (b *Barrier) Wait(ctx context.Context) (time.Time, time.Duration, error) {
	select {
	case <-b.done:
		return b.start, 0, nil
	case <-ctx.Done():
		return time.Time{}, 0, fmt.Errorf("not every client got ready: %w", context.Cause(ctx))
	}
}
