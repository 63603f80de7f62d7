package controllers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestChildNamesAreValidDeterministicAndDistinct(t *testing.T) {
	long := strings.Repeat("benchmark", 20)
	b := &sbv1.StorageBenchmark{}
	b.Name, b.Generation = long, 12
	t1 := &sbv1.Target{Name: strings.Repeat("t", 32), StorageClassName: ptr.To("fast"), Size: ptr.To(resource.MustParse("10Gi"))}
	t2 := &sbv1.Target{Name: strings.Repeat("t", 31) + "u", StorageClassName: ptr.To("fast"), Size: ptr.To(resource.MustParse("10Gi"))}
	names := map[string]string{}
	for what, name := range map[string]string{
		"claim t1 c0": claimName(b, t1, 0), "claim t1 c1": claimName(b, t1, 1), "claim t2 c0": claimName(b, t2, 0),
		"shared t1": sharedClaimName(b, t1), "job t1": jobName(b, t1, -1), "job t1 c3": jobName(b, t1, 3),
		"job t2": jobName(b, t2, -1), "plan": planConfigMapName(b), "start": startConfigMapName(b),
		"results t1": resultsConfigMapName(b, t1), "results t2": resultsConfigMapName(b, t2), "access": clientAccessName(b),
	} {
		if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
			t.Errorf("%s: %q is not a DNS label: %v", what, name, errs)
		}
		if strings.HasPrefix(what, "job") && len(name) > maxJobNameLength {
			t.Errorf("%s: %q longer than %d", what, name, maxJobNameLength)
		}
		if other, dup := names[name]; dup {
			t.Errorf("%s and %s share the name %q", what, other, name)
		}
		names[name] = what
		if again := childName(maxNameLength, name); again != name {
			t.Errorf("%s: name not stable", what)
		}
	}
	if claimName(b, t1, 0) != claimName(b.DeepCopy(), t1.DeepCopy(), 0) {
		t.Errorf("names must be deterministic")
	}
}

func TestClaimNamesChangeWithTheVolumeTheTargetAsksFor(t *testing.T) {
	b := &sbv1.StorageBenchmark{}
	b.Name = "bench"
	a := &sbv1.Target{Name: "t", StorageClassName: ptr.To("fast"), Size: ptr.To(resource.MustParse("10Gi"))}
	bigger := a.DeepCopy()
	bigger.Size = ptr.To(resource.MustParse("20Gi"))
	if claimName(b, a, 0) == claimName(b, bigger, 0) {
		t.Fatalf("a different size must not reuse the old claim")
	}
	if !strings.HasPrefix(claimName(b, a, 0), "bench-t-") {
		t.Fatalf("short names stay readable: %s", claimName(b, a, 0))
	}
}
