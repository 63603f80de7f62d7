package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// shortRequeue is how soon to look again while waiting for something that
// does not trigger a watch event (a clock, an external system).
const shortRequeue = 2 * time.Second

// pass is one reconcile pass over one benchmark: what was read, the status
// being built and the events to send once it is stored.
type pass struct {
	bench  *sbv1.StorageBenchmark
	now    time.Time
	events []event
}

type event struct {
	kind, reason, action, message string
}

func (p *pass) conditions() conditionSetter {
	return conditionSetter{status: &p.bench.Status, generation: p.bench.Generation}
}

func (p *pass) normal(reason, action, message string) {
	p.events = append(p.events, event{corev1.EventTypeNormal, reason, action, message})
}

func (p *pass) warning(reason, action, message string) {
	p.events = append(p.events, event{corev1.EventTypeWarning, reason, action, message})
}

// advance runs the phases of the run in order; each returns early when it
// has to wait.
func (r *StorageBenchmarkReconciler) advance(ctx context.Context, p *pass) (ctrl.Result, error) {
	if p.bench.Status.ObservedGeneration != p.bench.Generation {
		r.startGeneration(p)
	}
	if done := r.validate(ctx, p); done {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, nil
}

// startGeneration resets status for a new spec generation: a spec change is
// a new run, and the old run's results no longer describe the spec.
func (r *StorageBenchmarkReconciler) startGeneration(p *pass) {
	b := p.bench
	b.Status = sbv1.StorageBenchmarkStatus{
		ObservedGeneration: b.Generation,
		Conditions:         b.Status.Conditions,
	}
	p.conditions().running(sbv1.ReasonRunStarted, "run for generation started")
	p.normal(sbv1.ReasonRunStarted, "Start", "starting the run for generation "+itoa(b.Generation))
}
