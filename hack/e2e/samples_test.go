//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// localClasses are the local cluster's storage classes the samples' targets
// are mapped onto, in turn.
var localClasses = []string{"fast", "capped-8000", "capped-1500"}

// scaleDown is the documented override that fits a sample onto the local
// cluster: the matrix, the targets and the thresholds stay as published,
// while everything sized for a cloud shrinks.
//   - targets: storage classes replaced by the local classes in turn
//     (shared, ReadWriteMany targets by the GlusterFS class), volumes 200Mi
//   - clients: at most 2 per target, with a CPU request
//   - data set: 32Mi per client, at most 4 files
//   - cells: 2 s each, no ramp, queue depth at most 16, at most 2 jobs,
//     one repetition
//   - metadata: at most 1000 names per job (a 200Mi ext4 volume has about
//     13 000 inodes)
//   - capacity searches: at most 5 steps
func scaleDown(b *sbv1.StorageBenchmark) {
	for i := range b.Spec.Targets {
		t := &b.Spec.Targets[i]
		if t.StorageClassName != nil {
			t.StorageClassName = ptr.To(localClasses[i%len(localClasses)])
			if t.AccessMode == corev1.ReadWriteMany {
				// Shared volumes in the samples are network file systems
				// (NetApp NFS, Elastifile): the local one is GlusterFS.
				t.StorageClassName = ptr.To(glusterClass)
			}
			t.Size = ptr.To(resource.MustParse("200Mi"))
		}
	}
	b.Spec.Clients.Count = min(max(b.Spec.Clients.Count, 1), 2)
	b.Spec.Clients.Resources = clientResources()
	b.Spec.Dataset.SizePerClient = "32Mi"
	b.Spec.Dataset.FilesPerClient = min(max(b.Spec.Dataset.FilesPerClient, 1), 4)
	b.Spec.Repetitions = 1
	for i := range b.Spec.Workloads {
		w := &b.Spec.Workloads[i]
		w.DurationSeconds, w.RampSeconds = 2, ptr.To[int32](0)
		for k := range w.QueueDepths {
			w.QueueDepths[k] = min(w.QueueDepths[k], 16)
		}
		for k := range w.NumJobs {
			w.NumJobs[k] = min(w.NumJobs[k], 2)
		}
		if w.Metadata != nil {
			w.Metadata.FilesPerJob = min(max(w.Metadata.FilesPerJob, 1), 1000)
		}
		if l := w.LatencyTarget; l != nil && (l.MaxSteps == 0 || l.MaxSteps > 5) {
			l.MaxSteps = 5
		}
	}
}

// TestEverySampleCompletes applies every sample under config/samples/,
// scaled down, side by side, and waits for each to complete (whatever its
// verdict: the thresholds were written for the cloud).
func TestEverySampleCompletes(t *testing.T) {
	files, err := filepath.Glob("../../config/samples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if filepath.Base(file) == "kustomization.yaml" {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "\nkind: StorageBenchmarkSchedule\n") {
				scheduleSampleRuns(t, data)
				return
			}
			b := &sbv1.StorageBenchmark{}
			if err := yaml.UnmarshalStrict(data, b); err != nil {
				t.Fatal(err)
			}
			scaleDown(b)
			b.Namespace = benchNamespace(t, "sample")
			create(t, b)
			got := waitCompleted(t, b.Namespace, b.Name, 15*time.Minute)
			t.Logf("%s: verdict %s, %d cells x %d targets, %d warnings", b.Name, got.Status.Verdict, len(got.Spec.Cells()), len(got.Spec.Targets), len(got.Status.Warnings))
		})
	}
}

// scheduleSampleRuns applies a schedule sample with its template scaled
// down as the benchmark samples are, due every minute instead of at its
// published time (its time zone and deadline stay), and waits for its
// first run to complete and show in the schedule's status.
func scheduleSampleRuns(t *testing.T, data []byte) {
	t.Helper()
	s := &sbv1.StorageBenchmarkSchedule{}
	if err := yaml.UnmarshalStrict(data, s); err != nil {
		t.Fatal(err)
	}
	b := &sbv1.StorageBenchmark{Spec: s.Spec.Template.Spec}
	scaleDown(b)
	s.Spec.Template.Spec = b.Spec
	s.Spec.Schedule = "* * * * *"
	s.Namespace = benchNamespace(t, "sample")
	if err := k8s.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	var st sbv1.StorageBenchmarkScheduleStatus
	waitFor(t, 5*time.Minute, s.Name+"'s first run", func() error {
		st = getSchedule(t, s.Namespace, s.Name).Status
		if len(st.Runs) == 0 || st.Runs[len(st.Runs)-1].Verdict == "" {
			return fmt.Errorf("status %+v", st)
		}
		return nil
	})
	suspend(t, s.Namespace, s.Name, true)
	first := st.Runs[len(st.Runs)-1]
	if run := get(t, s.Namespace, first.Name); run.Status.Verdict == "" {
		t.Fatalf("run %s completed without results: %s", first.Name, describeConditions(run))
	}
	t.Logf("%s: first run %s for %s, verdict %s, targets %+v", s.Name, first.Name, first.ScheduledTime.UTC().Format(time.RFC3339), first.Verdict, first.Targets)
}
