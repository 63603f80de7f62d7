package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Event reasons of a schedule.
const (
	EventRunCreated  = "RunCreated"
	EventRunSkipped  = "RunSkipped"
	EventRunReplaced = "RunReplaced"
	EventRunDeleted  = "RunDeleted"
)

// StorageBenchmarkScheduleReconciler creates a schedule's runs when they are
// due, trims its history and sums its runs up in status.
type StorageBenchmarkScheduleReconciler struct {
	client.Client
	Recorder recorder.EventRecorder
	// Clock is injectable so tests can control time.
	Clock clock.Clock
}

// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarkschedules,verbs=get;list;watch
// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarkschedules/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarkschedules/finalizers,verbs=update
// +kubebuilder:rbac:groups=storagebench.io,resources=storagebenchmarks,verbs=get;list;watch;create;delete

// Reconcile creates the run that is due, deletes runs beyond the history
// limits and writes the schedule's status.
func (r *StorageBenchmarkScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s := &sbv1.StorageBenchmarkSchedule{}
	if err := r.Get(ctx, req.NamespacedName, s); err != nil || !s.DeletionTimestamp.IsZero() {
		// Runs are owned by the schedule: the garbage collector removes them.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	runs, err := r.runsOf(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	in, invalid := r.decisionInput(s, runs)
	if invalid != nil {
		return ctrl.Result{}, r.writeScheduleStatus(ctx, s, invalidScheduleStatus(s, invalid))
	}
	d := decideSchedule(in)
	if err := r.apply(ctx, s, d); err != nil {
		return ctrl.Result{}, err
	}
	if runs, err = r.runsOf(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.writeScheduleStatus(ctx, s, scheduleStatus(s, runs, d)); err != nil {
		return ctrl.Result{}, err
	}
	if d.next.IsZero() {
		return ctrl.Result{}, nil
	}
	// Wake at the next scheduled time; a run's completion wakes the
	// schedule earlier through the watch on its runs.
	return ctrl.Result{RequeueAfter: max(d.next.Sub(r.Clock.Now()), time.Second)}, nil
}

// runsOf lists the schedule's runs (the benchmarks it controls).
func (r *StorageBenchmarkScheduleReconciler) runsOf(ctx context.Context, s *sbv1.StorageBenchmarkSchedule) ([]*sbv1.StorageBenchmark, error) {
	var list sbv1.StorageBenchmarkList
	if err := r.List(ctx, &list, client.InNamespace(s.Namespace), client.MatchingLabels{sbv1.LabelSchedule: s.Name}); err != nil {
		return nil, fmt.Errorf("listing the runs of schedule %s: %w", s.Name, err)
	}
	var out []*sbv1.StorageBenchmark
	for i := range list.Items {
		if b := &list.Items[i]; metav1.IsControlledBy(b, s) {
			out = append(out, b)
		}
	}
	return out, nil
}

// decisionInput gathers what decideSchedule reads; a spec that cannot be
// read (cron, time zone, template) is returned as invalid.
func (r *StorageBenchmarkScheduleReconciler) decisionInput(s *sbv1.StorageBenchmarkSchedule, runs []*sbv1.StorageBenchmark) (scheduleInput, error) {
	if errs := s.Spec.Validate(); len(errs) > 0 {
		return scheduleInput{}, errs.ToAggregate()
	}
	sched, loc, err := s.Spec.ParseSchedule()
	if err != nil {
		return scheduleInput{}, err
	}
	in := scheduleInput{
		now: r.Clock.Now(), schedule: sched, location: loc, since: s.CreationTimestamp.Time,
		suspended: s.Spec.Suspend != nil && *s.Spec.Suspend, concurrency: s.Spec.ConcurrencyPolicy,
		successfulToKeep: s.Spec.SuccessfulRunsKept(), failedToKeep: s.Spec.FailedRunsKept(),
	}
	if s.Status.LastScheduleTime != nil {
		in.since = s.Status.LastScheduleTime.Time
	}
	if s.Spec.StartingDeadlineSeconds != nil {
		deadline := time.Duration(*s.Spec.StartingDeadlineSeconds) * time.Second
		in.startingDeadline = &deadline
	}
	names := map[string]bool{}
	for _, b := range runs {
		in.runs = append(in.runs, scheduledRun{name: b.Name, scheduled: b.ScheduledTime(), outcome: runOutcomeOf(b), deleting: !b.DeletionTimestamp.IsZero()})
		names[b.Name] = true
	}
	in.existingRunOfTime = func(t time.Time) bool { return names[runName(s, t)] }
	return in, nil
}

// runName is the deterministic name of the run for a scheduled time, as a
// CronJob names its Jobs: the schedule's name and the minutes since 1970.
func runName(s *sbv1.StorageBenchmarkSchedule, scheduled time.Time) string {
	return s.Name + "-" + strconv.FormatInt(scheduled.Unix()/60, 10)
}

// apply carries a decision out: stop what Replace replaces, create the due
// run, delete runs beyond the history limits.
func (r *StorageBenchmarkScheduleReconciler) apply(ctx context.Context, s *sbv1.StorageBenchmarkSchedule, d scheduleDecision) error {
	for _, name := range d.stop {
		// In the foreground: the run stays, and holds the next one back,
		// until the garbage collector has removed its Jobs and their pods.
		if err := r.deleteRun(ctx, s, name, metav1.DeletePropagationForeground); err != nil {
			return err
		}
		r.Recorder.Eventf(s, nil, corev1.EventTypeNormal, EventRunReplaced, "Replace", "run %s was still running when the next run was due: deleted; the next run starts once its pods are gone (concurrencyPolicy Replace)", name)
	}
	if d.create != nil {
		run := newScheduledRun(s, *d.create)
		if err := controllerutil.SetControllerReference(s, run, r.Scheme()); err != nil {
			return err
		}
		switch err := r.Create(ctx, run); {
		case apierrors.IsAlreadyExists(err):
			// Created by a pass whose status write was lost: nothing to do.
		case err != nil:
			return fmt.Errorf("creating run %s: %w", run.Name, err)
		default:
			r.Recorder.Eventf(s, run, corev1.EventTypeNormal, EventRunCreated, "Schedule", "created run %s for %s", run.Name, d.create.UTC().Format(time.RFC3339))
		}
	}
	if d.skipped != "" {
		r.Recorder.Eventf(s, nil, corev1.EventTypeWarning, EventRunSkipped, "Schedule", "%s", d.skipped)
	}
	for _, name := range d.trim {
		if err := r.deleteRun(ctx, s, name, metav1.DeletePropagationBackground); err != nil {
			return err
		}
		r.Recorder.Eventf(s, nil, corev1.EventTypeNormal, EventRunDeleted, "Trim", "deleted run %s beyond the history limits", name)
	}
	return nil
}

// deleteRun deletes a run and what it owns (its claims, Jobs, pods and
// results ConfigMaps), garbage collected as policy says.
func (r *StorageBenchmarkScheduleReconciler) deleteRun(ctx context.Context, s *sbv1.StorageBenchmarkSchedule, name string, policy metav1.DeletionPropagation) error {
	run := &sbv1.StorageBenchmark{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: name}}
	if err := r.Delete(ctx, run, client.PropagationPolicy(policy)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting run %s: %w", name, err)
	}
	return nil
}

// newScheduledRun is the benchmark of one scheduled time: the template,
// labelled with the schedule and annotated with the time.
func newScheduledRun(s *sbv1.StorageBenchmarkSchedule, scheduled time.Time) *sbv1.StorageBenchmark {
	labels := map[string]string{}
	for k, v := range s.Spec.Template.Metadata.Labels {
		labels[k] = v
	}
	labels[sbv1.LabelSchedule] = s.Name
	annotations := map[string]string{}
	for k, v := range s.Spec.Template.Metadata.Annotations {
		annotations[k] = v
	}
	annotations[sbv1.AnnotationScheduledTime] = scheduled.UTC().Format(time.RFC3339)
	annotations[sbv1.AnnotationTemplateHash] = templateHash(&s.Spec.Template.Spec)
	return &sbv1.StorageBenchmark{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: runName(s, scheduled), Labels: labels, Annotations: annotations},
		Spec:       *s.Spec.Template.Spec.DeepCopy(),
	}
}

// templateHash is a short hash of a run's spec as the template gives it.
func templateHash(spec *sbv1.StorageBenchmarkSpec) string {
	data, err := json.Marshal(spec)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// invalidScheduleStatus marks a schedule whose spec cannot run: it makes
// no run until the spec changes.
func invalidScheduleStatus(s *sbv1.StorageBenchmarkSchedule, err error) sbv1.StorageBenchmarkScheduleStatus {
	st := *s.Status.DeepCopy()
	st.ObservedGeneration = s.Generation
	st.NextScheduleTime = nil
	for _, c := range []metav1.Condition{
		{Type: sbv1.ConditionStalled, Status: metav1.ConditionTrue, Reason: sbv1.ReasonInvalidSpec, Message: truncate(err.Error(), maxConditionMessage)},
		{Type: sbv1.ConditionReady, Status: metav1.ConditionFalse, Reason: sbv1.ReasonInvalidSpec, Message: truncate(err.Error(), maxConditionMessage)},
	} {
		c.ObservedGeneration = s.Generation
		meta.SetStatusCondition(&st.Conditions, c)
	}
	meta.RemoveStatusCondition(&st.Conditions, sbv1.ConditionReconciling)
	return st
}

// writeScheduleStatus writes status when it changed, as a merge patch
// against what was read (a conflict-free write of the fields this
// controller owns).
func (r *StorageBenchmarkScheduleReconciler) writeScheduleStatus(ctx context.Context, s *sbv1.StorageBenchmarkSchedule, st sbv1.StorageBenchmarkScheduleStatus) error {
	if apiequality.Semantic.DeepEqual(s.Status, st) {
		return nil
	}
	patch := client.MergeFromWithOptions(s.DeepCopy(), client.MergeFromWithOptimisticLock{})
	s.Status = st
	if err := r.Status().Patch(ctx, s, patch); err != nil {
		return fmt.Errorf("writing the status of schedule %s: %w", s.Name, err)
	}
	return nil
}

// SetupScheduleWithManager registers the schedule controller: it watches
// schedules and the runs they control (a run's completion updates status
// and lets a held-back run start).
func SetupScheduleWithManager(mgr ctrl.Manager, clk clock.Clock) error {
	r := &StorageBenchmarkScheduleReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("storagebench-schedule"), Clock: clk}
	return ctrl.NewControllerManagedBy(mgr).
		For(&sbv1.StorageBenchmarkSchedule{}).
		Watches(&sbv1.StorageBenchmark{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &sbv1.StorageBenchmarkSchedule{}, handler.OnlyControllerOwner())).
		Named("storagebenchmarkschedule").
		Complete(r)
}
