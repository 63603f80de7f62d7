package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// startRecord is the target's published start for the current generation.
func startRecord(b *sbv1.StorageBenchmark, s *snapshot, t *sbv1.Target) (plan.StartRecord, bool) {
	cm := s.configMaps[startConfigMapName(b)]
	if cm == nil {
		return plan.StartRecord{}, false
	}
	value, ok := cm.Data[t.Name]
	if !ok {
		return plan.StartRecord{}, false
	}
	record, err := plan.DecodeStartRecord(value)
	if err != nil || record.Generation != b.Generation {
		return plan.StartRecord{}, false
	}
	return record, true
}

// publishStart writes the start instant, a lead ahead, for the target's
// waiting clients. The update carries the ConfigMap's resourceVersion: if
// anything (a previous controller process) published meanwhile, it fails
// and the next pass reads the start already published, so clients never
// see two different starts.
//
// Linked targets (LinksTargets: groups joined across targets, or colocated
// clients) start together: the start waits until every target's clients
// are ready, and one update publishes the same record for all of them.
func (r *StorageBenchmarkReconciler) publishStart(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	keys := []string{t.spec.Name}
	if b.Spec.LinksTargets() {
		if waiting := linkedTargetsNotReady(b, s); len(waiting) > 0 {
			t.status.Message = fmt.Sprintf("all %d clients ready; waiting for the clients of %s, which start together with this target's (linked by concurrentWith or colocateTargets)",
				b.Spec.Clients.Count, strings.Join(waiting, ", "))
			return targetStep{wait: shortRequeue}, nil
		}
		keys = keys[:0]
		for i := range b.Spec.Targets {
			keys = append(keys, b.Spec.Targets[i].Name)
		}
	}
	var record plan.StartRecord
	_, ok, err := r.publishRecord(ctx, p, s, t, keys, "the start", func(now time.Time, lead time.Duration) string {
		record = plan.StartRecord{Generation: b.Generation, Start: now.Add(lead), PublishedAt: now}
		return record.Encode()
	})
	switch {
	case err != nil:
		return targetStep{}, err
	case !ok:
		return targetStep{wait: shortRequeue}, nil
	}
	return noteStart(p, t, record), nil
}

// noteStart records a published start in the target's status, with an
// event: when its clients were all ready and the lead they were given.
func noteStart(p *pass, t *targetRun, record plan.StartRecord) targetStep {
	b := p.bench
	// A status without the provisioning start (written by hand, or by an
	// older controller) has no readiness time to give, and must not panic.
	after := ""
	if t.status.ProvisioningStartTime != nil {
		// Timed already when the start waited for an earlier target
		// (startAfter).
		if t.status.ClientsReadyMilliseconds == nil {
			t.status.ClientsReadyMilliseconds = ptr.To(p.sinceProvisioningStart(t, record.PublishedAt).Milliseconds())
		}
		after = fmt.Sprintf(" after %d ms", *t.status.ClientsReadyMilliseconds)
	}
	lead := record.Start.Sub(record.PublishedAt)
	t.status.StartLeadMilliseconds = ptr.To(lead.Milliseconds())
	setMeasuring(t.status, record.Start)
	p.normal(sbv1.EventMeasurementScheduled, sbv1.ActionStart, fmt.Sprintf("target %s: all %d clients ready%s; measurement starts at %s and takes %s",
		t.spec.Name, b.Spec.Clients.Count, after, record.Start.UTC().Format("15:04:05.000"), t.plan.Duration()))
	return targetStep{wait: lead + min(t.plan.Duration(), progressInterval)}
}

// linkedTargetsNotReady names the targets whose clients are not all ready.
func linkedTargetsNotReady(b *sbv1.StorageBenchmark, s *snapshot) []string {
	var waiting []string
	for i := range b.Spec.Targets {
		pods, ready := s.targetPods(b, &b.Spec.Targets[i]), 0
		for _, pod := range pods {
			if podReady(pod) {
				ready++
			}
		}
		if n := int(b.Spec.Clients.Count); ready != n || len(pods) != n {
			waiting = append(waiting, fmt.Sprintf("target %s (%d of %d ready)", b.Spec.Targets[i].Name, ready, n))
		}
	}
	return waiting
}

// publishRecord writes a record (what, in errors) for a target's clients under keys of the
// start ConfigMap (one update), with a lead ahead of now that follows the API server's
// latency (render makes the value from the time and the lead). The update
// carries the ConfigMap's resourceVersion: if anything published meanwhile,
// it fails (ok false) and the next pass reads what was published, so that
// clients never see two different records.
func (r *StorageBenchmarkReconciler) publishRecord(ctx context.Context, p *pass, s *snapshot, t *targetRun, keys []string, what string, render func(now time.Time, lead time.Duration) string) (time.Duration, bool, error) {
	cm := s.configMaps[startConfigMapName(p.bench)]
	if cm == nil {
		return 0, false, nil
	}
	// The lead follows the API server's latency now: a read of the record's
	// ConfigMap, uncached, is what every waiting client does in a loop.
	sent := p.clock.Now()
	fresh := &corev1.ConfigMap{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(cm), fresh); err != nil {
		return 0, false, fmt.Errorf("reading configmap %s before publishing %s of target %s: %w", cm.Name, what, t.spec.Name, err)
	}
	// A fresh reading, not the pass's time: the pass may have spent a while
	// (merging another target's results) since it began, and the lead is
	// what clients have to see the record in time.
	now := p.clock.Now()
	lead := plan.StartLead(now.Sub(sent), t.plan.MaxClockOffset())
	updated := cm.DeepCopy()
	if updated.Data == nil {
		updated.Data = map[string]string{}
	}
	value := render(now, lead)
	for _, key := range keys {
		updated.Data[key] = value
	}
	if err := r.Update(ctx, updated); err != nil {
		if apierrors.IsConflict(err) {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("publishing %s of target %s: %w", what, t.spec.Name, err)
	}
	s.configMaps[updated.Name] = updated
	return lead, true, nil
}
