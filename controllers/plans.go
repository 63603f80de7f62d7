package controllers

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// plans keeps each benchmark generation's target plans: a plan follows
// from the spec alone, and building one expands the whole matrix, which
// every pass did for every target (twice) before.
type plans struct {
	mu          sync.Mutex
	byBenchmark map[types.NamespacedName]generationPlans
}

type generationPlans struct {
	uid        types.UID
	generation int64
	byTarget   map[string]*plan.Plan
}

func newPlans() *plans { return &plans{byBenchmark: map[types.NamespacedName]generationPlans{}} }

// of returns the plan of one of b's targets, built once per generation.
// Plans are shared: callers must not change them.
func (c *plans) of(b *sbv1.StorageBenchmark, t *sbv1.Target) *plan.Plan {
	key := types.NamespacedName{Namespace: b.Namespace, Name: b.Name}
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.byBenchmark[key]
	if !ok || g.uid != b.UID || g.generation != b.Generation {
		g = generationPlans{uid: b.UID, generation: b.Generation, byTarget: map[string]*plan.Plan{}}
		c.byBenchmark[key] = g
	}
	p := g.byTarget[t.Name]
	if p == nil {
		p = targetPlan(b, t)
		g.byTarget[t.Name] = p
	}
	return p
}

// forget drops a benchmark that is gone.
func (c *plans) forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byBenchmark, key)
}

// planSource gives a target's plan; planOf is a source without a cache.
type planSource func(*sbv1.Target) *plan.Plan

func planOf(b *sbv1.StorageBenchmark) planSource {
	return func(t *sbv1.Target) *plan.Plan { return targetPlan(b, t) }
}
