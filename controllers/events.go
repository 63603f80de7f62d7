package controllers

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crevent "sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Children of a benchmark (client pods, Jobs, claims, ConfigMaps) change in
// bursts: a target's 64 pods become ready, finish, are deleted. A pass per
// event would redo the same work dozens of times (1218 passes at 16
// targets x 64 clients x 64 cells, docs/controller-scale.md), so a burst
// starts one pass, once it is over: no event for burstQuiet. A burst that
// goes on (many clients on a slow API server) still gets a pass every
// burstMaxWait, so progress never waits for the last of a long stream.
//
// A fixed delay after the first event, as before, either cut bursts longer
// than it in two and then waited the whole delay again after their end
// (the scale harness makes a target's 64 pods ready over about half a
// second), or made every phase of every target wait the delay.
const (
	burstQuiet   = 100 * time.Millisecond
	burstMaxWait = 250 * time.Millisecond
)

// delayed enqueues what inner enqueues once the burst it belongs to is
// over (see burstQuiet). Changes to the benchmark itself are not delayed.
func (d *debouncer) delayed(inner handler.EventHandler) handler.EventHandler {
	return delayedHandler{inner: inner, debouncer: d}
}

// timers is the clock a debouncer runs on: the real one, or a test's.
type timers interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) clock.Timer
}

// debouncer folds the requests of a burst into one per benchmark. Neither
// the work queue (its AddAfter keeps the earliest time, it cannot wait for
// quiet) nor controller-runtime offers this; it is small enough to own.
type debouncer struct {
	clock timers
	mu    sync.Mutex
	// bursts are the requests waiting for their burst to end.
	bursts map[reconcile.Request]*burst
}

// burst is the events for one request since its last enqueue.
type burst struct {
	first, last time.Time
}

func newDebouncer(c timers) *debouncer {
	return &debouncer{clock: c, bursts: map[reconcile.Request]*burst{}}
}

// add records an event for r; r is enqueued on q when its burst is over.
func (d *debouncer) add(q workqueue.TypedRateLimitingInterface[reconcile.Request], r reconcile.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.clock.Now()
	if b := d.bursts[r]; b != nil {
		// Its timer looks at last when it fires.
		b.last = now
		return
	}
	b := &burst{first: now, last: now}
	d.bursts[r] = b
	d.clock.AfterFunc(burstQuiet, func() { d.fire(q, r, b) })
}

// fire enqueues r if its burst is over, else looks again when it may be:
// one timer per burst, re-armed rather than reset, so it never fires twice.
func (d *debouncer) fire(q workqueue.TypedRateLimitingInterface[reconcile.Request], r reconcile.Request, b *burst) {
	d.mu.Lock()
	if wait := b.due().Sub(d.clock.Now()); wait > 0 {
		d.clock.AfterFunc(wait, func() { d.fire(q, r, b) })
		d.mu.Unlock()
		return
	}
	delete(d.bursts, r)
	d.mu.Unlock()
	q.Add(r)
}

// due is when the burst's pass starts.
func (b *burst) due() time.Time {
	quiet, capped := b.last.Add(burstQuiet), b.first.Add(burstMaxWait)
	if capped.Before(quiet) {
		return capped
	}
	return quiet
}

type delayedHandler struct {
	inner     handler.EventHandler
	debouncer *debouncer
}

// debouncedQueue is the work queue as the inner handler sees it: its Add
// goes through the debouncer.
type debouncedQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	debouncer *debouncer
}

func (q debouncedQueue) Add(r reconcile.Request) {
	q.debouncer.add(q.TypedRateLimitingInterface, r)
}

func (h delayedHandler) queue(q workqueue.TypedRateLimitingInterface[reconcile.Request]) debouncedQueue {
	return debouncedQueue{TypedRateLimitingInterface: q, debouncer: h.debouncer}
}

func (h delayedHandler) Create(ctx context.Context, e crevent.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.inner.Create(ctx, e, h.queue(q))
}

func (h delayedHandler) Update(ctx context.Context, e crevent.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.inner.Update(ctx, e, h.queue(q))
}

func (h delayedHandler) Delete(ctx context.Context, e crevent.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.inner.Delete(ctx, e, h.queue(q))
}

func (h delayedHandler) Generic(ctx context.Context, e crevent.TypedGenericEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.inner.Generic(ctx, e, h.queue(q))
}
