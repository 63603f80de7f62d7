package controllers

import (
	"sync"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// references remembers, per benchmark, the generation whose references
// (storage classes, existing claims) were checked and the storage classes
// read then. They are read uncached (the cache holds only the benchmarks'
// own objects, and a cluster-wide watch of classes is not in the RBAC), so
// reading them on every pass would cost one API request per target and
// pass; once per generation is enough: a run is judged against the classes
// it started with, and the fingerprint reuses them. A restarted manager
// checks each running generation once more.
type references struct {
	mu     sync.Mutex
	checks map[types.NamespacedName]checkedReferences
}

type checkedReferences struct {
	uid        types.UID
	generation int64
	classes    map[string]*storagev1.StorageClass
}

func newReferences() *references {
	return &references{checks: map[types.NamespacedName]checkedReferences{}}
}

// checked reports whether the benchmark's current generation was checked.
func (r *references) checked(b *sbv1.StorageBenchmark) bool {
	_, ok := r.lookup(b)
	return ok
}

// class returns a storage class read when the generation was checked.
func (r *references) class(b *sbv1.StorageBenchmark, name string) (*storagev1.StorageClass, bool) {
	c, ok := r.lookup(b)
	if !ok {
		return nil, false
	}
	class, ok := c.classes[name]
	return class, ok
}

func (r *references) lookup(b *sbv1.StorageBenchmark) (checkedReferences, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.checks[types.NamespacedName{Namespace: b.Namespace, Name: b.Name}]
	return c, ok && c.uid == b.UID && c.generation == b.Generation
}

// remember records a checked generation and the classes read for it.
func (r *references) remember(b *sbv1.StorageBenchmark, classes map[string]*storagev1.StorageClass) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks[types.NamespacedName{Namespace: b.Namespace, Name: b.Name}] = checkedReferences{uid: b.UID, generation: b.Generation, classes: classes}
}

// forget drops a benchmark that is gone or being deleted.
func (r *references) forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.checks, key)
}
