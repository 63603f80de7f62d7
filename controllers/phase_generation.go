package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// startGeneration resets status for a new spec generation: a spec change is
// a new run, and the old run's results no longer describe the spec.
func (r *StorageBenchmarkReconciler) startGeneration(p *pass) {
	b := p.bench
	now := metav1.NewTime(p.now)
	b.Status = sbv1.StorageBenchmarkStatus{
		ObservedGeneration: b.Generation,
		Conditions:         b.Status.Conditions,
		StartTime:          &now,
	}
	var names []string
	for _, t := range b.Spec.Targets {
		b.Status.Targets = append(b.Status.Targets, sbv1.TargetStatus{Name: t.Name, State: sbv1.TargetPending})
		names = append(names, t.Name)
	}
	b.Status.TargetNames = strings.Join(names, ",")
	p.conditions().running(sbv1.ReasonRunStarted, fmt.Sprintf("run for generation %d started", b.Generation))
	p.normal(sbv1.ReasonRunStarted, sbv1.ActionStart, fmt.Sprintf("starting the run for generation %d", b.Generation))
}

// removeStaleRuns cancels what an older generation left running and drops
// claims the spec no longer asks for. Claims of unchanged targets stay, so
// a data set laid out before (fill IfMissing) can be reused.
func (r *StorageBenchmarkReconciler) removeStaleRuns(ctx context.Context, b *sbv1.StorageBenchmark, s *snapshot) error {
	current := generationLabel(b.Generation)
	for _, j := range s.jobs {
		if j.Labels[labelGeneration] != current && j.DeletionTimestamp == nil {
			if err := r.deleteChild(ctx, j); err != nil {
				return err
			}
			delete(s.jobs, j.Name)
		}
	}
	for _, cm := range s.configMaps {
		if gen, ok := cm.Labels[labelGeneration]; ok && gen != current && cm.DeletionTimestamp == nil {
			if err := r.deleteChild(ctx, cm); err != nil {
				return err
			}
			delete(s.configMaps, cm.Name)
		}
	}
	wanted := map[string]bool{}
	for i := range b.Spec.Targets {
		for _, name := range ownedClaimNames(b, &b.Spec.Targets[i]) {
			wanted[name] = true
		}
	}
	for name, c := range s.claims {
		if !wanted[name] && c.DeletionTimestamp == nil {
			if err := r.deleteChild(ctx, c); err != nil {
				return err
			}
			delete(s.claims, name)
		}
	}
	return nil
}

// ensureRunObjects creates what every target's clients need: their
// identity, the plans, and the (still empty) start ConfigMap.
func (r *StorageBenchmarkReconciler) ensureRunObjects(ctx context.Context, b *sbv1.StorageBenchmark, s *snapshot) error {
	sa, role, binding := buildClientAccess(b)
	for _, a := range []struct {
		kind string
		obj  client.Object
	}{{"ServiceAccount", sa}, {"Role", role}, {"RoleBinding", binding}} {
		obj := a.obj
		if s.access[a.kind+"/"+obj.GetName()] {
			continue
		}
		if _, err := r.createOwned(ctx, b, obj); err != nil {
			return err
		}
	}
	if s.configMaps[planConfigMapName(b)] == nil {
		plans := map[string]string{}
		for i := range b.Spec.Targets {
			t := &b.Spec.Targets[i]
			data, err := json.Marshal(targetPlan(b, t))
			if err != nil {
				return err
			}
			plans[planKey(t)] = string(data)
		}
		if _, err := r.createOwned(ctx, b, buildPlanConfigMap(b, plans)); err != nil {
			return err
		}
	}
	if s.configMaps[startConfigMapName(b)] == nil {
		start := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: startConfigMapName(b), Namespace: b.Namespace, Labels: benchmarkLabels(b, componentStart),
		}}
		if _, err := r.createOwned(ctx, b, start); err != nil {
			return err
		}
	}
	return nil
}
