package controllers

import (
	"cmp"
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// shortRequeue is how soon to look again while waiting for something that
// does not trigger a watch event (a clock, an external system).
const shortRequeue = 2 * time.Second

// conflictRequeue is how soon to retry a pass whose status write lost to a
// newer one: the cache is about to catch up.
const conflictRequeue = 200 * time.Millisecond

// pass is one reconcile pass over one benchmark: the time it runs at, the
// status being built, and the events to send once that status is stored.
type pass struct {
	bench *sbv1.StorageBenchmark
	// now is the pass's time: every decision of the pass is taken at it.
	now time.Time
	// clock is the same clock, for the one reading that must be fresh:
	// the published start instant (see publishStart).
	clock  clock.PassiveClock
	events []event
	// targetResults are the stored results of finished targets, by name.
	targetResults map[string]*results.TargetResult
	// plans gives the targets' plans.
	plans planSource
	// provisioningStarts are the targets' provisioning starts to the
	// nanosecond, by name, as this process recorded them: status keeps
	// whole seconds, too coarse for phases that take one or two.
	provisioningStarts map[string]time.Time
	// searches are the targets' search runs this process stored, by
	// target (shared with the generation's state, like the above).
	searches map[string]*searchRun
	// reportsRead are client reports read ahead of their target's merge,
	// by pod (shared with the generation's state, like the above).
	reportsRead keptReports
}

type event struct {
	kind, reason, action, message string
}

func newPass(b *sbv1.StorageBenchmark, clk clock.PassiveClock) *pass {
	return &pass{bench: b, now: clk.Now(), clock: clk, targetResults: map[string]*results.TargetResult{}, plans: planOf(b),
		provisioningStarts: map[string]time.Time{}, searches: map[string]*searchRun{}, reportsRead: keptReports{}}
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

// advance runs the phases of the run in order: a new generation resets the
// run, validation may end it, then the targets run (one after another by
// default) and the run finishes once all have results.
func (r *StorageBenchmarkReconciler) advance(ctx context.Context, p *pass) (ctrl.Result, error) {
	b := p.bench
	if b.Status.ObservedGeneration != b.Generation {
		r.startGeneration(p)
	}
	if ended(b) {
		if meta.IsStatusConditionTrue(b.Status.Conditions, sbv1.ConditionStalled) {
			// Stop what a failed run left running, now that the failure
			// and its evidence are recorded in status.
			return ctrl.Result{}, r.stopFailedRun(ctx, b)
		}
		return ctrl.Result{}, nil
	}
	if done, err := r.validate(ctx, p); done || err != nil {
		return ctrl.Result{}, err
	}
	s, err := r.observe(ctx, b)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.removeStaleRuns(ctx, b, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.ensureRunObjects(ctx, b, s); err != nil {
		return ctrl.Result{}, err
	}

	wait, allDone, err := r.runTargets(ctx, p, s)
	if err != nil || ended(b) {
		return ctrl.Result{}, err
	}
	r.updateProgress(p, s)
	if allDone {
		finished, err := r.finishRun(ctx, p, s)
		if err != nil || finished {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: shortRequeue}, nil
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// runTargets moves the targets along: all at once with Parallel, else each
// once the one before it is done, or has handed over its results (their
// merge then runs after the next target's start), or is past its
// timetable's end while its clients hand over (the next target is then
// provisioned and prepared, and starts once they have). It reports when to look
// again and whether every target is done. A failure ends the run, once
// the results already handed over are stored: nothing measured is lost;
// the first target's failure in spec order is the run's.
func (r *StorageBenchmarkReconciler) runTargets(ctx context.Context, p *pass, s *snapshot) (wait time.Duration, allDone bool, err error) {
	b := p.bench
	parallel := b.Spec.TargetExecution == sbv1.TargetsParallel
	// Every status entry first: adding one moves the others, and a merge
	// keeps its target's entry until after the loop.
	runs := make([]*targetRun, len(b.Spec.Targets))
	for i := range runs {
		runs[i] = r.targetRun(p, i)
	}
	allDone = true
	var next targetStep // when to look again: the soonest of the steps
	failedAt := -1
	var failure *runFailure
	// handingOver is a target past its timetable whose clients still hand
	// over; unfinished is one whose start a later target must wait for
	// (see startAfter): handingOver, or one whose merge and cleanup this
	// pass runs after the loop, whose requests must not fall into a later
	// target's start lead and first cells.
	handingOver, unfinished := "", ""
	// moved takes target i's step and reports whether the targets after
	// it may move.
	moved := func(i int, step targetStep) bool {
		if step.failure != nil && handingOver != "" {
			// A later target failed while the clients of handingOver
			// hand over: its failure would stop them before their results
			// are in. It stands, and is recorded once they are (and
			// stored first, as below).
			allDone = false
			next = next.lookAgainBy(shortRequeue)
			return false
		}
		if step.failure != nil && (failedAt < 0 || i < failedAt) {
			failedAt, failure = i, step.failure
		}
		next = next.lookAgainBy(step.wait)
		if !step.done {
			allDone = false
			if step.timetableOver && !parallel && failure == nil {
				handingOver, unfinished = runs[i].spec.Name, runs[i].spec.Name
				return true
			}
			return failure == nil && parallel
		}
		return true
	}
	type queuedMerge struct {
		target int
		merge  func() (targetStep, error)
	}
	var merges []queuedMerge
	var firstErr error
	for i, t := range runs {
		t.startAfter = unfinished
		step, err := r.runTarget(ctx, p, s, t)
		if err == nil && step.merge != nil {
			if !parallel {
				// The next target is provisioned first; it starts on a
				// later pass.
				merges = append(merges, queuedMerge{i, step.merge})
				unfinished = t.spec.Name
				continue
			}
			step, err = step.merge()
		}
		if err != nil {
			// Retried; the merges of the targets before it need not wait.
			firstErr = err
			break
		}
		if !moved(i, step) {
			break
		}
	}
	for _, m := range merges {
		step, err := m.merge()
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			allDone = false
			continue
		}
		moved(m.target, step)
	}
	if failure != nil {
		// The run is over: an error on another target changes nothing.
		r.failRun(p, s, runs[failedAt], failure)
		return next.wait, false, nil
	}
	if firstErr != nil {
		return 0, false, firstErr
	}
	return next.wait, allDone, nil
}

// targetRun pairs a target's spec with its status entry and plan.
func (r *StorageBenchmarkReconciler) targetRun(p *pass, i int) *targetRun {
	b := p.bench
	spec := &b.Spec.Targets[i]
	var status *sbv1.TargetStatus
	for k := range b.Status.Targets {
		if b.Status.Targets[k].Name == spec.Name {
			status = &b.Status.Targets[k]
		}
	}
	if status == nil {
		b.Status.Targets = append(b.Status.Targets, sbv1.TargetStatus{Name: spec.Name, State: sbv1.TargetPending})
		status = &b.Status.Targets[len(b.Status.Targets)-1]
	}
	return &targetRun{spec: spec, status: status, plan: p.plans(spec)}
}

// ended reports whether the current generation's run is over (completed,
// whether it succeeded or failed): nothing more happens for it.
func ended(b *sbv1.StorageBenchmark) bool {
	c := meta.FindStatusCondition(b.Status.Conditions, sbv1.ConditionCompleted)
	return c != nil && c.Status == "True" && c.ObservedGeneration == b.Generation
}
