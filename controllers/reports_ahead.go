package controllers

import (
	"context"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// Reports read ahead: while a target's clients hand over their results,
// the reports of those that have exited are read and kept, by pod UID,
// for the target's merge. The pass that sees the last client leave then
// reads its log and a few others rather than every log of the target (64
// logs of hundreds of KB each at the most), and the merge starts sooner:
// for the last target that is the time to Completed. Each log is still
// read once. Only with targets one after another, where one target at a
// time hands over, so that what is kept is at most one target's reports.

// keptReports are reports read ahead, by client pod.
type keptReports = map[types.UID]*results.ClientReport

// readAhead reads the reports of the target's exited clients that are
// not kept yet and keeps those that read cleanly. Anything else (a log not
// fetched, a report with an error) is left for the merge, which reads it
// again and says what is wrong.
func (r *StorageBenchmarkReconciler) readAhead(ctx context.Context, p *pass, pods []*corev1.Pod) {
	if p.bench.Spec.TargetExecution == sbv1.TargetsParallel {
		return
	}
	var toRead []*corev1.Pod
	for _, pod := range pods {
		if clientFinished(pod) && p.reportsRead[pod.UID] == nil {
			toRead = append(toRead, pod)
		}
	}
	// The readers fill a slice of their own; the map is written once they
	// are done (it is read above, and by the merge, without a lock).
	read := make([]*results.ClientReport, len(toRead))
	var g errgroup.Group
	g.SetLimit(reportReaders)
	for i, pod := range toRead {
		g.Go(func() error {
			if report, err := r.readReport(ctx, pod); err == nil && report.Error == "" {
				read[i] = report
			}
			return nil
		})
	}
	_ = g.Wait() // every Go returns nil: what failed is read again by the merge
	for i, pod := range toRead {
		if read[i] != nil {
			p.reportsRead[pod.UID] = read[i]
		}
	}
}

// reportsInHand adds the reports kept for the target's pods to have (by
// pod name).
func reportsInHand(p *pass, pods []*corev1.Pod, have map[string]*results.ClientReport) map[string]*results.ClientReport {
	for _, pod := range pods {
		report := p.reportsRead[pod.UID]
		if report == nil {
			continue
		}
		if have == nil {
			have = map[string]*results.ClientReport{}
		}
		have[pod.Name] = report
	}
	return have
}

// forgetReports drops the reports kept for the target's pods once its
// results are stored.
func forgetReports(p *pass, pods []*corev1.Pod) {
	for _, pod := range pods {
		delete(p.reportsRead, pod.UID)
	}
}
