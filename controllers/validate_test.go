package controllers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func TestValidate(t *testing.T) {
	invalid := []string{"Stalled=True/InvalidSpec", "Completed=True/InvalidSpec", "Ready=False/InvalidSpec"}
	for _, tc := range []struct {
		name   string
		bench  *sbv1.StorageBenchmark
		objs   []client.Object
		faults []fault
		// checkedBefore is a benchmark whose references this process
		// checked before the pass (nil: none).
		checkedBefore *sbv1.StorageBenchmark
		done          bool
		outcome
		conditions []string
		// messageHas are substrings of the Stalled condition's message.
		messageHas []string
		reads      []string
		// checked is whether the generation counts as checked afterwards.
		checked bool
	}{{
		name:    "a valid spec whose class exists is remembered and the pass goes on",
		bench:   newBenchmark(),
		objs:    one(storageClass("fast")),
		reads:   []string{"get StorageClass/fast"},
		checked: true, conditions: running,
	}, {
		name:          "a generation already checked is not read again",
		bench:         newBenchmark(),
		checkedBefore: newBenchmark(),
		checked:       true, conditions: running,
	}, {
		name:          "a new generation of a checked benchmark is checked again",
		bench:         newBenchmark(withGeneration(2)),
		objs:          one(storageClass("fast")),
		checkedBefore: newBenchmark(),
		reads:         []string{"get StorageClass/fast"},
		checked:       true, conditions: running,
	}, {
		name:  "a benchmark created again under the same name is checked again",
		bench: newBenchmark(),
		objs:  one(storageClass("fast")),
		checkedBefore: func() *sbv1.StorageBenchmark {
			b := newBenchmark()
			b.UID = "predecessor-uid"
			return b
		}(),
		reads:   []string{"get StorageClass/fast"},
		checked: true, conditions: running,
	}, {
		name:    "two targets on one class read it once",
		bench:   newBenchmark(withTargets(classTarget("a", "fast"), classTarget("b", "fast"))),
		objs:    one(storageClass("fast")),
		reads:   []string{"get StorageClass/fast"},
		checked: true, conditions: running,
	}, {
		name:       "a missing storage class ends the run naming the field",
		bench:      newBenchmark(withTargets(classTarget("a", "fast"), classTarget("b", "gone"))),
		objs:       one(storageClass("fast")),
		done:       true,
		outcome:    outcome{events: []string{"Warning InvalidSpec/Validate"}},
		conditions: invalid,
		messageHas: []string{`spec.targets[1].storageClassName: storage class "gone" not found`},
		reads:      []string{"get StorageClass/fast", "get StorageClass/gone"},
	}, {
		name:       "a transient error reading a storage class is returned, not turned into an event",
		bench:      newBenchmark(),
		faults:     []fault{failing("get", "StorageClass", "fast", errInternal)},
		done:       true,
		outcome:    outcome{err: `reading storage class "fast"`, errIs: apierrors.IsInternalError},
		conditions: running,
		reads:      []string{"get StorageClass/fast"},
	}, {
		name:       "a transient error reading an existing claim is returned, not turned into an event",
		bench:      newBenchmark(withTargets(claimTarget("mine", "data"))),
		faults:     []fault{failing("get", "PersistentVolumeClaim", "data", errTimeout)},
		done:       true,
		outcome:    outcome{err: `reading claim "data"`, errIs: apierrors.IsTimeout},
		conditions: running,
		reads:      []string{"get PersistentVolumeClaim/data"},
	}, {
		name:       "a missing existing claim ends the run naming the claim and its namespace",
		bench:      newBenchmark(withTargets(claimTarget("mine", "data"))),
		done:       true,
		outcome:    outcome{events: []string{"Warning InvalidSpec/Validate"}},
		conditions: invalid,
		messageHas: []string{`spec.targets[0].existingClaimName: claim "data" not found in namespace ns`},
		reads:      []string{"get PersistentVolumeClaim/data"},
	}, {
		name:    "an existing ReadWriteMany claim serves two clients",
		bench:   newBenchmark(withTargets(claimTarget("mine", "data")), withClients(2)),
		objs:    one(userClaim("data", corev1.ReadWriteMany, corev1.PersistentVolumeFilesystem)),
		reads:   []string{"get PersistentVolumeClaim/data"},
		checked: true, conditions: running,
	}, {
		name:       "an existing claim without ReadWriteMany shared by two clients ends the run",
		bench:      newBenchmark(withTargets(claimTarget("mine", "data")), withClients(2)),
		objs:       one(userClaim("data", corev1.ReadWriteOnce, corev1.PersistentVolumeFilesystem)),
		done:       true,
		outcome:    outcome{events: []string{"Warning InvalidSpec/Validate"}},
		conditions: invalid,
		messageHas: []string{`claim "data" is shared by 2 clients but does not allow ReadWriteMany (its access modes: [ReadWriteOnce])`},
		reads:      []string{"get PersistentVolumeClaim/data"},
	}, {
		name: "a Block target on a Filesystem claim ends the run naming both modes",
		bench: newBenchmark(withTargets(func() sbv1.Target {
			t := claimTarget("mine", "data")
			t.VolumeMode = corev1.PersistentVolumeBlock
			return t
		}())),
		objs:       one(userClaim("data", corev1.ReadWriteMany, corev1.PersistentVolumeFilesystem)),
		done:       true,
		outcome:    outcome{events: []string{"Warning InvalidSpec/Validate"}},
		conditions: invalid,
		messageHas: []string{`spec.targets[0].volumeMode: Block, but claim "data" has volume mode Filesystem`},
		reads:      []string{"get PersistentVolumeClaim/data"},
	}, {
		name:       "a spec the matrix rules reject ends the run naming the field",
		bench:      newBenchmark(withSpec(func(s *sbv1.StorageBenchmarkSpec) { s.Dataset.SizePerClient = "1Ki" })),
		objs:       one(storageClass("fast")),
		done:       true,
		outcome:    outcome{events: []string{"Warning InvalidSpec/Validate"}},
		conditions: invalid,
		messageHas: []string{"spec.dataset.sizePerClient", "smaller than one block"},
		reads:      []string{"get StorageClass/fast"},
	}, {
		name:       "spec problems and reference problems are reported in one message",
		bench:      newBenchmark(withSpec(func(s *sbv1.StorageBenchmarkSpec) { s.Dataset.SizePerClient = "1Ki" })),
		done:       true,
		outcome:    outcome{events: []string{"Warning InvalidSpec/Validate"}},
		conditions: invalid,
		messageHas: []string{"spec.dataset.sizePerClient", `; spec.targets[0].storageClassName: storage class "fast" not found`},
		reads:      []string{"get StorageClass/fast"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.bench, tc.objs, tc.faults...)
			if tc.checkedBefore != nil {
				h.r.references.remember(tc.checkedBefore, nil)
			}
			p := h.pass()
			done, err := h.r.validate(context.Background(), p)
			if done != tc.done {
				t.Errorf("done %v, want %v", done, tc.done)
			}
			h.expectErr(err, tc.outcome)
			h.expectEffects(tc.outcome)
			expectConditions(t, tc.bench, tc.conditions...)
			for _, s := range tc.messageHas {
				if msg := conditionMessage(tc.bench, sbv1.ConditionStalled); !strings.Contains(msg, s) {
					t.Errorf("Stalled message %q lacks %q", msg, s)
				}
			}
			if strings.Join(h.reads, ", ") != strings.Join(tc.reads, ", ") {
				t.Errorf("reads %v, want %v", h.reads, tc.reads)
			}
			if got := h.r.references.checked(tc.bench); got != tc.checked {
				t.Errorf("checked afterwards %v, want %v", got, tc.checked)
			}
		})
	}
}

func TestValidateKeepsTheClassesReadForTheFingerprint(t *testing.T) {
	b := newBenchmark()
	h := newHarness(t, b, one(storageClass("fast")))
	if _, err := h.r.validate(context.Background(), h.pass()); err != nil {
		t.Fatal(err)
	}
	class, ok := h.r.references.class(b, "fast")
	if !ok || class.Provisioner != "example.com/fast" {
		t.Fatalf("class remembered: %v %+v", ok, class)
	}
}
