//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// setCap changes a running class's IOPS cap (hack/local-cluster.sh set-cap).
func setCap(t *testing.T, class string, iops int64) {
	t.Helper()
	out, err := exec.Command("../local-cluster.sh", "set-cap", class, strconv.FormatInt(iops, 10)).CombinedOutput()
	if err != nil {
		t.Fatalf("set-cap %s %d: %v\n%s", class, iops, err, out)
	}
}

func getSchedule(t *testing.T, ns, name string) *sbv1.StorageBenchmarkSchedule {
	t.Helper()
	s := &sbv1.StorageBenchmarkSchedule{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func suspend(t *testing.T, ns, name string, on bool) {
	t.Helper()
	s := getSchedule(t, ns, name)
	patch := client.MergeFrom(s.DeepCopy())
	s.Spec.Suspend = ptr.To(on)
	if err := k8s.Patch(context.Background(), s, patch); err != nil {
		t.Fatal(err)
	}
}

// nthRun waits until the schedule has created n runs and returns the
// newest one's name.
func nthRun(t *testing.T, ns, name string, n int, timeout time.Duration) string {
	t.Helper()
	var newest string
	waitFor(t, timeout, fmt.Sprintf("run %d of %s", n, name), func() error {
		var list sbv1.StorageBenchmarkList
		if err := k8s.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels{"storagebench.io/schedule": name}); err != nil {
			return err
		}
		if len(list.Items) < n {
			return fmt.Errorf("%d runs", len(list.Items))
		}
		newest = ""
		for _, b := range list.Items {
			if b.Name > newest { // same length: minutes since 1970
				newest = b.Name
			}
		}
		return nil
	})
	return newest
}

// TestAScheduleReportsDriftWhenAClassSlowsDown runs a benchmark every
// minute on a class capped at 1500 IOPS, lowers the cap to 1000 between the
// second and the third run, and wants the third run to fail its drift
// threshold, the schedule to say Drifted naming the cell, the drop to match
// the cap change within 5 %, and the manager's metrics to export that run.
func TestAScheduleReportsDriftWhenAClassSlowsDown(t *testing.T) {
	const class, lowered = "capped-1500", 1000
	before := classCap(t, class)
	ns := benchNamespace(t, "drift")
	t.Cleanup(func() { setCap(t, class, before) })
	const cell = "rand-bs4k-r100-qd16-j1"
	s := &sbv1.StorageBenchmarkSchedule{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "drift"},
		Spec: sbv1.StorageBenchmarkScheduleSpec{
			Schedule:                   "* * * * *",
			SuccessfulRunsHistoryLimit: ptr.To[int32](3),
			FailedRunsHistoryLimit:     ptr.To[int32](3),
			Template: sbv1.StorageBenchmarkTemplate{Spec: sbv1.StorageBenchmarkSpec{
				Targets: []sbv1.Target{target("capped", class)},
				Clients: sbv1.Clients{Count: 1, Resources: clientResources()},
				Dataset: sbv1.Dataset{SizePerClient: "64Mi"},
				Workloads: []sbv1.WorkloadGroup{{
					Name: "rand", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100},
					QueueDepths: []int32{16}, DurationSeconds: 10, RampSeconds: ptr.To[int32](2),
				}},
				Thresholds: []sbv1.Threshold{{Name: "iops-drift", Workload: "rand",
					MaxRegression: &sbv1.Regression{Against: sbv1.AgainstPrevious, Metric: sbv1.RegressionIOPS, Percent: 20}}},
			}},
		},
	}
	if err := k8s.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}

	first := nthRun(t, ns, "drift", 1, 2*time.Minute)
	run1 := waitCompleted(t, ns, first, 3*time.Minute)
	second := nthRun(t, ns, "drift", 2, 2*time.Minute)
	// No third run until the cap is lowered: it must measure the new cap
	// from its first IO.
	suspend(t, ns, "drift", true)
	run2 := waitCompleted(t, ns, second, 3*time.Minute)
	for _, r := range []*sbv1.StorageBenchmark{run1, run2} {
		if r.Status.Verdict != sbv1.VerdictPassed {
			t.Fatalf("%s: verdict %s at an unchanged cap: %s", r.Name, r.Status.Verdict, describeConditions(r))
		}
	}
	setCap(t, class, lowered)
	suspend(t, ns, "drift", false)
	third := nthRun(t, ns, "drift", 3, 2*time.Minute)
	run3 := waitCompleted(t, ns, third, 3*time.Minute)

	then, now := iops(t, cellSummary(t, run2, "capped", cell)), iops(t, cellSummary(t, run3, "capped", cell))
	ratio, want := now/then, float64(lowered)/float64(before)
	t.Logf("run 1 %s: %.0f IOPS; run 2 %s: %.0f IOPS (cap %d); run 3 %s: %.0f IOPS (cap %d); now/then %.3f, caps %.3f (%+.1f%%)",
		first, iops(t, cellSummary(t, run1, "capped", cell)), second, then, before, third, now, lowered, ratio, want, (ratio/want-1)*100)
	if math.Abs(ratio/want-1) > capTolerance {
		t.Errorf("the measured drop (now/then %.3f) is not within %.0f%% of the cap change (%.3f)", ratio, capTolerance*100, want)
	}
	if run3.Status.Verdict != sbv1.VerdictFailed || len(run3.Status.Violations) != 1 {
		t.Fatalf("run 3: verdict %s, violations %+v", run3.Status.Verdict, run3.Status.Violations)
	}
	if v := run3.Status.Violations[0]; v.Threshold != "iops-drift" || v.Target != "capped" || v.Cell != cell {
		t.Errorf("run 3 violation %+v", v)
	}
	waitFor(t, time.Minute, "Drifted", func() error {
		st := getSchedule(t, ns, "drift").Status
		c := meta.FindStatusCondition(st.Conditions, sbv1.ConditionDrifted)
		if c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "target capped, cell "+cell) ||
			!strings.Contains(c.Message, "iopsRegressionPercent") || st.LastVerdict != sbv1.VerdictFailed {
			return fmt.Errorf("status %+v", st)
		}
		t.Logf("Drifted: %s", c.Message)
		return nil
	})

	// The manager exports the schedule's latest run: its read IOPS as run 3
	// measured them, its verdict and the drift (retried: a scrape can
	// precede the schedule's status write).
	run3Results := targetResult(t, run3, "capped")
	keys := map[string]float64{
		fmt.Sprintf(`storagebench_cell_iops{benchmark="drift",cell=%q,direction="read",kind="StorageBenchmarkSchedule",namespace=%q,target="capped",workload="rand"}`, cell, ns): run3Results.Cells[0].Result().Read.IOPS,
		fmt.Sprintf(`storagebench_schedule_drifted{namespace=%q,schedule="drift"}`, ns):                                                                                          1,
		fmt.Sprintf(`storagebench_run_verdict{benchmark="drift",kind="StorageBenchmarkSchedule",namespace=%q,verdict="Failed"}`, ns):                                             1,
	}
	waitFor(t, 30*time.Second, "the manager's metrics of run 3", func() error {
		series := scrapeManager(t)
		for k, v := range keys {
			if got, ok := series[k]; !ok || math.Abs(got-v) > 1e-6*math.Max(1, v) {
				return fmt.Errorf("%s = %v (exported %v), want %v", k, got, ok, v)
			}
		}
		return nil
	})
	suspend(t, ns, "drift", true)
}

// scrapeManager reads the manager pod's metrics endpoint (pods are reachable
// from this host on the cluster's bridge) as name{labels} -> value.
func scrapeManager(t *testing.T) map[string]float64 {
	t.Helper()
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods, client.InNamespace(managerNamespace), client.MatchingLabels{"app.kubernetes.io/component": "manager"}); err != nil {
		t.Fatal(err)
	}
	var ip string
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.Status.PodIP != "" {
			ip = p.Status.PodIP
		}
	}
	if ip == "" {
		t.Fatalf("no running manager pod in %s", managerNamespace)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + ip + ":8080/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || !strings.HasPrefix(line, "storagebench_") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err == nil {
			out[line[:i]] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
