package controllers

import (
	"context"
	"fmt"
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
func (r *StorageBenchmarkReconciler) publishStart(ctx context.Context, p *pass, s *snapshot, t *targetRun) (targetStep, error) {
	b := p.bench
	var record plan.StartRecord
	lead, ok, err := r.publishRecord(ctx, p, s, t, t.spec.Name, "the start", func(now time.Time, lead time.Duration) string {
		record = plan.StartRecord{Generation: b.Generation, Start: now.Add(lead), PublishedAt: now}
		return record.Encode()
	})
	switch {
	case err != nil:
		return targetStep{}, err
	case !ok:
		return targetStep{wait: shortRequeue}, nil
	}
	now := record.PublishedAt
	// A status without the provisioning start (written by hand, or by an
	// older controller) has no readiness time to give, and must not panic.
	after := ""
	if t.status.ProvisioningStartTime != nil {
		ready := p.sinceProvisioningStart(t, now).Milliseconds()
		t.status.ClientsReadyMilliseconds = &ready
		after = fmt.Sprintf(" after %d ms", ready)
	}
	t.status.StartLeadMilliseconds = ptr.To(lead.Milliseconds())
	setMeasuring(t.status, record.Start)
	p.normal(sbv1.EventMeasurementScheduled, sbv1.ActionStart, fmt.Sprintf("target %s: all %d clients ready%s; measurement starts at %s and takes %s",
		t.spec.Name, b.Spec.Clients.Count, after, record.Start.UTC().Format("15:04:05.000"), t.plan.Duration()))
	return targetStep{wait: lead + min(t.plan.Duration(), progressInterval)}, nil
}

// publishRecord writes a record (what, in errors) for a target's clients under key of the
// start ConfigMap, with a lead ahead of now that follows the API server's
// latency (render makes the value from the time and the lead). The update
// carries the ConfigMap's resourceVersion: if anything published meanwhile,
// it fails (ok false) and the next pass reads what was published, so that
// clients never see two different records.
func (r *StorageBenchmarkReconciler) publishRecord(ctx context.Context, p *pass, s *snapshot, t *targetRun, key, what string, render func(now time.Time, lead time.Duration) string) (time.Duration, bool, error) {
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
	updated.Data[key] = render(now, lead)
	if err := r.Update(ctx, updated); err != nil {
		if apierrors.IsConflict(err) {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("publishing %s of target %s: %w", what, t.spec.Name, err)
	}
	s.configMaps[updated.Name] = updated
	return lead, true, nil
}
