package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// A target with capacity searches runs in rounds. Round 0 is the plan's
// own slots (its matrix, possibly none) from the published start. After
// each round every client writes that round's report to its log and waits;
// the controller reads the reports from the running pods' logs (the same
// framed, checksummed, untrusted reports, so clients need no write access
// to anything), merges them, stores the search's state in the target's
// search ConfigMap, decides every search's next step (results.NextSearchStep,
// a pure function of the steps stored) and publishes the next round under
// the target's round key of the start ConfigMap, as the start itself is
// published. A round that says Done lets the clients exit, and the target's
// results are stored as any target's. A manager restarted between rounds
// reads the stored state and the published round and goes on from there.

// searchRun is a target's search between rounds.
type searchRun struct {
	// Collected is the last round merged; -1 before round 0.
	Collected int32                    `json:"collected"`
	Searches  []results.SearchProgress `json:"searches"`
	// base is round 0's merge (the matrix cells, the clients), with what
	// every later round adds to the target as a whole (skew, backends).
	base *results.TargetResult
	// unstored is true when a merged round is not in the ConfigMap yet (its
	// write failed): it is written before anything is published.
	unstored bool
}

// logSinceMargin is how much earlier than a round's start its clients'
// logs are read from, beside the clock offset the spec allows.
const logSinceMargin = 5 * time.Second

// searchStateKey holds a searchRun in the search ConfigMap, beside the base
// result (results.EncodeStored's keys).
const searchStateKey = "search.json"

// searchRounds moves a target with searches on once round 0 has started.
func (r *StorageBenchmarkReconciler) searchRounds(ctx context.Context, p *pass, s *snapshot, t *targetRun, start plan.StartRecord) (targetStep, error) {
	run, failure, err := r.loadSearch(ctx, p, s, t, start)
	switch {
	case err != nil || failure != nil:
		return targetStep{failure: failure}, err
	case run == nil:
		// The results are stored (and the search ConfigMap deleted) by a
		// pass whose status write was lost: the next pass sees them.
		return targetStep{wait: shortRequeue}, nil
	}
	if run.unstored {
		if err := r.storeSearch(ctx, p, s, t, run); err != nil {
			return storeFailed(t, err)
		}
	}
	round := publishedRound(p.bench, s, t, start)
	switch {
	case round.Done:
		return r.finishSearch(ctx, p, s, t, run, start)
	case round.Round > run.Collected+1:
		return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf(
			"target %s: search round %d is published, but the stored search has merged only up to round %d", t.spec.Name, round.Round, run.Collected)}}, nil
	case round.Round == run.Collected+1:
		end := round.Start.Add(round.Duration())
		if p.now.Before(end) {
			setMeasuring(t.status, start.Start)
			t.status.Message = fmt.Sprintf("search round %d: %d step(s)", round.Round, len(round.Slots))
			return targetStep{wait: min(end.Sub(p.now)+endMargin, progressInterval)}, nil
		}
		step, err := r.collectRound(ctx, p, s, t, run, round, end)
		if err != nil || step.failure != nil || step.wait > 0 {
			return step, err
		}
	}
	cells := results.NextSearchRound(run.Searches, t.plan.Clients)
	var next plan.RoundRecord
	what := fmt.Sprintf("search round %d", run.Collected+1)
	lead, ok, err := r.publishRecord(ctx, p, s, t, []string{plan.RoundKey(t.spec.Name)}, what, func(now time.Time, lead time.Duration) string {
		next = plan.RoundRecord{StartRecord: plan.StartRecord{Generation: p.bench.Generation, Start: now.Add(lead), PublishedAt: now},
			Round: run.Collected + 1, Slots: t.plan.Round(cells, false).Slots, Done: len(cells) == 0}
		if next.Done {
			next.Start = time.Time{} // nothing starts: a client reading it late is not late
		}
		return next.Encode()
	})
	switch {
	case err != nil:
		return targetStep{}, err
	case !ok:
		return targetStep{wait: shortRequeue}, nil
	}
	if next.Done {
		return r.finishSearch(ctx, p, s, t, run, start)
	}
	t.status.Message = fmt.Sprintf("search round %d: %d step(s)", next.Round, len(cells))
	return targetStep{wait: lead + min(next.Duration(), progressInterval)}, nil
}

// publishedRound is the round the target's clients run or ran last: the
// published round record of this generation, or round 0 (the plan's slots
// from the start) when none is.
func publishedRound(b *sbv1.StorageBenchmark, s *snapshot, t *targetRun, start plan.StartRecord) plan.RoundRecord {
	if cm := s.configMaps[startConfigMapName(b)]; cm != nil {
		if value, ok := cm.Data[plan.RoundKey(t.spec.Name)]; ok {
			if record, err := plan.DecodeRoundRecord(value); err == nil && record.Generation == b.Generation {
				return record
			}
		}
	}
	return plan.RoundRecord{StartRecord: start, Slots: t.plan.Slots}
}

// collectRound merges a finished round's reports into the search and
// stores it. A step with a wait means some client has not handed its
// report over yet.
func (r *StorageBenchmarkReconciler) collectRound(ctx context.Context, p *pass, s *snapshot, t *targetRun, run *searchRun, round plan.RoundRecord, end time.Time) (targetStep, error) {
	t.status.State = sbv1.TargetCollecting
	// The round's report is among the lines written since its start; the
	// margin covers the node's clock being off the controller's.
	since := round.Start.Add(-t.plan.MaxClockOffset() - logSinceMargin)
	if round.Round == 0 {
		since = time.Time{} // round 0: the whole log, as any target's
	}
	reports, pending, failure := r.roundReports(ctx, p, s, t, round.Round, since)
	if failure != nil {
		return targetStep{failure: failure}, nil
	}
	if len(pending) > 0 {
		limit := time.Duration(p.bench.Spec.Timeouts.CollectSeconds) * time.Second
		if p.now.Sub(end) > limit {
			return targetStep{failure: &runFailure{sbv1.ReasonTimedOut, fmt.Sprintf(
				"target %s: no report of search round %d %s after the round's end (timeouts.collectSeconds): %s",
				t.spec.Name, round.Round, limit, strings.Join(pending, ", "))}}, nil
		}
		t.status.Message = fmt.Sprintf("waiting for %d client(s) to hand over search round %d", len(pending), round.Round)
		return targetStep{wait: earlyReadRetry}, nil
	}
	if round.Round > 0 {
		if failure := checkRoundIsDecided(t, run, round); failure != nil {
			return targetStep{failure: failure}, nil
		}
	}
	roundPlan := *t.plan
	roundPlan.Slots, roundPlan.Searches = round.Slots, nil
	merged, err := results.Merge(&roundPlan, reports)
	if err != nil {
		return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s, search round %d: %v", t.spec.Name, round.Round, err)}}, nil
	}
	if round.Round == 0 {
		run.base = merged
	} else {
		var cells []sbv1.Cell
		for _, slot := range round.Slots {
			cells = append(cells, slot.Cells...)
		}
		if err := results.FoldSearchRound(run.Searches, t.plan.Clients, cells, merged); err != nil {
			return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s, search round %d: %v", t.spec.Name, round.Round, err)}}, nil
		}
		run.base.AddRound(merged)
	}
	run.Collected, run.unstored = round.Round, true
	if err := r.storeSearch(ctx, p, s, t, run); err != nil {
		return storeFailed(t, err)
	}
	return targetStep{}, nil
}

// storeFailed is a failed write of the search: retried, unless the API
// server refuses it as too large, which no retry changes.
func storeFailed(t *targetRun, err error) (targetStep, error) {
	if apierrors.IsInvalid(err) || apierrors.IsRequestEntityTooLargeError(err) {
		return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: the search does not fit its ConfigMap: %v", t.spec.Name, err)}}, nil
	}
	return targetStep{}, err
}

// checkRoundIsDecided refuses a published round whose steps are not those
// the stored steps decide: the start ConfigMap is untrusted like any.
func checkRoundIsDecided(t *targetRun, run *searchRun, round plan.RoundRecord) *runFailure {
	decided := results.NextSearchRound(append([]results.SearchProgress(nil), run.Searches...), t.plan.Clients)
	var published []string
	for _, slot := range round.Slots {
		for _, c := range slot.Cells {
			published = append(published, c.Name+fmt.Sprintf("@%d/%d", c.RateIOPS, c.QueueDepth))
		}
	}
	var want []string
	for _, c := range decided {
		want = append(want, c.Name+fmt.Sprintf("@%d/%d", c.RateIOPS, c.QueueDepth))
	}
	if strings.Join(published, ",") != strings.Join(want, ",") {
		return &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: search round %d publishes steps %v, the stored steps decide %v",
			t.spec.Name, round.Round, published, want)}
	}
	return nil
}

// roundReports reads every client's last report and keeps those of the
// round. Clients whose report of the round is not in their log yet are
// pending, by pod (or a count of pods missing); a report with an error, of
// a later round, or unreadable fails the run.
func (r *StorageBenchmarkReconciler) roundReports(ctx context.Context, p *pass, s *snapshot, t *targetRun, round int32, since time.Time) ([]*results.ClientReport, []string, *runFailure) {
	pods := s.targetPods(p.bench, t.spec)
	var (
		mu      sync.Mutex
		reports []*results.ClientReport
		pending []string
		failure *runFailure
		g       errgroup.Group
	)
	g.SetLimit(reportReaders)
	for _, pod := range pods {
		g.Go(func() error {
			report, err := r.readReportSince(ctx, pod, since)
			mu.Lock()
			defer mu.Unlock()
			var notFetched *logNotFetched
			var broken *results.LogReadError
			switch {
			// Not there yet, still being written, or the stream broke: read
			// again until collectSeconds.
			case errors.Is(err, results.ErrNoReport), errors.Is(err, results.ErrReportIncomplete), errors.As(err, &notFetched), errors.As(err, &broken),
				err == nil && report.Round < round && report.Error == "":
				pending = append(pending, pod.Name)
			case err != nil:
				failure = &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: pod %s (%s): %v", t.spec.Name, pod.Name, clientOf(pod), err)}
			case report.Error != "":
				failure = &runFailure{sbv1.ReasonClientFailed, fmt.Sprintf("target %s: pod %s (%s): %s", t.spec.Name, pod.Name, clientOf(pod), report.Error)}
			case report.Round > round:
				failure = &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: pod %s (%s) reported round %d while round %d is collected", t.spec.Name, pod.Name, clientOf(pod), report.Round, round)}
			default:
				reports = append(reports, report)
			}
			return nil
		})
	}
	_ = g.Wait() // every outcome is in pending, failure or reports
	if missing := int(p.bench.Spec.Clients.Count) - len(pods); missing > 0 {
		pending = append(pending, fmt.Sprintf("%d client pod(s) missing", missing))
	}
	sort.Strings(pending)
	return reports, pending, failure
}

// finishSearch stores the target's results once the searches are over: the
// matrix cells of round 0 and every search's answer and curve.
func (r *StorageBenchmarkReconciler) finishSearch(ctx context.Context, p *pass, s *snapshot, t *targetRun, run *searchRun, start plan.StartRecord) (targetStep, error) {
	if run.base == nil {
		return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: the searches are done, but the stored search has no round 0", t.spec.Name)}}, nil
	}
	// Every search is over: deciding once more records the answers of those
	// that ended with the last round.
	results.NextSearchRound(run.Searches, t.plan.Clients)
	for _, sp := range run.Searches {
		if sp.Result == nil {
			return targetStep{failure: &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf(
				"target %s: the round record says the searches are done, and search %s has not ended (%d steps)", t.spec.Name, sp.Search.Name, len(sp.Steps))}}, nil
		}
	}
	tr := *run.base
	tr.Searches = results.SearchResults(run.Searches)
	tr.Timings = results.Timings{
		VolumesBoundMilliseconds: deref(t.status.VolumesBoundMilliseconds),
		ClientsReadyMilliseconds: deref(t.status.ClientsReadyMilliseconds),
		PrepareMilliseconds:      run.base.Timings.PrepareMilliseconds,
		StartLeadMilliseconds:    start.Start.Sub(start.PublishedAt).Milliseconds(),
	}
	return r.storeResult(ctx, p, s, t, &tr, s.targetPods(p.bench, t.spec))
}

// loadSearch is the target's search as this process stored it last, else
// as the search ConfigMap holds it (read uncached: after a restart the cache
// may lag the last round's write), else a new one.
func (r *StorageBenchmarkReconciler) loadSearch(ctx context.Context, p *pass, s *snapshot, t *targetRun, start plan.StartRecord) (*searchRun, *runFailure, error) {
	if run := p.searches[t.spec.Name]; run != nil {
		return run, nil, nil
	}
	cm, err := r.freshConfigMap(ctx, p.bench, searchConfigMapName(p.bench, t.spec))
	if err != nil {
		return nil, nil, err
	}
	if cm == nil && publishedRound(p.bench, s, t, start).Round > 0 {
		// Rounds were published, so the search was stored: gone now means
		// the results were stored and it was cleaned up.
		stored, err := r.resultsStored(ctx, p.bench, t.spec)
		if err != nil || stored {
			return nil, nil, err
		}
		return nil, &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: search rounds were published, and configmap %s with the steps is gone", t.spec.Name, searchConfigMapName(p.bench, t.spec))}, nil
	}
	run := &searchRun{Collected: -1, Searches: results.NewSearchProgress(t.plan.Searches)}
	if cm != nil {
		s.configMaps[cm.Name] = cm
		if run, err = decodeSearch(cm, t.plan); err != nil {
			return nil, &runFailure{sbv1.ReasonResultsUnreadable, fmt.Sprintf("target %s: configmap %s: %v", t.spec.Name, cm.Name, err)}, nil
		}
	}
	p.searches[t.spec.Name] = run
	return run, nil, nil
}

// decodeSearch reads a stored search back, checking it against the plan:
// anything allowed to write ConfigMaps can write this one.
func decodeSearch(cm *corev1.ConfigMap, p *plan.Plan) (*searchRun, error) {
	run := &searchRun{}
	if err := results.DecodeJSON(searchStateKey, []byte(cm.Data[searchStateKey]), run); err != nil {
		return nil, err
	}
	if len(run.Searches) != len(p.Searches) || run.Collected < -1 {
		return nil, fmt.Errorf("%s holds %d searches after round %d, the plan has %d", searchStateKey, len(run.Searches), run.Collected, len(p.Searches))
	}
	for i := range run.Searches {
		if run.Searches[i].Search.Name != p.Searches[i].Name || len(run.Searches[i].Steps) > int(p.Searches[i].Target.MaxSteps) {
			return nil, fmt.Errorf("%s: search %d is %q with %d steps, the plan's is %q with at most %d", searchStateKey, i,
				run.Searches[i].Search.Name, len(run.Searches[i].Steps), p.Searches[i].Name, p.Searches[i].Target.MaxSteps)
		}
		run.Searches[i].Search = p.Searches[i] // what to search is the plan's, not the stored copy's
		run.Searches[i].Result = nil
	}
	if run.Collected >= 0 {
		base, err := results.DecodeStored(cm.Data, cm.BinaryData)
		if err != nil {
			return nil, err
		}
		run.base = base
	}
	return run, nil
}

// storeSearch writes the search after a round, before the next round is
// published: a restarted manager then finds every step it decides from.
func (r *StorageBenchmarkReconciler) storeSearch(ctx context.Context, p *pass, s *snapshot, t *targetRun, run *searchRun) error {
	b := p.bench
	state, err := json.Marshal(run)
	if err != nil {
		return err
	}
	data, binary, err := results.EncodeStored(run.base)
	if err != nil {
		return fmt.Errorf("target %s: storing the search: %w", t.spec.Name, err)
	}
	if data == nil {
		data = map[string]string{}
	}
	data[searchStateKey] = string(state)
	name := searchConfigMapName(b, t.spec)
	cm := s.configMaps[name]
	if cm == nil {
		cm = &corev1.ConfigMap{}
		cm.Name, cm.Namespace, cm.Labels = name, b.Namespace, runLabels(b, t.spec, componentSearch)
		cm.Data, cm.BinaryData = data, binary
		created, err := r.createOwned(ctx, b, cm)
		if err != nil {
			return err
		}
		if !created {
			// A pass before wrote it and the cache does not show it yet.
			if cm, err = r.freshConfigMap(ctx, b, name); err != nil || cm == nil {
				return fmt.Errorf("configmap %s exists and cannot be read: %w", name, err)
			}
		}
	}
	if cm.Data[searchStateKey] != string(state) {
		cm = cm.DeepCopy()
		cm.Data, cm.BinaryData = data, binary
		if err := r.Update(ctx, cm); err != nil {
			// The cache's copy may be older than the last write: the next
			// pass writes again from the version the API server has.
			delete(s.configMaps, name)
			return fmt.Errorf("storing search round %d of target %s in configmap %s: %w", run.Collected, t.spec.Name, name, err)
		}
	}
	s.configMaps[name] = cm
	run.unstored = false
	t.status.Message = fmt.Sprintf("search round %d merged", run.Collected)
	t.status.StartSkewMicroseconds = ptr.To(run.base.StartSkewMicroseconds)
	return nil
}

// freshConfigMap reads one of the benchmark's ConfigMaps from the API
// server; nil when there is none.
func (r *StorageBenchmarkReconciler) freshConfigMap(ctx context.Context, b *sbv1.StorageBenchmark, name string) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: b.Namespace, Name: name}, cm)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading configmap %s: %w", name, err)
	}
	return cm, nil
}
