package controllers

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// generations keeps, per benchmark generation in progress, what passes
// would otherwise rebuild: its target plans (a plan follows from the spec
// alone, and building one expands the whole matrix, which every pass did
// for every target) and the results of its finished targets (stored in
// their ConfigMaps, which finishRun would otherwise decode again). A
// restarted manager rebuilds them once.
type generations struct {
	mu          sync.Mutex
	byBenchmark map[types.NamespacedName]*generationState
}

type generationState struct {
	uid        types.UID
	generation int64
	plans      map[string]*plan.Plan
	// results are the finished targets' results, by target; a pass reads
	// and adds to it (passes over one benchmark never run at once).
	results map[string]*results.TargetResult
	// provisioningStarts are the targets' precise provisioning starts (see
	// pass.provisioningStarts).
	provisioningStarts map[string]time.Time
	// searches are the targets' search runs as this process last stored
	// them (see searchRun), by target.
	searches map[string]*searchRun
	// reportsRead are client reports read ahead of their target's merge
	// (see readAhead).
	reportsRead keptReports
}

func newGenerations() *generations {
	return &generations{byBenchmark: map[types.NamespacedName]*generationState{}}
}

// of returns the state of b's current generation, new if there is none.
func (c *generations) of(b *sbv1.StorageBenchmark) *generationState {
	key := types.NamespacedName{Namespace: b.Namespace, Name: b.Name}
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.byBenchmark[key]
	if g == nil || g.uid != b.UID || g.generation != b.Generation {
		g = &generationState{uid: b.UID, generation: b.Generation, plans: map[string]*plan.Plan{}, results: map[string]*results.TargetResult{},
			provisioningStarts: map[string]time.Time{}, searches: map[string]*searchRun{}, reportsRead: keptReports{}}
		c.byBenchmark[key] = g
	}
	return g
}

// plan returns the plan of one of b's targets, built once per generation.
// Plans are shared: callers must not change them.
func (c *generations) plan(b *sbv1.StorageBenchmark, t *sbv1.Target) *plan.Plan {
	g := c.of(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	p := g.plans[t.Name]
	if p == nil {
		p = targetPlan(b, t)
		g.plans[t.Name] = p
	}
	return p
}

// forget drops a benchmark that is gone or whose run has ended.
func (c *generations) forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byBenchmark, key)
}

// planSource gives a target's plan; planOf is a source without a cache.
type planSource func(*sbv1.Target) *plan.Plan

func planOf(b *sbv1.StorageBenchmark) planSource {
	return func(t *sbv1.Target) *plan.Plan { return targetPlan(b, t) }
}
