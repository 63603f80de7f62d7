package controllers_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// dailySchedule runs a one-target, one-cell benchmark every 24 hours and
// fails a run whose IOPS fell more than 10 % below the previous run's.
func dailySchedule(ns, name string, clients int32) *sbv1.StorageBenchmarkSchedule {
	return &sbv1.StorageBenchmarkSchedule{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: sbv1.StorageBenchmarkScheduleSpec{
			Schedule:                   "@every 24h",
			SuccessfulRunsHistoryLimit: ptr.To[int32](1),
			FailedRunsHistoryLimit:     ptr.To[int32](1),
			Template: sbv1.StorageBenchmarkTemplate{
				Metadata: sbv1.TemplateMetadata{Labels: map[string]string{"team": "storage"}},
				Spec: sbv1.StorageBenchmarkSpec{
					Targets:   []sbv1.Target{{Name: "fast", StorageClassName: ptr.To("fast"), Size: ptr.To(mustQuantity("1Gi")), AccessMode: "ReadWriteMany"}},
					Clients:   sbv1.Clients{Count: clients},
					Dataset:   sbv1.Dataset{SizePerClient: "64Mi"},
					Workloads: []sbv1.WorkloadGroup{{Name: "w", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100}, QueueDepths: []int32{8}, DurationSeconds: 1}},
					Thresholds: []sbv1.Threshold{{Name: "drift", Workload: "w",
						MaxRegression: &sbv1.Regression{Against: sbv1.AgainstPrevious, Metric: sbv1.RegressionIOPS, Percent: 10}}},
				},
			},
		},
	}
}

func getSchedule(t *testing.T, ns, name string) *sbv1.StorageBenchmarkSchedule {
	t.Helper()
	s := &sbv1.StorageBenchmarkSchedule{}
	if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// pokeSchedule makes the controller look at the schedule now: its wake-up
// at the next scheduled time is in real time, the test's clock is fake.
func pokeSchedule(t *testing.T, ns, name string) {
	t.Helper()
	s := getSchedule(t, ns, name)
	patch := client.MergeFrom(s.DeepCopy())
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Annotations["test/poke"] = testClock.Now().String()
	if err := k8sClient.Patch(context.Background(), s, patch); err != nil {
		t.Fatal(err)
	}
}

func scheduleRuns(t *testing.T, ns, name string) []sbv1.StorageBenchmark {
	t.Helper()
	var list sbv1.StorageBenchmarkList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels{"storagebench.io/schedule": name}); err != nil {
		t.Fatal(err)
	}
	var out []sbv1.StorageBenchmark
	for _, b := range list.Items {
		if b.DeletionTimestamp.IsZero() {
			out = append(out, b)
		}
	}
	return out
}

// stepToNextRun moves the test clock to just past the schedule's next
// time and waits for the run of that time.
func stepToNextRun(t *testing.T, ns, name string) string {
	t.Helper()
	var next time.Time
	eventually(t, 10*time.Second, "nextScheduleTime", func() error {
		s := getSchedule(t, ns, name)
		if s.Status.NextScheduleTime == nil {
			return fmt.Errorf("no nextScheduleTime: %+v", s.Status)
		}
		next = s.Status.NextScheduleTime.Time
		return nil
	})
	if d := next.Add(time.Second).Sub(testClock.Now()); d > 0 {
		testClock.Step(d)
	}
	pokeSchedule(t, ns, name)
	run := fmt.Sprintf("%s-%d", name, next.Unix()/60)
	eventually(t, 10*time.Second, "run "+run, func() error {
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: run}, &sbv1.StorageBenchmark{}); err != nil {
			return fmt.Errorf("%w (fake now %s, status %+v, runs %d)", err, testClock.Now(), getSchedule(t, ns, name).Status, len(scheduleRuns(t, ns, name)))
		}
		return nil
	})
	return run
}

// clockAtWallTime sets the test clock to the wall clock, which stamps the
// schedule's creation (earlier tests stepped it ahead), and steps it back
// ahead afterwards so that it never goes back for later tests.
func clockAtWallTime(t *testing.T) {
	ahead := testClock.Now()
	testClock.SetTime(time.Now())
	t.Cleanup(func() {
		if ahead.After(testClock.Now()) {
			testClock.SetTime(ahead)
		}
	})
}

func TestScheduleRunsOnTimeKeepsItsHistoryAndReportsDrift(t *testing.T) {
	clockAtWallTime(t)
	ns := newNamespace(t)
	ensureStorageClass(t, "fast")
	s := dailySchedule(ns, "nightly", 2)
	if err := k8sClient.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if runs := scheduleRuns(t, ns, "nightly"); len(runs) != 0 {
		t.Fatalf("%d runs before the first scheduled time", len(runs))
	}
	recordFixture(t, ns, "nightly", "waiting.yaml")
	first := stepToNextRun(t, ns, "nightly")
	created := getSchedule(t, ns, "nightly")
	if due := created.CreationTimestamp.Add(24 * time.Hour); first != fmt.Sprintf("nightly-%d", due.Unix()/60) {
		t.Fatalf("first run %s, want the one due 24h after the schedule's creation (%s)", first, due)
	}
	b := getBenchmark(t, ns, first)
	if owner := metav1.GetControllerOf(b); owner == nil || owner.Kind != "StorageBenchmarkSchedule" || owner.Name != "nightly" || b.Labels["team"] != "storage" {
		t.Fatalf("run %s: owner %+v, labels %v", first, owner, b.Labels)
	}

	eventually(t, 10*time.Second, "run 1 active", func() error {
		if st := getSchedule(t, ns, "nightly").Status; st.Active != first {
			return fmt.Errorf("active %q", st.Active)
		}
		return nil
	})
	recordFixture(t, ns, "nightly", "running.yaml")

	// Run 1 (2 clients) has no past: the drift threshold warns NoHistory.
	runTarget(t, ns, first, "fast", 1) // ReadWriteMany: one Indexed Job of 2 pods
	got := waitForCompleted(t, ns, first)
	if got.Status.Verdict != sbv1.VerdictPassed || !hasWarning(got, "NoHistory") {
		t.Fatalf("run 1: verdict %s, warnings %+v", got.Status.Verdict, got.Status.Warnings)
	}
	eventually(t, 10*time.Second, "run 1 in the schedule's status", func() error {
		st := getSchedule(t, ns, "nightly").Status
		if st.LastVerdict != sbv1.VerdictPassed || len(st.Runs) != 1 || st.Runs[0].Verdict != sbv1.VerdictPassed ||
			len(st.Runs[0].Targets) != 1 || st.Runs[0].Targets[0].GeomeanIOPS == "" || !meta.IsStatusConditionFalse(st.Conditions, sbv1.ConditionDrifted) {
			return fmt.Errorf("status %+v", st)
		}
		return nil
	})

	// A manager restart creates no second run for the same time.
	stopManager()
	if err := startManager(); err != nil {
		t.Fatal(err)
	}
	pokeSchedule(t, ns, "nightly")
	time.Sleep(2 * time.Second)
	if runs := scheduleRuns(t, ns, "nightly"); len(runs) != 1 {
		t.Fatalf("after a restart: %d runs, want 1", len(runs))
	}

	// Run 1 is made twice as fast as it measured: run 2, measuring the
	// same, has half its IOPS.
	inflateResults(t, getBenchmark(t, ns, first), 2)
	second := stepToNextRun(t, ns, "nightly")
	runTarget(t, ns, second, "fast", 1)
	got = waitForCompleted(t, ns, second)
	if got.Status.Verdict != sbv1.VerdictFailed || len(got.Status.Violations) != 1 || got.Status.Violations[0].Metric != "iopsRegressionPercent" {
		t.Fatalf("run 2: verdict %s, violations %+v", got.Status.Verdict, got.Status.Violations)
	}
	v := got.Status.Violations[0]
	eventually(t, 10*time.Second, "Drifted", func() error {
		st := getSchedule(t, ns, "nightly").Status
		c := meta.FindStatusCondition(st.Conditions, sbv1.ConditionDrifted)
		if c == nil || c.Status != metav1.ConditionTrue || st.LastVerdict != sbv1.VerdictFailed ||
			!meta.IsStatusConditionTrue(st.Conditions, sbv1.ConditionStalled) {
			return fmt.Errorf("status %+v", st)
		}
		for _, want := range []string{"target fast", "cell w-bs4k-r100-qd8-j1", "iopsRegressionPercent", "then " + v.ReferenceValue, "now " + v.Value} {
			if !strings.Contains(c.Message, want) {
				return fmt.Errorf("Drifted message %q lacks %q", c.Message, want)
			}
		}
		return nil
	})
	t.Logf("run 2 drifted: %s %s%% (then %s, now %s)", v.Metric, v.Measured, v.ReferenceValue, v.Value)
	recordFixture(t, ns, "nightly", "drifted.yaml")

	// Run 3 matches run 2 and passes; the history keeps one successful
	// run, so run 1 goes, and one failed run, so run 2 stays.
	third := stepToNextRun(t, ns, "nightly")
	runTarget(t, ns, third, "fast", 1)
	if got := waitForCompleted(t, ns, third); got.Status.Verdict != sbv1.VerdictPassed {
		t.Fatalf("run 3: verdict %s, violations %+v", got.Status.Verdict, got.Status.Violations)
	}
	eventually(t, 10*time.Second, "history trimmed", func() error {
		var names []string
		for _, r := range scheduleRuns(t, ns, "nightly") {
			names = append(names, r.Name)
		}
		st := getSchedule(t, ns, "nightly").Status
		if strings.Join(names, ",") != second+","+third || len(st.Runs) != 2 || st.Runs[0].Name != third ||
			!meta.IsStatusConditionFalse(st.Conditions, sbv1.ConditionDrifted) || st.LastVerdict != sbv1.VerdictPassed {
			return fmt.Errorf("runs %v, status %+v", names, st)
		}
		return nil
	})
	recordFixture(t, ns, "nightly", "passed.yaml")
}

func TestAnInvalidScheduleStallsNamingTheField(t *testing.T) {
	ns := newNamespace(t)
	s := dailySchedule(ns, "bad", 1)
	s.Spec.Schedule = "every night"
	if err := k8sClient.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "Stalled", func() error {
		st := getSchedule(t, ns, "bad").Status
		c := meta.FindStatusCondition(st.Conditions, sbv1.ConditionStalled)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != sbv1.ReasonInvalidSpec ||
			!strings.Contains(c.Message, "spec.schedule") || !strings.Contains(c.Message, "every night") {
			return fmt.Errorf("status %+v", st)
		}
		return nil
	})
	if runs := scheduleRuns(t, ns, "bad"); len(runs) != 0 {
		t.Fatalf("an invalid schedule created %d runs", len(runs))
	}
	recordFixture(t, ns, "bad", "invalid.yaml")
}

// recordFixture writes the schedule as the API server serves it into
// $STORAGEBENCH_RECORD_GITOPS (unset: nothing), for config/gitops's health
// check tests: `STORAGEBENCH_RECORD_GITOPS=$PWD/config/gitops/testdata/schedules make test`.
func recordFixture(t *testing.T, ns, name, file string) {
	t.Helper()
	dir := os.Getenv("STORAGEBENCH_RECORD_GITOPS")
	if dir == "" {
		return
	}
	s := getSchedule(t, ns, name)
	s.ManagedFields = nil
	data, err := yaml.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// inflateResults multiplies a finished run's stored rates by factor, as if
// it had measured faster storage.
func inflateResults(t *testing.T, b *sbv1.StorageBenchmark, factor float64) {
	t.Helper()
	for _, ts := range b.Status.Targets {
		cm := &corev1.ConfigMap{}
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: b.Namespace, Name: ts.ResultsConfigMap}, cm); err != nil {
			t.Fatal(err)
		}
		tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tr.Cells {
			for j := range tr.Cells[i].Repetitions {
				rep := &tr.Cells[i].Repetitions[j]
				for _, d := range []*results.DirectionStats{rep.Read, rep.Write} {
					if d != nil {
						d.IOPS, d.BytesPerSecond = d.IOPS*factor, d.BytesPerSecond*factor
					}
				}
			}
		}
		if cm.Data, cm.BinaryData, err = results.EncodeStored(tr); err != nil {
			t.Fatal(err)
		}
		if err := k8sClient.Update(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
}

func hasWarning(b *sbv1.StorageBenchmark, reason string) bool {
	for _, w := range b.Status.Warnings {
		if w.Reason == reason {
			return true
		}
	}
	return false
}
