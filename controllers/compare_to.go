package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// WarnCompareToUnavailable: spec.compareTo's run could not be read when the
// run finished (deleted, not completed, unreadable); the run's own results
// stand.
const WarnCompareToUnavailable = "CompareToUnavailable"

// otherRun is the run spec.compareTo names, read for the comparison.
type otherRun struct {
	source  string
	targets map[string]*results.TargetResult
}

// readCompareTo reads spec.compareTo's run. What makes it unusable is
// returned as a reason (the run then completes with a warning); only a
// failed read of the API is an error, retried.
func (r *StorageBenchmarkReconciler) readCompareTo(ctx context.Context, b *sbv1.StorageBenchmark) (*otherRun, string, error) {
	c := b.Spec.CompareTo
	switch {
	case c == nil:
		return nil, "", nil
	case c.Benchmark != "":
		other := &sbv1.StorageBenchmark{}
		err := r.Get(ctx, types.NamespacedName{Namespace: b.Namespace, Name: c.Benchmark}, other)
		if apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("spec.compareTo.benchmark: benchmark %q is not in namespace %s", c.Benchmark, b.Namespace), nil
		} else if err != nil {
			return nil, "", fmt.Errorf("reading benchmark %s to compare with: %w", c.Benchmark, err)
		}
		if runOutcomeOf(other) == runActive {
			return nil, fmt.Sprintf("spec.compareTo.benchmark: benchmark %q has not completed its run", c.Benchmark), nil
		}
		run, err := r.earlierRun(ctx, other)
		if err != nil {
			return nil, "", err
		}
		source := fmt.Sprintf("StorageBenchmark %s/%s", b.Namespace, c.Benchmark)
		if other.Status.CompletionTime != nil {
			source += ", completed " + other.Status.CompletionTime.UTC().Format("2006-01-02T15:04:05Z")
		}
		return &otherRun{source: source, targets: run.Targets}, "", nil
	default:
		rr, reason, err := r.compareToConfigMap(ctx, b.Namespace, c)
		if rr == nil {
			return nil, reason, err
		}
		run := results.EarlierRunOf(rr)
		source := fmt.Sprintf("ConfigMap %s/%s key %s (benchmark %s, completed %s)", b.Namespace, c.ConfigMap, c.KeyOrDefault(),
			rr.Benchmark, rr.CompletionTime.UTC().Format("2006-01-02T15:04:05Z"))
		return &otherRun{source: source, targets: run.Targets}, "", nil
	}
}

// compareToConfigMap reads and checks a run's results from a user's
// ConfigMap (uncached: the cache holds only the benchmarks' own). Its
// content is untrusted: DecodeRunResult checks all of it.
func (r *StorageBenchmarkReconciler) compareToConfigMap(ctx context.Context, ns string, c *sbv1.CompareTo) (*results.RunResult, string, error) {
	cm := &corev1.ConfigMap{}
	err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: ns, Name: c.ConfigMap}, cm)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Sprintf("spec.compareTo.configMap: configmap %q is not in namespace %s", c.ConfigMap, ns), nil
	} else if err != nil {
		return nil, "", fmt.Errorf("reading configmap %s to compare with: %w", c.ConfigMap, err)
	}
	key := c.KeyOrDefault()
	data := []byte(cm.Data[key])
	if v, ok := cm.BinaryData[key]; ok {
		data = v
	} else if _, ok := cm.Data[key]; !ok {
		return nil, fmt.Sprintf("spec.compareTo.key: configmap %q has no key %q", c.ConfigMap, key), nil
	}
	rr, err := results.DecodeRunResult("configmap "+c.ConfigMap+" key "+key, data)
	if err != nil {
		return nil, "spec.compareTo: " + err.Error(), nil
	}
	return rr, "", nil
}

// compareToProblems checks spec.compareTo when a run starts, so that a
// misnamed or unreadable run is refused up front, naming the field.
func (r *StorageBenchmarkReconciler) compareToProblems(ctx context.Context, b *sbv1.StorageBenchmark) ([]string, error) {
	c := b.Spec.CompareTo
	switch {
	case c == nil:
		return nil, nil
	case c.Benchmark == b.Name:
		return []string{fmt.Sprintf("spec.compareTo.benchmark: %q is this benchmark: name another one", c.Benchmark)}, nil
	case c.Benchmark != "":
		err := r.Get(ctx, types.NamespacedName{Namespace: b.Namespace, Name: c.Benchmark}, &sbv1.StorageBenchmark{})
		if apierrors.IsNotFound(err) {
			return []string{fmt.Sprintf("spec.compareTo.benchmark: benchmark %q not found in namespace %s", c.Benchmark, b.Namespace)}, nil
		}
		return nil, err
	default:
		_, reason, err := r.compareToConfigMap(ctx, b.Namespace, c)
		if reason != "" {
			return []string{reason}, err
		}
		return nil, err
	}
}
