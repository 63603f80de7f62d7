package controllers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// collect waits for every client to finish after the timetable's end. Once
// all have handed over, the step carries the rest of the collection
// (reading the reports from the logs, merging them, storing the target's
// results and the cleanup) as merge, which runTargets runs: at once with
// Parallel, else after the next target's start.
func (r *StorageBenchmarkReconciler) collect(ctx context.Context, p *pass, s *snapshot, t *targetRun, start plan.StartRecord) (targetStep, error) {
	b := p.bench
	end := start.Start.Add(t.plan.Duration())
	t.status.State = sbv1.TargetCollecting
	pods := s.targetPods(b, t.spec)
	early := r.reportsBeforeExit(ctx, p, pods, end)
	var running []string
	for _, pod := range pods {
		if !clientFinished(pod) && early[pod.Name] == nil {
			running = append(running, pod.Name)
		}
	}
	// A client whose pod is not in the snapshot has not handed over its
	// results either: it counts, and is named, among those waited for.
	missing := max(int(b.Spec.Clients.Count)-len(pods), 0)
	if len(running) > 0 || len(pods) != int(b.Spec.Clients.Count) {
		limit := time.Duration(b.Spec.Timeouts.CollectSeconds) * time.Second
		if p.now.Sub(end) > limit {
			sort.Strings(running)
			if missing > 0 {
				running = append(running, fmt.Sprintf("%d client pod(s) missing", missing))
			}
			return targetStep{failure: &runFailure{sbv1.ReasonTimedOut, fmt.Sprintf(
				"target %s: clients still running %s after the last cell's scheduled end (timeouts.collectSeconds): %s",
				t.spec.Name, limit, strings.Join(running, ", "))}}, nil
		}
		r.readAhead(ctx, p, pods)
		t.status.Message = fmt.Sprintf("waiting for %d client(s) to hand over results", len(running)+missing)
		step := targetStep{wait: limit - p.now.Sub(end) + time.Second}
		if earlyReading(p, end, len(running)) {
			step = step.lookAgainBy(earlyReadRetry)
		}
		over := end.Add(t.plan.MaxClockOffset() + endMargin)
		if step.timetableOver = !p.now.Before(over); !step.timetableOver {
			step = step.lookAgainBy(over.Sub(p.now))
		}
		return step, nil
	}

	// The clients have released their nodes and the storage: what is left
	// is the controller's own work. Its duration counts from here, not
	// from when advance gets to it.
	handedOver := p.clock.Now()
	have := reportsInHand(p, pods, early)
	return targetStep{merge: func() (targetStep, error) {
		return r.mergeReports(ctx, p, s, t, start, pods, have, handedOver)
	}}, nil
}

// mergeReports reads the reports of a target's clients, all of which have
// handed over by handedOver (those in early were read already: early, or
// ahead), merges and stores them.
func (r *StorageBenchmarkReconciler) mergeReports(ctx context.Context, p *pass, s *snapshot, t *targetRun, start plan.StartRecord,
	pods []*corev1.Pod, early map[string]*results.ClientReport, handedOver time.Time) (targetStep, error) {
	b := p.bench
	end := start.Start.Add(t.plan.Duration())
	began := p.clock.Now()
	reports, err := r.readReports(ctx, pods, early)
	var unreadable *unreadableReport
	switch {
	case errors.As(err, &unreadable):
		return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: pod %s (%s): %v", t.spec.Name, unreadable.pod.Name, clientOf(unreadable.pod), unreadable.err)}}, nil
	case err != nil && p.now.Sub(end) <= time.Duration(b.Spec.Timeouts.CollectSeconds)*time.Second:
		// The log could not be fetched (the kubelet or the API server
		// failed to answer): retried with backoff until collectSeconds.
		return targetStep{}, fmt.Errorf("target %s: %w", t.spec.Name, err)
	case err != nil:
		return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: %v (for longer than timeouts.collectSeconds)", t.spec.Name, err)}}, nil
	}
	tr, err := results.Merge(t.plan, reports)
	if err != nil {
		return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: %v", t.spec.Name, err)}}, nil
	}
	tr.Timings = results.Timings{
		VolumesBoundMilliseconds: deref(t.status.VolumesBoundMilliseconds),
		ClientsReadyMilliseconds: deref(t.status.ClientsReadyMilliseconds),
		PrepareMilliseconds:      tr.Timings.PrepareMilliseconds,
		StartLeadMilliseconds:    start.Start.Sub(start.PublishedAt).Milliseconds(),
		// Up to the merge: what is left (storing, cleanup) is a few
		// requests. The time the merge waited for the next target's
		// start is not the collection's.
		CollectionMilliseconds: max(handedOver.Sub(end)+p.clock.Now().Sub(began), 0).Milliseconds(),
	}
	step, err := r.storeResult(ctx, p, s, t, tr, pods)
	if err == nil && step.failure == nil {
		forgetReports(p, pods)
	}
	return step, err
}

// storeResult fingerprints a target's merged result, judges its validity,
// stores it in the target's results ConfigMap and cleans up after it.
func (r *StorageBenchmarkReconciler) storeResult(ctx context.Context, p *pass, s *snapshot, t *targetRun, tr *results.TargetResult, pods []*corev1.Pod) (targetStep, error) {
	b := p.bench
	env, memory, err := r.fingerprint(ctx, b, t.spec, s, pods, tr.EngineVersion)
	if err != nil {
		return targetStep{}, err
	}
	tr.Environment = env
	tr.Warnings = results.Warnings(tr, results.WarningInputs{
		NodeMemoryBytes: memory, SizePerClientBytes: b.Spec.Dataset.SizePerClient.Bytes(), SteadyState: b.Spec.SteadyState.Rule(),
	})

	data, binary, err := results.EncodeStored(tr)
	if err != nil {
		return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, err.Error()}}, nil
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: resultsConfigMapName(b, t.spec), Namespace: b.Namespace, Labels: runLabels(b, t.spec, componentResults)},
		Data:       data,
		BinaryData: binary,
	}
	created, err := r.createOwned(ctx, b, cm)
	if err != nil {
		return targetStep{}, err
	}
	if !created {
		// An earlier pass stored this target's results (the cache has not
		// shown them yet): those are the results, not this pass's merge.
		if tr, err = r.storedResult(ctx, b, cm.Name); err != nil {
			return targetStep{}, err
		}
	}
	s.configMaps[cm.Name] = cm
	applyTargetResult(p, t, tr)
	p.normal(sbv1.EventResultsCollected, sbv1.ActionCollect, fmt.Sprintf("target %s: merged the reports of %d clients into configmap %s", t.spec.Name, len(pods), cm.Name))
	return r.cleanupTarget(ctx, p, s, t)
}

// storedResult reads a target's results ConfigMap from the API server. One
// of an older generation (still being deleted) is an error to retry.
func (r *StorageBenchmarkReconciler) storedResult(ctx context.Context, b *sbv1.StorageBenchmark, name string) (*results.TargetResult, error) {
	cm := &corev1.ConfigMap{}
	if err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: b.Namespace, Name: name}, cm); err != nil {
		return nil, fmt.Errorf("reading results configmap %s: %w", name, err)
	}
	if cm.Labels[labelGeneration] != generationLabel(b.Generation) {
		return nil, fmt.Errorf("results configmap %s is of generation %s, still being replaced", name, cm.Labels[labelGeneration])
	}
	tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
	if err != nil {
		return nil, fmt.Errorf("configmap %s: %w", name, err)
	}
	return tr, nil
}

// resultsStored reports, from the API server, whether the target's results
// of this generation are stored.
func (r *StorageBenchmarkReconciler) resultsStored(ctx context.Context, b *sbv1.StorageBenchmark, t *sbv1.Target) (bool, error) {
	cm, err := r.currentResults(ctx, b, resultsConfigMapName(b, t))
	return cm != nil, err
}

// currentResults reads a results ConfigMap of this generation, data
// included, from the API server (the cache keeps no data of it,
// CacheOptions); nil when there is none, or only an older generation's.
func (r *StorageBenchmarkReconciler) currentResults(ctx context.Context, b *sbv1.StorageBenchmark, name string) (*corev1.ConfigMap, error) {
	cm, err := r.freshConfigMap(ctx, b, name)
	if err != nil || cm == nil || cm.Labels[labelGeneration] != generationLabel(b.Generation) {
		return nil, err
	}
	return cm, nil
}

// reportReaders bounds the logs read at once: a target's 64 client logs
// read one after another cost a kubelet round trip each, and parsing them
// (hundreds of KB of JSON each) uses every core.
const reportReaders = 8

// unreadableReport is a log that was read but holds no usable report:
// reading it again cannot help.
type unreadableReport struct {
	pod *corev1.Pod
	err error
}

func (u *unreadableReport) Error() string { return u.err.Error() }

// readReports reads every client's report from its log, several at once,
// each once; those in have (by pod name) were read already. A log that
// cannot be fetched is an error to retry; one that holds no usable report
// is an *unreadableReport.
func (r *StorageBenchmarkReconciler) readReports(ctx context.Context, pods []*corev1.Pod, have map[string]*results.ClientReport) ([]*results.ClientReport, error) {
	reports := make([]*results.ClientReport, len(pods))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(reportReaders)
	for i, pod := range pods {
		if report := have[pod.Name]; report != nil {
			reports[i] = report
			continue
		}
		g.Go(func() error {
			report, err := r.readReport(ctx, pod)
			var broken *results.LogReadError
			var notFetched *logNotFetched
			switch {
			case errors.As(err, &broken), errors.As(err, &notFetched):
				return fmt.Errorf("reading the log of pod %s (%s): %w", pod.Name, clientOf(pod), err)
			case err != nil:
				return &unreadableReport{pod: pod, err: err}
			}
			reports[i] = report
			return nil
		})
	}
	return reports, g.Wait()
}

// logNotFetched is a log the kubelet or the API server did not give:
// reading it again may help.
type logNotFetched struct{ err error }

func (e *logNotFetched) Error() string { return e.err.Error() }
func (e *logNotFetched) Unwrap() error { return e.err }

// readReport reads one client's report from its log.
func (r *StorageBenchmarkReconciler) readReport(ctx context.Context, pod *corev1.Pod) (*results.ClientReport, error) {
	return r.readReportSince(ctx, pod, time.Time{})
}

// readReportSince reads the last report a client wrote after since (the
// whole log when since is zero, or the reader cannot skip lines).
func (r *StorageBenchmarkReconciler) readReportSince(ctx context.Context, pod *corev1.Pod, since time.Time) (*results.ClientReport, error) {
	// One byte over the limit tells a log that was cut from one that fits.
	var log io.ReadCloser
	var err error
	if sr, ok := r.Logs.(SinceLogReader); ok && !since.IsZero() {
		log, err = sr.ReadLogSince(ctx, pod.Namespace, pod.Name, engineContainer, results.MaxReportBytes+1, since)
	} else {
		log, err = r.Logs.ReadLog(ctx, pod.Namespace, pod.Name, engineContainer, results.MaxReportBytes+1)
	}
	if err != nil {
		return nil, &logNotFetched{err: err}
	}
	defer log.Close()
	return results.ReadClientReport(log, results.MaxReportBytes)
}

// Early reading: a client writes its report and exits at the timetable's
// end, but the kubelet shows the exit a second or so later (it looks for
// exited containers once a second). Logs of the last few clients still
// shown running are read for a short while after the end: a complete,
// checksummed report there is the client's hand-over. Only a few, and only
// for a while, so that a target of many slow clients is not read over and
// over; the rest wait for their pods' status as before.
const (
	earlyReadWindow  = 3 * time.Second
	earlyReadClients = reportReaders
	earlyReadRetry   = 300 * time.Millisecond
)

// engineRunning reports whether the kubelet last saw the pod's engine
// running: one shown exited with an error (killed after its report, say)
// is left to the pod's failure.
func engineRunning(pod *corev1.Pod) bool {
	if pod.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range pod.Status.ContainerStatuses {
		if c.Name == engineContainer {
			return c.State.Running != nil
		}
	}
	return false
}

// earlyReading reports whether the logs of running clients are read now.
func earlyReading(p *pass, end time.Time, running int) bool {
	since := p.now.Sub(end)
	return running > 0 && running <= earlyReadClients && since >= 0 && since <= earlyReadWindow
}

// reportsBeforeExit reads the reports of the target's clients still shown
// running, when early reading applies: those complete, by pod name. A log
// without a whole report, or that cannot be read yet, is not one.
func (r *StorageBenchmarkReconciler) reportsBeforeExit(ctx context.Context, p *pass, pods []*corev1.Pod, end time.Time) map[string]*results.ClientReport {
	var running []*corev1.Pod
	for _, pod := range pods {
		if engineRunning(pod) {
			running = append(running, pod)
		}
	}
	if len(pods) != int(p.bench.Spec.Clients.Count) || !earlyReading(p, end, len(running)) {
		return nil
	}
	var (
		mu   sync.Mutex
		done = map[string]*results.ClientReport{}
		wg   sync.WaitGroup
	)
	for _, pod := range running {
		wg.Go(func() {
			// A report with an error is left to the pod's failure, which
			// says more (exit code, termination message).
			if report, err := r.readReport(ctx, pod); err == nil && report.Error == "" {
				mu.Lock()
				done[pod.Name] = report
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return done
}

// collected reports whether the target's results for this generation are
// stored already; if so it refreshes status from them (after a controller
// restart status may lag the objects) and applies the cleanup policy.
func (r *StorageBenchmarkReconciler) collected(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	cm := s.configMaps[resultsConfigMapName(b, t.spec)]
	stored := cm != nil && cm.Labels[labelGeneration] == generationLabel(b.Generation)
	if !stored && t.status.State != sbv1.TargetSucceeded {
		return targetStep{}, nil
	}
	// Status (read fresh) may know of results the cache does not show yet.
	if stored && t.status.State != sbv1.TargetSucceeded {
		tr := p.targetResults[t.spec.Name]
		if tr == nil {
			fresh, err := r.currentResults(ctx, b, cm.Name)
			if err != nil {
				return targetStep{}, err
			}
			if fresh == nil {
				// Deleted or replaced since the cache saw it: look again
				// once the cache has caught up, rather than provision the
				// target again on what the cache says now.
				return targetStep{wait: shortRequeue}, nil
			}
			if tr, err = results.DecodeStored(fresh.Data, fresh.BinaryData); err != nil {
				return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: configmap %s: %v", t.spec.Name, cm.Name, err)}}, nil
			}
		}
		applyTargetResult(p, t, tr)
	}
	return r.cleanupTarget(ctx, p, s, t)
}

// applyTargetResult copies a target's stored result into its status entry
// and keeps it on the pass for finishRun. The bind and readiness times
// status already has are kept (status, read fresh, is what was measured);
// the result fills in those a restart lost. The rest is known from the
// reports on, and the result is where it is kept.
func applyTargetResult(p *pass, t *targetRun, tr *results.TargetResult) {
	st := t.status
	st.State = sbv1.TargetSucceeded
	st.Message = ""
	st.ResultsConfigMap = resultsConfigMapName(p.bench, t.spec)
	st.Cells = results.StatusCells(tr)
	st.Searches = results.StatusSearches(tr)
	st.Backend = truncate(strings.Join(tr.Backends, ", "), 128)
	st.StartSkewMicroseconds = ptr.To(tr.StartSkewMicroseconds)
	st.Environment = results.StatusEnvironment(tr.Environment)
	if tr.Timings.VolumesBoundMilliseconds > 0 && st.VolumesBoundMilliseconds == nil {
		st.VolumesBoundMilliseconds = ptr.To(tr.Timings.VolumesBoundMilliseconds)
	}
	if tr.Timings.ClientsReadyMilliseconds > 0 && st.ClientsReadyMilliseconds == nil {
		st.ClientsReadyMilliseconds = ptr.To(tr.Timings.ClientsReadyMilliseconds)
	}
	st.DataLayoutMilliseconds = ptr.To(tr.Timings.PrepareMilliseconds)
	if tr.Timings.StartLeadMilliseconds > 0 {
		st.StartLeadMilliseconds = ptr.To(tr.Timings.StartLeadMilliseconds)
	}
	if tr.Timings.CollectionMilliseconds > 0 {
		st.CollectionMilliseconds = ptr.To(tr.Timings.CollectionMilliseconds)
	}
	p.targetResults[t.spec.Name] = tr
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
