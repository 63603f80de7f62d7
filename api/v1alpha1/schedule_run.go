package v1alpha1

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What a schedule puts on the runs it creates, read by the schedule
// controller, the drift history and the metrics.
const (
	// LabelSchedule holds the name of the schedule that created a run (at
	// most 52 characters, a valid label value).
	LabelSchedule = "storagebench.io/schedule"
	// AnnotationScheduledTime holds the time a run was created for.
	AnnotationScheduledTime = "storagebench.io/scheduled-time"
	// AnnotationTemplateHash identifies the template a run was made from:
	// drift compares only runs of the same template.
	AnnotationTemplateHash = "storagebench.io/template-hash"
)

// ScheduledTime is the time a schedule created the run for (its
// annotation), or its creation time when the annotation is missing or
// unreadable.
func (b *StorageBenchmark) ScheduledTime() time.Time {
	if t, err := time.Parse(time.RFC3339, b.Annotations[AnnotationScheduledTime]); err == nil {
		return t
	}
	return b.CreationTimestamp.Time
}

// RunCompleted reports whether the run for the current generation ended:
// Completed is True for it and status describes it.
func (b *StorageBenchmark) RunCompleted() bool {
	c := meta.FindStatusCondition(b.Status.Conditions, ConditionCompleted)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == b.Generation && b.Status.ObservedGeneration == b.Generation
}
