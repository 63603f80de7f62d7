package admission_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	storagebenchv1alpha1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/admission"
	"github.com/storagebench/storagebench/internal/testenv"
)

// These tests run the generated CRD in a real kube-apiserver, so they check
// the markers and CEL rules exactly as users meet them at admission, and
// check that the local runner's admission (Admit, the same CRD applied
// without a cluster) agrees with the API server case by case.

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env, nil) }

const validBenchmark = `
apiVersion: storagebench.io/v1alpha1
kind: StorageBenchmark
metadata:
  namespace: default
spec:
  targets:
    - name: fast
      storageClassName: fast
      size: 10Gi
    - name: slow
      storageClassName: slow
      size: 10Gi
  baseline: slow
  clients:
    count: 2
  workloads:
    - name: rand
      blockSizes: [4Ki]
      readPercents: [100, 0]
      queueDepths: [16]
  thresholds:
    - workload: rand
      minIOPS: 1000
`

func newBenchmark(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(validBenchmark), &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetName(name)
	return u
}

// set replaces the value at a dotted path such as "spec.targets[0].size";
// a nil value removes the field.
func set(t *testing.T, obj map[string]any, path string, value any) {
	t.Helper()
	parts := strings.Split(path, ".")
	var cur any = obj
	for i, part := range parts {
		name, index := part, -1
		if open := strings.Index(part, "["); open >= 0 {
			name = part[:open]
			n, err := strconv.Atoi(strings.TrimSuffix(part[open+1:], "]"))
			if err != nil {
				t.Fatalf("bad path %q", path)
			}
			index = n
		}
		m := cur.(map[string]any)
		last := i == len(parts)-1
		if index < 0 {
			if last {
				if value == nil {
					delete(m, name)
				} else {
					m[name] = value
				}
				return
			}
			if _, ok := m[name]; !ok {
				m[name] = map[string]any{}
			}
			cur = m[name]
			continue
		}
		list := m[name].([]any)
		if last {
			list[index] = value
			return
		}
		cur = list[index]
	}
}

// addMetadataWorkload appends a Metadata workload "md" (Create, Stat,
// Delete) to spec.workloads, with the given fields set over it (nil
// removes one).
func addMetadataWorkload(obj map[string]any, fields map[string]any) {
	w := map[string]any{"name": "md", "kind": "Metadata", "metadata": map[string]any{"operations": []any{"Create", "Stat", "Delete"}}}
	for k, v := range fields {
		if v == nil {
			delete(w, k)
		} else {
			w[k] = v
		}
	}
	spec := obj["spec"].(map[string]any)
	spec["workloads"] = append(spec["workloads"].([]any), w)
}

func TestAdmissionRejectsInvalidSpecsNamingTheFieldAndCause(t *testing.T) {
	cases := []struct {
		name      string
		mutate    func(t *testing.T, obj map[string]any)
		wantField string
		wantText  string
	}{
		{"no targets", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.targets", []any{})
			set(t, o, "spec.baseline", nil)
		},
			"spec.targets", "should have at least 1 items"},
		{"duplicate target names", func(t *testing.T, o map[string]any) { set(t, o, "spec.targets[1].name", "fast") },
			"spec.targets[1]", "Duplicate value"},
		{"target with storageClassName and existingClaimName", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.targets[0].existingClaimName", "data")
		}, "spec.targets[0]", "a target needs exactly one of storageClassName or existingClaimName"},
		{"target with neither storageClassName nor existingClaimName", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.targets[0].storageClassName", nil)
			set(t, o, "spec.targets[0].size", nil)
		}, "spec.targets[0]", "a target needs exactly one of storageClassName or existingClaimName"},
		{"storage class target without size", func(t *testing.T, o map[string]any) { set(t, o, "spec.targets[0].size", nil) },
			"spec.targets[0].size", "size is required with storageClassName"},
		{"existing claim with a size", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.targets[0].storageClassName", nil)
			set(t, o, "spec.targets[0].existingClaimName", "data")
			set(t, o, "spec.targets[0].accessMode", "ReadWriteMany")
		}, "spec.targets[0].size", "size only applies to storageClassName targets"},
		{"target name not a DNS label", func(t *testing.T, o map[string]any) { set(t, o, "spec.targets[0].name", "Fast_SSD") },
			"spec.targets[0].name", "should match"},
		{"baseline not among targets", func(t *testing.T, o map[string]any) { set(t, o, "spec.baseline", "medium") },
			"spec.baseline", "baseline must name one of spec.targets"},
		{"read percent above 100", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].readPercents", []any{101}) },
			"spec.workloads[0].readPercents[0]", "should be less than or equal to 100"},
		{"read percent below 0", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].readPercents", []any{-5}) },
			"spec.workloads[0].readPercents[0]", "should be greater than or equal to 0"},
		{"block size not a multiple of 512 (4k is 4000 bytes)", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].blockSizes", []any{"4k"})
		}, "spec.workloads[0].blockSizes[0]", "block size 4k must be a multiple of 512 bytes between 512 and 64Mi"},
		{"block size below 512", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].blockSizes", []any{"256"}) },
			"spec.workloads[0].blockSizes[0]", "must be a multiple of 512 bytes between 512 and 64Mi"},
		{"block size above 64Mi", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].blockSizes", []any{"128Mi"}) },
			"spec.workloads[0].blockSizes[0]", "must be a multiple of 512 bytes between 512 and 64Mi"},
		{"block size range with min above max", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].blockSizes", nil)
			set(t, o, "spec.workloads[0].blockSizeRange", map[string]any{"min": "64Ki", "max": "4Ki"})
		}, "spec.workloads[0].blockSizeRange", "blockSizeRange.min must not exceed blockSizeRange.max"},
		{"both block sizes and a range", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].blockSizeRange", map[string]any{"min": "4Ki", "max": "64Ki"})
		}, "spec.workloads[0]", "a workload needs exactly one of blockSizes or blockSizeRange"},
		{"block size range whose alignment does not divide it", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].blockSizes", nil)
			set(t, o, "spec.workloads[0].blockSizeRange", map[string]any{"min": "4Ki", "max": "64Ki", "alignment": "3Ki"})
		}, "spec.workloads[0].blockSizeRange.alignment", "blockSizeRange.alignment 3Ki must divide min (4Ki) and max (64Ki)"},
		{"target size zero", func(t *testing.T, o map[string]any) { set(t, o, "spec.targets[0].size", "0") },
			"spec.targets[0].size", "size 0 must be a positive whole number of bytes"},
		{"negative target size", func(t *testing.T, o map[string]any) { set(t, o, "spec.targets[0].size", "-1Gi") },
			"spec.targets[0].size", "size -1Gi must be a positive whole number of bytes"},
		{"target size in fractions of a byte", func(t *testing.T, o map[string]any) { set(t, o, "spec.targets[0].size", "0.5") },
			"spec.targets[0].size", "size 0.5 must be a positive whole number of bytes"},
		{"target size that is not a quantity", func(t *testing.T, o map[string]any) { set(t, o, "spec.targets[0].size", "ten gigs") },
			"spec.targets[0].size", "should match"},
		{"negative data set size", func(t *testing.T, o map[string]any) { set(t, o, "spec.dataset.sizePerClient", "-1Gi") },
			"spec.dataset.sizePerClient", "size -1Gi must be a positive whole number of bytes"},
		{"data set size that is not a quantity", func(t *testing.T, o map[string]any) { set(t, o, "spec.dataset.sizePerClient", "lots") },
			"spec.dataset.sizePerClient", "size lots must be a positive whole number of bytes"},
		{"negative resource request", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.clients.resources", map[string]any{"requests": map[string]any{"cpu": "-1"}})
		}, "spec.clients.resources.requests.cpu", "cpu -1 must not be negative"},
		{"zero resource limit", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.clients.resources", map[string]any{"limits": map[string]any{"memory": "0"}})
		}, "spec.clients.resources.limits.memory", "memory 0 must be positive"},
		{"request above its limit", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.clients.resources", map[string]any{"limits": map[string]any{"cpu": "1"}, "requests": map[string]any{"cpu": "2"}})
		}, "spec.clients.resources.requests.cpu", "requests.cpu 2 exceeds limits.cpu 1: a request may not exceed its limit"},
		{"resource quantity that is not a quantity", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.clients.resources", map[string]any{"limits": map[string]any{"cpu": "two"}})
		}, "spec.clients.resources.limits.cpu", "should match"},
		{"negative bytes per second threshold", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.thresholds[0].minBytesPerSecond", "-100Mi")
		}, "spec.thresholds[0].minBytesPerSecond", "minBytesPerSecond -100Mi must not be negative"},
		{"threshold matching a read mix the workload does not run", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.thresholds[0].match", map[string]any{"readPercent": 50})
		}, "spec.thresholds", "every thresholds[].match must select at least one cell of its workload"},
		{"colocated clients of targets run one after another", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.clients.colocateTargets", true)
		}, "spec.clients.colocateTargets", "clients.colocateTargets needs targetExecution Parallel"},
		{"threshold matching a block size outside the workload's range", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].blockSizes", nil)
			set(t, o, "spec.workloads[0].blockSizeRange", map[string]any{"min": "4Ki", "max": "64Ki"})
			set(t, o, "spec.thresholds[0].match", map[string]any{"blockSize": "128Ki"})
		}, "spec.thresholds", "every thresholds[].match must select at least one cell of its workload"},
		{"threshold matching a block size the workload does not run", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.thresholds[0].match", map[string]any{"blockSize": "8Ki"})
		}, "spec.thresholds", "every thresholds[].match must select at least one cell of its workload"},
		{"regression threshold on the baseline only", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.thresholds[0].maxRegression", map[string]any{"percent": 10})
			set(t, o, "spec.thresholds[0].targets", []any{"slow"})
		}, "spec.thresholds", "its targets must name a target other than the baseline"},
		{"name that is not a DNS subdomain", func(t *testing.T, o map[string]any) { set(t, o, "metadata.name", "Quick_Start") },
			"metadata.name", "a lowercase RFC 1123 subdomain"},
		{"name longer than 253 characters", func(t *testing.T, o map[string]any) { set(t, o, "metadata.name", strings.Repeat("a", 254)) },
			"metadata.name", "must be no more than 253 characters"},
		{"annotations above 256 KiB", func(t *testing.T, o map[string]any) {
			set(t, o, "metadata.annotations", map[string]any{"example.com/big": strings.Repeat("x", 300<<10)})
		}, "metadata.annotations", "Too long: may not be more than 262144 bytes"},
		{"queue depth 0", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].queueDepths", []any{0}) },
			"spec.workloads[0].queueDepths[0]", "should be greater than or equal to 1"},
		{"queue depth above 4096", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].queueDepths", []any{8192}) },
			"spec.workloads[0].queueDepths[0]", "should be less than or equal to 4096"},
		{"zero clients", func(t *testing.T, o map[string]any) { set(t, o, "spec.clients.count", 0) },
			"spec.clients.count", "should be greater than or equal to 1"},
		{"more clients than the documented maximum", func(t *testing.T, o map[string]any) { set(t, o, "spec.clients.count", 65) },
			"spec.clients.count", "should be less than or equal to 64"},
		{"duration under one second", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].durationSeconds", 0) },
			"spec.workloads[0].durationSeconds", "should be greater than or equal to 1"},
		{"negative ramp", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].rampSeconds", -1) },
			"spec.workloads[0].rampSeconds", "should be greater than or equal to 0"},
		{"matrix above 64 cells", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].blockSizes", []any{"4Ki", "8Ki", "16Ki", "64Ki", "1Mi"})
			set(t, o, "spec.workloads[0].readPercents", []any{0, 25, 50, 75, 100})
			set(t, o, "spec.workloads[0].queueDepths", []any{1, 4, 16})
		}, "spec.workloads", "the workload matrix expands to more than 64 cells"},
		{"existing claim shared by several clients without ReadWriteMany", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.targets[0].storageClassName", nil)
			set(t, o, "spec.targets[0].size", nil)
			set(t, o, "spec.targets[0].existingClaimName", "data")
		}, "spec.targets", "with clients.count > 1 it must set accessMode: ReadWriteMany"},
		{"threshold naming an unknown workload", func(t *testing.T, o map[string]any) { set(t, o, "spec.thresholds[0].workload", "oltp") },
			"spec.thresholds", "every thresholds[].workload must name one of spec.workloads"},
		{"threshold naming an unknown target", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.thresholds[0].targets", []any{"medium"})
		}, "spec.thresholds", "every thresholds[].targets entry must name one of spec.targets"},
		{"threshold without a limit", func(t *testing.T, o map[string]any) { set(t, o, "spec.thresholds[0].minIOPS", nil) },
			"spec.thresholds[0]", "a threshold needs at least one of minIOPS, minOpsPerSecond, minBytesPerSecond, maxLatency, maxRegression or minIOPSAtLatency"},
		{"minIOPSAtLatency beside another limit", func(t *testing.T, o map[string]any) { set(t, o, "spec.thresholds[0].minIOPSAtLatency", 100) },
			"spec.thresholds[0].minIOPSAtLatency", "minIOPSAtLatency judges a search's capacity: a threshold with it has no other limit"},
		{"a search with rateIOPS", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].latencyTarget", map[string]any{"microseconds": 2000})
			set(t, o, "spec.workloads[0].rateIOPS", 100)
		}, "spec.workloads[0].rateIOPS", "a workload with latencyTarget chooses its rates itself: leave rateIOPS out"},
		{"a search with two numJobs values", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].latencyTarget", map[string]any{"microseconds": 2000})
			set(t, o, "spec.workloads[0].numJobs", []any{1, 2})
		}, "spec.workloads[0].numJobs", "a workload with latencyTarget varies one thing: give it one numJobs value"},
		{"a QueueDepth search with depth 1 only", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].latencyTarget", map[string]any{"microseconds": 2000, "vary": "QueueDepth"})
			set(t, o, "spec.workloads[0].queueDepths", []any{1})
		}, "spec.workloads[0].queueDepths", "a QueueDepth search goes from queue depth 1 to the largest of queueDepths: give one above 1"},
		{"an engine the API does not know", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].ioEngine", "spdk") },
			"spec.workloads[0].ioEngine", "Unsupported value"},
		{"psync with a queue depth above 1", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].ioEngine", "Psync")
			set(t, o, "spec.workloads[0].queueDepths", []any{1, 8})
		}, "spec.workloads[0].queueDepths", "ioEngine Psync does one IO at a time per job, as fio's psync: give queueDepths [1]"},
		{"psync with the default queue depth", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].ioEngine", "Psync")
			set(t, o, "spec.workloads[0].queueDepths", nil)
		}, "spec.workloads[0].queueDepths", "ioEngine Psync does one IO at a time per job"},
		{"an engine for a Metadata workload", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, map[string]any{"ioEngine": "Libaio"})
		}, "spec.workloads[1].ioEngine", "a Metadata workload's engines are its operations: leave ioEngine out"},
		{"a search varying something unknown", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].latencyTarget", map[string]any{"microseconds": 2000, "vary": "BlockSize"})
		}, "spec.workloads[0].latencyTarget.vary", "Unsupported value"},
		{"a search bound of zero", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].latencyTarget", map[string]any{"microseconds": 0})
		}, "spec.workloads[0].latencyTarget.microseconds", "should be greater than or equal to 1"},
		{"more than 16 searches", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].latencyTarget", map[string]any{"microseconds": 2000})
			set(t, o, "spec.workloads[0].blockSizes", []any{"4Ki", "8Ki"})
			set(t, o, "spec.workloads[0].readPercents", []any{0, 10, 20, 30, 40, 50, 60, 70, 80})
		}, "spec.workloads", "the workloads with latencyTarget make more than 16 searches"},
		{"a capacity threshold beyond any storage", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.thresholds[0].minIOPS", nil)
			set(t, o, "spec.thresholds[0].minIOPSAtLatency", 1000000000001)
		}, "spec.thresholds[0].minIOPSAtLatency", "should be less than or equal to 1000000000000"},
		{"a search with too many steps", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].latencyTarget", map[string]any{"microseconds": 2000, "maxSteps": 25})
		}, "spec.workloads[0].latencyTarget.maxSteps", "should be less than or equal to 24"},
		{"regression threshold without a baseline", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.baseline", nil)
			set(t, o, "spec.thresholds[0].maxRegression", map[string]any{"percent": 10})
		}, "spec.thresholds", "thresholds with maxRegression against Baseline (the default) compare against spec.baseline, which is not set"},
		{"runs with a regression against the previous run", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.thresholds[0].maxRegression", map[string]any{"percent": 10, "against": "Previous", "runs": 3})
		}, "spec.thresholds[0].maxRegression.runs", "runs is the number of earlier runs against: MedianOfLast takes"},
		{"median of more runs than allowed", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.thresholds[0].maxRegression", map[string]any{"percent": 10, "against": "MedianOfLast", "runs": 21})
		}, "spec.thresholds[0].maxRegression.runs", "should be less than or equal to 20"},
		{"empty workload list", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads", []any{}) },
			"spec.workloads", "should have at least 1 items"},
		{"empty read percents", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].readPercents", []any{}) },
			"spec.workloads[0].readPercents", "should have at least 1 items"},
		{"empty queue depths", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].queueDepths", []any{}) },
			"spec.workloads[0].queueDepths", "should have at least 1 items"},
		{"empty block sizes", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].blockSizes", []any{}) },
			"spec.workloads[0].blockSizes", "should have at least 1 items"},
		{"concurrentWith itself", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].concurrentWith", "rand") },
			"spec.workloads[0].concurrentWith", "concurrentWith must name another workload"},
		{"tiny data set", func(t *testing.T, o map[string]any) { set(t, o, "spec.dataset.sizePerClient", "64Ki") },
			"spec.dataset.sizePerClient", "dataset.sizePerClient 64Ki must be at least 1Mi"},
		{"prices in different currencies", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.targets[0].price", map[string]any{"amount": "10", "currency": "USD"})
			set(t, o, "spec.targets[1].price", map[string]any{"amount": "9", "currency": "EUR"})
		}, "spec.targets", "all target prices must use the same currency and period"},
		{"Metadata without its operations", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, map[string]any{"metadata": nil})
		}, "spec.workloads[1].metadata", "kind: Metadata needs metadata (its operations), and metadata needs kind: Metadata"},
		{"metadata on an IO workload", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].metadata", map[string]any{"operations": []any{"Create"}})
		}, "spec.workloads[0].metadata", "metadata needs kind: Metadata"},
		{"Metadata with block sizes", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, map[string]any{"blockSizes": []any{"4Ki"}})
		}, "spec.workloads[1].kind", "a Metadata workload has no blockSizes, blockSizeRange, readPercents, rateIOPS or concurrentWith"},
		{"IO without read percents", func(t *testing.T, o map[string]any) { set(t, o, "spec.workloads[0].readPercents", nil) },
			"spec.workloads[0].readPercents", "an IO workload needs readPercents"},
		{"an operation twice", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, map[string]any{"metadata": map[string]any{"operations": []any{"Create", "Stat", "Create"}}})
		}, "spec.workloads[1].metadata.operations", "metadata.operations must not name an operation twice"},
		{"an unknown operation", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, map[string]any{"metadata": map[string]any{"operations": []any{"Chmod"}}})
		}, "spec.workloads[1].metadata.operations[0]", "Unsupported value"},
		{"a file too big for one read", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, map[string]any{"metadata": map[string]any{"operations": []any{"Create"}, "fileSize": "128Mi"}})
		}, "spec.workloads[1].metadata.fileSize", "metadata.fileSize 128Mi must be between 0 and 64Mi"},
		{"too many files per job", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, map[string]any{"metadata": map[string]any{"operations": []any{"Create"}, "filesPerJob": 65537}})
		}, "spec.workloads[1].metadata.filesPerJob", "should be less than or equal to 65536"},
		{"minOpsPerSecond on an IO workload", func(t *testing.T, o map[string]any) { set(t, o, "spec.thresholds[0].minOpsPerSecond", 10) },
			"spec.thresholds", "minOpsPerSecond is for the cells of Metadata workloads"},
		{"minIOPS on a Metadata workload", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, nil)
			set(t, o, "spec.thresholds[0].workload", "md")
		}, "spec.thresholds", "minIOPS and minBytesPerSecond are for IO workloads: a Metadata workload's cells take minOpsPerSecond"},
		{"a match on an operation the workload does not run", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, nil)
			set(t, o, "spec.thresholds[0]", map[string]any{"workload": "md", "minOpsPerSecond": 10, "match": map[string]any{"operation": "Rename"}})
		}, "spec.thresholds", "every thresholds[].match must select at least one cell of its workload"},
		{"concurrentWith a Metadata workload", func(t *testing.T, o map[string]any) {
			addMetadataWorkload(o, nil)
			set(t, o, "spec.workloads[0].concurrentWith", "md")
		}, "spec.workloads", "workloads[].concurrentWith must name another IO workload"},
		{"a workload on a target the spec does not have", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.workloads[0].targets", []any{"medium"})
		}, "spec.workloads", "every workloads[].targets entry must name one of spec.targets"},
		{"price that is not a decimal", func(t *testing.T, o map[string]any) {
			set(t, o, "spec.targets[0].price", map[string]any{"amount": "ten", "currency": "USD"})
		}, "spec.targets[0].price.amount", "should match"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := newBenchmark(t, fmt.Sprintf("invalid-%d", i))
			tc.mutate(t, obj.Object)
			err := env.Client.Create(context.Background(), obj)
			if err == nil {
				t.Fatalf("the API server accepted an invalid spec")
			}
			var status *apierrors.StatusError
			if !errors.As(err, &status) || status.ErrStatus.Details == nil {
				t.Fatalf("want a field error, got %v", err)
			}
			for _, cause := range status.ErrStatus.Details.Causes {
				if cause.Field == tc.wantField && strings.Contains(cause.Message, tc.wantText) {
					return
				}
			}
			t.Fatalf("no cause on %s containing %q in:\n%v", tc.wantField, tc.wantText, err)
		})
		t.Run("local/"+tc.name, func(t *testing.T) {
			obj := newBenchmark(t, fmt.Sprintf("invalid-%d", i))
			tc.mutate(t, obj.Object)
			manifest, err := yaml.Marshal(obj.Object)
			if err != nil {
				t.Fatal(err)
			}
			_, err = admission.Admit(manifest)
			if err == nil {
				t.Fatalf("local admission accepted an invalid spec")
			}
			if !strings.Contains(err.Error(), tc.wantField) || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("local admission error lacks %s / %q:\n%v", tc.wantField, tc.wantText, err)
			}
		})
	}
}

// A threshold's match.blockSize selects the cells of a block size range
// that steps through it, in the API server and in local admission alike.
func TestAdmissionAcceptsAMatchInsideABlockSizeRange(t *testing.T) {
	obj := newBenchmark(t, "range-match")
	set(t, obj.Object, "spec.workloads[0].blockSizes", nil)
	set(t, obj.Object, "spec.workloads[0].blockSizeRange", map[string]any{"min": "4Ki", "max": "64Ki", "alignment": "4Ki"})
	set(t, obj.Object, "spec.thresholds[0].match", map[string]any{"blockSize": "16Ki", "readPercent": 0})
	manifest, err := yaml.Marshal(obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admission.Admit(manifest); err != nil {
		t.Fatalf("local admission refused a match inside the range: %v", err)
	}
	if err := env.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("the API server refused a match inside the range: %v", err)
	}
}

func TestAdmissionAppliesDocumentedDefaults(t *testing.T) {
	minimal := &storagebenchv1alpha1.StorageBenchmark{}
	if err := yaml.Unmarshal([]byte(`
metadata: {name: defaults, namespace: default}
spec:
  targets: [{name: only, storageClassName: standard, size: 1Gi}]
  workloads: [{name: w, blockSizes: [4Ki], readPercents: [100]}]
  thresholds: [{workload: w, maxLatency: {microseconds: 1000}}]
`), minimal); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := env.Client.Create(ctx, minimal); err != nil {
		t.Fatal(err)
	}
	got := &storagebenchv1alpha1.StorageBenchmark{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(minimal), got); err != nil {
		t.Fatal(err)
	}
	spec, w, target := got.Spec, got.Spec.Workloads[0], got.Spec.Targets[0]
	checks := map[string][2]any{
		"workloads[0].durationSeconds": {w.DurationSeconds, int32(60)},
		"workloads[0].rampSeconds":     {w.RampSeconds != nil && *w.RampSeconds == 5, true},
		"workloads[0].queueDepths":     {fmt.Sprint(w.QueueDepths), "[32]"},
		"workloads[0].numJobs":         {fmt.Sprint(w.NumJobs), "[1]"},
		"workloads[0].access":          {w.Access, storagebenchv1alpha1.AccessRandom},
		"workloads[0].direct":          {w.Direct != nil && *w.Direct, true},
		"workloads[0].syncWrites":      {w.SyncWrites != nil && !*w.SyncWrites, true},
		"workloads[0].ioEngine":        {w.IOEngine, storagebenchv1alpha1.IOEngineAuto},
		"targets[0].accessMode":        {string(target.AccessMode), "ReadWriteOnce"},
		"targets[0].volumeMode":        {string(target.VolumeMode), "Filesystem"},
		"clients.count":                {spec.Clients.Count, int32(1)},
		"clients.spread":               {spec.Clients.Spread, storagebenchv1alpha1.SpreadPreferred},
		"clients.maxClockOffset":       {spec.Clients.MaxClockOffsetMilliseconds, int32(500)},
		"dataset.sizePerClient":        {spec.Dataset.SizePerClient, "1Gi"},
		"dataset.filesPerClient":       {spec.Dataset.FilesPerClient, int32(1)},
		"dataset.fill":                 {spec.Dataset.Fill, storagebenchv1alpha1.FillIfMissing},
		"dataset.content":              {spec.Dataset.Content, storagebenchv1alpha1.ContentRandom},
		"repetitions":                  {spec.Repetitions, int32(1)},
		"targetExecution":              {spec.TargetExecution, storagebenchv1alpha1.TargetsSequential},
		"cleanup.volumes":              {spec.Cleanup.Volumes, storagebenchv1alpha1.CleanupDelete},
		"cleanup.clientPods":           {spec.Cleanup.ClientPods, storagebenchv1alpha1.CleanupDelete},
		"timeouts.volumeBindSeconds":   {spec.Timeouts.VolumeBindSeconds, int32(600)},
		"timeouts.prepareSeconds":      {spec.Timeouts.PrepareSeconds, int32(3600)},
		"timeouts.collectSeconds":      {spec.Timeouts.CollectSeconds, int32(300)},
		"thresholds[0].severity":       {spec.Thresholds[0].Severity, storagebenchv1alpha1.SeverityFail},
		"thresholds[0].percentile":     {spec.Thresholds[0].MaxLatency.Percentile, storagebenchv1alpha1.PercentileP99},
		// kstatus reads a missing observedGeneration as "current": -1 keeps
		// the object in progress until the controller has written status.
		"status.observedGeneration": {got.Status.ObservedGeneration, int64(-1)},
	}
	for field, c := range checks {
		if fmt.Sprint(c[0]) != fmt.Sprint(c[1]) {
			t.Errorf("%s defaulted to %v, want %v", field, c[0], c[1])
		}
	}

	// The local runner defaults the same spec to exactly the same values.
	manifest, err := yaml.Marshal(minimal)
	if err != nil {
		t.Fatal(err)
	}
	local, err := admission.Admit(append([]byte("apiVersion: storagebench.io/v1alpha1\nkind: StorageBenchmark\n"), manifest...))
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(local.Spec, got.Spec) {
		t.Fatalf("local defaults differ from the API server's:\nlocal  %+v\nserver %+v", local.Spec, got.Spec)
	}
}

// admitSample checks a sample of either kind: it matches the Go types, the
// API server accepts it and validate (the controller's checks) finds
// nothing.
func admitSample(t *testing.T, data []byte, obj client.Object, validate func() field.ErrorList) {
	t.Helper()
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		t.Fatalf("sample does not match the Go types: %v", err)
	}
	obj.SetNamespace("default")
	if err := env.Client.Create(context.Background(), obj); err != nil {
		t.Fatalf("sample rejected: %v", err)
	}
	if errs := validate(); len(errs) > 0 {
		t.Fatalf("sample fails the controller's checks: %v", errs.ToAggregate())
	}
}

func TestAdmissionAcceptsEverySample(t *testing.T) {
	samples, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "config", "samples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var count int
	for _, path := range samples {
		if filepath.Base(path) == "kustomization.yaml" {
			continue
		}
		count++
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "\nkind: StorageBenchmarkSchedule\n") {
				schedule := &storagebenchv1alpha1.StorageBenchmarkSchedule{}
				admitSample(t, data, schedule, schedule.Spec.Validate)
				return
			}
			obj := &storagebenchv1alpha1.StorageBenchmark{}
			admitSample(t, data, obj, obj.Spec.Validate)
			if _, err := admission.Admit(data); err != nil {
				t.Fatalf("local admission refuses the sample: %v", err)
			}
		})
	}
	if count < 6 {
		t.Fatalf("expected the quickstart and one sample per seed (6), found %d", count)
	}
}

// The seed 002 sample translates bonnie++ 1.96's defaults: 8 KiB chunks
// through the page cache for block output, rewrite and input; 3 seeker
// processes reading random 8 KiB blocks with a tenth rewritten; and
// create, stat ("Read") and delete of 16 x 1024 empty files in one
// directory, in name order and then at random.
func TestSeed002TranslatesBonnieDefaults(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "samples", "seed002-gce-pd-size-sweep-bonnie.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := admission.Admit(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range b.Spec.Cells() {
		if m := c.Metadata; m != nil {
			got = append(got, fmt.Sprintf("%s: %s of %d files of %d bytes, %d per directory, random %v, shared %v, %d job(s)",
				c.Workload, m.Operation, m.FilesPerJob, m.FileSizeBytes, m.FilesPerDirectory, m.RandomOrder, m.SharedDirectory, c.NumJobs))
			continue
		}
		got = append(got, fmt.Sprintf("%s: %s %d bytes, %d%% read, qd %d, %d job(s), direct %v", c.Workload, c.Access, c.BlockSizeBytes, c.ReadPercent, c.QueueDepth, c.NumJobs, c.Direct))
	}
	want := []string{
		"seeks: Random 8192 bytes, 90% read, qd 1, 3 job(s), direct false",
		"block-io: Sequential 8192 bytes, 0% read, qd 1, 1 job(s), direct false",
		"block-io: Sequential 8192 bytes, 50% read, qd 1, 1 job(s), direct false",
		"block-io: Sequential 8192 bytes, 100% read, qd 1, 1 job(s), direct false",
	}
	for _, order := range []struct {
		group  string
		random bool
	}{{"files-in-order", false}, {"files-at-random", true}} {
		for _, op := range []string{"Create", "Stat", "Delete"} {
			want = append(want, fmt.Sprintf("%s: %s of 16384 files of 0 bytes, 0 per directory, random %v, shared false, 1 job(s)", order.group, op, order.random))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("seed 002's cells\n  %s\nwant bonnie++'s\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if b.Spec.Dataset.SizePerClient.Bytes() != 4<<30 {
		t.Errorf("bonnie++'s files are twice the VM's memory, 4 GiB: %s", b.Spec.Dataset.SizePerClient)
	}
}
