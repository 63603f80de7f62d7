package controllers

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// stalled reports whether the current generation's run already ended in
// failure; nothing more happens for it.
func stalled(b *sbv1.StorageBenchmark) bool {
	c := meta.FindStatusCondition(b.Status.Conditions, sbv1.ConditionStalled)
	return c != nil && c.Status == "True" && c.ObservedGeneration == b.Generation
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
