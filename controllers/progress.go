package controllers

import (
	"fmt"
	"strings"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// updateProgress counts the cell runs finished: all of a finished target's,
// and those of a running target whose slot has ended.
func (r *StorageBenchmarkReconciler) updateProgress(p *pass, s *snapshot) {
	p.bench.Status.Progress = progressOf(p.bench, s, p.now, p.plans)
}

func progressOf(b *sbv1.StorageBenchmark, s *snapshot, now time.Time, plans planSource) *sbv1.Progress {
	progress := &sbv1.Progress{}
	var current, searching []string
	for i := range b.Spec.Targets {
		t := &b.Spec.Targets[i]
		pl := plans(t)
		runs := int32(pl.CellRuns())
		progress.CellsTotal += runs
		var st *sbv1.TargetStatus
		for k := range b.Status.Targets {
			if b.Status.Targets[k].Name == t.Name {
				st = &b.Status.Targets[k]
			}
		}
		if st == nil {
			continue
		}
		switch st.State {
		case sbv1.TargetSucceeded:
			progress.CellsDone += runs
		case sbv1.TargetProvisioning, sbv1.TargetPreparing, sbv1.TargetRunning, sbv1.TargetCollecting:
			current = append(current, t.Name)
			if record, ok := startRecord(b, s, t); ok && now.After(record.Start) {
				progress.CellsDone += int32(pl.CellRunsDoneAt(now.Sub(record.Start)))
				if pl.HasRounds() {
					// Steps are decided as the search goes: their count is
					// not known ahead, the round is.
					round := publishedRound(b, s, &targetRun{spec: t, plan: pl}, record)
					searching = append(searching, fmt.Sprint(round.Round))
				}
			}
		}
	}
	progress.CurrentTarget = truncate(strings.Join(current, ","), 256)
	progress.Summary = fmt.Sprintf("%d/%d", progress.CellsDone, progress.CellsTotal)
	if len(searching) > 0 {
		progress.Summary = truncate(progress.Summary+", search round "+strings.Join(searching, ","), 32)
	}
	return progress
}
