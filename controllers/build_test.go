package controllers

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/podsecurity"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares obj, as YAML, with testdata/name (or rewrites it with
// -update). Builders are pure, so their output is fixed for fixed input.
func golden(t *testing.T, name string, obj any) {
	t.Helper()
	got, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./controllers -run %s -update to create it)", err, t.Name())
	}
	if string(got) != string(want) {
		t.Fatalf("%s differs from the golden file; if the change is intended, run with -update.\n--- got\n%s", name, got)
	}
}

func goldenBenchmark() *sbv1.StorageBenchmark {
	b := &sbv1.StorageBenchmark{}
	b.Name, b.Namespace, b.Generation = "compare", "bench", 3
	b.Spec = sbv1.StorageBenchmarkSpec{
		Targets: []sbv1.Target{
			{Name: "ssd", StorageClassName: ptr.To("pd-ssd"), Size: ptr.To(resource.MustParse("500Gi")), AccessMode: corev1.ReadWriteOnce, VolumeMode: corev1.PersistentVolumeFilesystem},
			{Name: "nfs", StorageClassName: ptr.To("netapp"), Size: ptr.To(resource.MustParse("1Ti")), AccessMode: corev1.ReadWriteMany, VolumeMode: corev1.PersistentVolumeFilesystem},
			{Name: "raw", StorageClassName: ptr.To("local"), Size: ptr.To(resource.MustParse("100Gi")), AccessMode: corev1.ReadWriteOnce, VolumeMode: corev1.PersistentVolumeBlock},
		},
		Clients: sbv1.Clients{
			Count: 2, Spread: sbv1.SpreadRequired, NodeSelector: map[string]string{"pool": "bench"},
			Tolerations:       []corev1.Toleration{{Key: "bench", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			PriorityClassName: "batch-low", MaxClockOffsetMilliseconds: 500,
		},
		Dataset: sbv1.Dataset{SizePerClient: "10Gi", FilesPerClient: 2, Fill: sbv1.FillIfMissing, Content: sbv1.ContentRandom},
		Workloads: []sbv1.WorkloadGroup{{
			Name: "oltp", BlockSizes: []sbv1.BlockSize{"8Ki"}, ReadPercents: []int32{70}, QueueDepths: []int32{16},
			NumJobs: []int32{4}, DurationSeconds: 60, RampSeconds: ptr.To[int32](5), Direct: ptr.To(true),
		}},
		Repetitions: 1,
		Timeouts:    sbv1.Timeouts{VolumeBindSeconds: 600, PrepareSeconds: 3600, CollectSeconds: 300},
	}
	return b
}

var goldenPodConfig = ClientPodConfig{
	Image: "registry.example/storagebench:v0.1.0", ImagePullPolicy: corev1.PullIfNotPresent,
	DefaultResources:   corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
	DefaultTolerations: []corev1.Toleration{{Key: "storage", Operator: corev1.TolerationOpExists}},
}

func TestClaimBuilderGolden(t *testing.T) {
	b := goldenBenchmark()
	golden(t, "claims-rwo.yaml", buildClaims(b, &b.Spec.Targets[0]))
	golden(t, "claims-rwx.yaml", buildClaims(b, &b.Spec.Targets[1]))
	golden(t, "claims-block.yaml", buildClaims(b, &b.Spec.Targets[2]))
	existing := sbv1.Target{Name: "mine", ExistingClaimName: ptr.To("data"), AccessMode: corev1.ReadWriteMany}
	if claims := buildClaims(b, &existing); len(claims) != 0 {
		t.Fatalf("an existing claim target creates no claims, got %d", len(claims))
	}
	if names := claimNames(b, &existing); len(names) != 2 || names[0] != "data" || names[1] != "data" {
		t.Fatalf("every client uses the existing claim: %v", names)
	}
}

func TestClientJobBuilderGolden(t *testing.T) {
	b := goldenBenchmark()
	for _, tc := range []struct {
		target int
		file   string
		jobs   int
	}{{0, "jobs-rwo.yaml", 2}, {1, "jobs-rwx.yaml", 1}, {2, "jobs-block.yaml", 2}} {
		target := &b.Spec.Targets[tc.target]
		p := targetPlan(b, target)
		var built []any
		jobs := clientJobs(b, target)
		if len(jobs) != tc.jobs {
			t.Fatalf("%s: %d jobs, want %d", target.Name, len(jobs), tc.jobs)
		}
		for _, j := range jobs {
			built = append(built, buildClientJob(b, target, p, j, goldenPodConfig))
		}
		golden(t, tc.file, built)
	}
	golden(t, "client-access.yaml", func() []any {
		sa, role, binding := buildClientAccess(b)
		return []any{sa, role, binding}
	}())
}

func TestClientPodsPassTheRestrictedPodSecurityStandard(t *testing.T) {
	b := goldenBenchmark()
	for i := range b.Spec.Targets {
		target := &b.Spec.Targets[i]
		for _, j := range clientJobs(b, target) {
			tmpl := buildClientJob(b, target, targetPlan(b, target), j, goldenPodConfig).Spec.Template
			problems, err := podsecurity.RestrictedViolations(&tmpl.ObjectMeta, &tmpl.Spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) > 0 {
				t.Errorf("%s/%s: %v", target.Name, j.name, problems)
			}
		}
	}
}
