package controllers

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// targetStep is how a pass left a target.
type targetStep struct {
	done    bool
	failure *runFailure
	// wait is when to look again if no watch event comes first (0: only on
	// events).
	wait time.Duration
	// merge, when set, is the rest of a target whose clients have all
	// handed over their results: reading, merging and storing them. The
	// target no longer holds nodes or storage busy, so the next target
	// (run one after another) starts first: its volumes and clients are
	// provisioned while this merge runs, not after it.
	merge func() (targetStep, error)
	// timetableOver: the target's last cell has ended, on every client's
	// clock as far as clients.maxClockOffsetMilliseconds allows, but not
	// every client has handed over its results yet. Nothing it measures can
	// be disturbed any more, so the next target (run one after another) is
	// provisioned meanwhile; its start waits for the handover.
	timetableOver bool
}

// lookAgainBy brings the step's wait forward to d if d comes first (0:
// no deadline): a phase's deadline, such as a claim's bind timeout, holds
// even when a later phase of the same pass would wait longer.
func (s targetStep) lookAgainBy(d time.Duration) targetStep {
	if d > 0 && (s.wait == 0 || d < s.wait) {
		s.wait = d
	}
	return s
}

// runFailure ends the run: reason is a condition reason, message names the
// target, pod or claim at fault.
type runFailure struct {
	reason, message string
}

// targetRun is one target within a pass.
type targetRun struct {
	spec   *sbv1.Target
	status *sbv1.TargetStatus
	plan   *plan.Plan
	// startAfter names an earlier target whose clients are still handing
	// over their results: this target is provisioned and prepared, but its
	// start is not published until they are gone, so that no two targets'
	// clients overlap while one of them measures.
	startAfter string
}

// runTarget moves one target along: volumes, clients, start, collection.
// Each phase either finishes, fails the run, or says when to look again.
func (r *StorageBenchmarkReconciler) runTarget(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	if step, err := r.collected(ctx, p, s, t); err != nil || step.done || step.failure != nil || step.wait > 0 {
		return step, err
	}
	if t.status.ProvisioningStartTime == nil {
		now := metav1.NewTime(p.now)
		t.status.ProvisioningStartTime = &now
		t.status.State = sbv1.TargetProvisioning
		p.provisioningStarts[t.spec.Name] = p.now
	}
	volumes, err := r.ensureVolumes(ctx, p, s, t)
	if err != nil || volumes.failure != nil {
		return volumes, err
	}
	if step, err := r.ensureClients(ctx, p, s, t); err != nil || step.failure != nil {
		return step, err
	}
	start, published := startRecord(b, s, t.spec)
	if !published {
		step, err := r.startWhenReady(ctx, p, s, t)
		return step.lookAgainBy(volumes.wait), err
	}
	end := start.Start.Add(t.plan.Duration())
	if b.Spec.LinksTargets() && t.status.StartLeadMilliseconds == nil {
		// Another linked target published the start for this one too.
		step := noteStart(p, t, start)
		if p.now.Before(end) {
			return step, nil
		}
	}
	if p.now.Before(end) {
		setMeasuring(t.status, start.Start)
		// Just after the end: the clients' reports are read as soon as they
		// are written (see earlyReading).
		return targetStep{wait: min(end.Sub(p.now)+endMargin, progressInterval)}, nil
	}
	// Past the end collect sets the state; the start is still recorded,
	// for a status that lost it (a controller restarted meanwhile).
	measurementStart := metav1.NewTime(start.Start)
	t.status.MeasurementStartTime = &measurementStart
	if t.plan.HasRounds() {
		return r.searchRounds(ctx, p, s, t, start)
	}
	return r.collect(ctx, p, s, t, start)
}

// setMeasuring records a target whose clients measure from start on.
func setMeasuring(st *sbv1.TargetStatus, start time.Time) {
	measurementStart := metav1.NewTime(start)
	st.MeasurementStartTime = &measurementStart
	st.State = sbv1.TargetRunning
	st.Message = "measuring"
}

// endMargin is how long after the timetable's end the controller looks for
// the clients' reports: they write them within milliseconds of the end.
const endMargin = 100 * time.Millisecond

// progressInterval is how often status progress is refreshed while cells
// run, when nothing else happens.
const progressInterval = 15 * time.Second

// sinceProvisioningStart is how long ago the target's volumes were
// requested, at the given time: to the nanosecond when this process
// recorded the start, else from status (whole seconds: a restarted
// manager's phase times may be up to a second long). No start, no time.
func (p *pass) sinceProvisioningStart(t *targetRun, at time.Time) time.Duration {
	recorded := t.status.ProvisioningStartTime
	if recorded == nil {
		return 0
	}
	// Status is what counts: a precise start of another second is of an
	// earlier attempt whose status write was lost.
	if precise, ok := p.provisioningStarts[t.spec.Name]; ok && precise.Truncate(time.Second).Equal(recorded.Time.Truncate(time.Second)) {
		return at.Sub(precise)
	}
	return at.Sub(recorded.Time)
}
