package controllers

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crevent "sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// childEventDelay is how long an event on a benchmark's child (a client
// pod, Job, claim or ConfigMap) waits before it starts a pass. Children
// change in bursts (a target's 64 pods become ready, finish, are deleted),
// and the work queue folds all requests for one benchmark that are waiting
// into one. Measured at 16 targets x 64 clients x 64 cells
// (docs/controller-scale.md): 1218 passes with no wait, 416 with 100 ms,
// 274 with 250 ms. Changes to the benchmark itself are not delayed.
const childEventDelay = 250 * time.Millisecond

// delayed enqueues what inner enqueues, childEventDelay later.
func delayed(inner handler.EventHandler) handler.EventHandler {
	return delayedHandler{inner: inner}
}

type delayedHandler struct{ inner handler.EventHandler }

type delayingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
}

func (q delayingQueue) Add(r reconcile.Request) { q.AddAfter(r, childEventDelay) }

func (h delayedHandler) Create(ctx context.Context, e crevent.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.inner.Create(ctx, e, delayingQueue{q})
}

func (h delayedHandler) Update(ctx context.Context, e crevent.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.inner.Update(ctx, e, delayingQueue{q})
}

func (h delayedHandler) Delete(ctx context.Context, e crevent.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.inner.Delete(ctx, e, delayingQueue{q})
}

func (h delayedHandler) Generic(ctx context.Context, e crevent.TypedGenericEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.inner.Generic(ctx, e, delayingQueue{q})
}
