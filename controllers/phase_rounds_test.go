package controllers

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// sinceLogs is fakeLogs that also reads since a time, recording it.
type sinceLogs struct {
	*fakeLogs
	since []time.Time
}

func (s *sinceLogs) ReadLogSince(ctx context.Context, ns, pod, container string, limit int64, since time.Time) (io.ReadCloser, error) {
	s.mu.Lock()
	s.since = append(s.since, since)
	s.mu.Unlock()
	return s.ReadLog(ctx, ns, pod, container, limit)
}

// roundLog is a client's log holding its report of a round.
func roundLog(t *testing.T, b *sbv1.StorageBenchmark, client, round int32, failure string) string {
	t.Helper()
	r := &results.ClientReport{SchemaVersion: results.ClientReportSchema, Benchmark: b.Name, Generation: b.Generation, Target: "t1",
		Client: client, EngineVersion: "test", Round: round, Error: failure}
	var log strings.Builder
	if err := results.WriteClientReport(&log, r); err != nil {
		t.Fatal(err)
	}
	return log.String()
}

func TestRoundReportsWaitForWhatIsOnItsWayAndFailOnWhatIsWrong(t *testing.T) {
	b := measured()
	var list []*corev1.Pod
	for _, obj := range podsOf(b, "t1", stillMeasuring) {
		list = append(list, obj.(*corev1.Pod))
	}
	first, second := list[0].Name, list[1].Name
	for _, tc := range []struct {
		name    string
		logs    map[string]string
		pending []string
		failure string
		reports int
	}{{
		name:    "both reports of the round are in: merged",
		logs:    map[string]string{first: roundLog(t, b, 0, 2, ""), second: roundLog(t, b, 0, 1, "") + roundLog(t, b, 1, 2, "")},
		reports: 2,
	}, {
		name:    "a client still on the previous round, or half way through writing, is waited for",
		logs:    map[string]string{first: roundLog(t, b, 0, 1, ""), second: roundLog(t, b, 1, 2, "")[:40]},
		pending: []string{first, second},
	}, {
		name:    "a log not there yet is waited for",
		logs:    map[string]string{first: roundLog(t, b, 0, 2, "")},
		pending: []string{second}, reports: 1,
	}, {
		name:    "a client that failed the round fails the run naming its pod",
		logs:    map[string]string{first: roundLog(t, b, 0, 2, ""), second: roundLog(t, b, 1, 2, "round 2, cell x: no space left on device")},
		failure: "pod " + second + " (client 1): round 2, cell x: no space left on device",
	}, {
		name:    "a report of a later round than the one collected is refused",
		logs:    map[string]string{first: roundLog(t, b, 0, 3, ""), second: roundLog(t, b, 1, 2, "")},
		failure: "reported round 3 while round 2 is collected",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &sinceLogs{fakeLogs: &fakeLogs{logs: tc.logs, errs: map[string]error{}}}
			r := &StorageBenchmarkReconciler{Logs: logs}
			p := newPass(b, clocktesting.NewFakeClock(t0))
			since := t0.Add(-6 * time.Second)
			reports, pending, failure := r.roundReports(context.Background(), p, &snapshot{pods: list}, &targetRun{spec: targetOf(b, "t1")}, 2, since)
			switch {
			case tc.failure != "":
				if failure == nil || !strings.Contains(failure.message, tc.failure) {
					t.Fatalf("failure %+v, want %q", failure, tc.failure)
				}
				return
			case failure != nil:
				t.Fatalf("failure %+v", failure)
			}
			if strings.Join(pending, ",") != strings.Join(tc.pending, ",") || len(reports) != tc.reports {
				t.Fatalf("pending %v (want %v), %d reports (want %d)", pending, tc.pending, len(reports), tc.reports)
			}
			for _, at := range logs.since {
				if !at.Equal(since) {
					t.Fatalf("logs read since %s, want %s", at, since)
				}
			}
			if len(logs.since) != len(tc.logs) && len(tc.logs) == 2 {
				t.Fatalf("%d logs read since the round's start, want both", len(logs.since))
			}
		})
	}
}
