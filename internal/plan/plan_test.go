package plan

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

func spec() *sbv1.StorageBenchmarkSpec {
	return &sbv1.StorageBenchmarkSpec{
		Repetitions: 2,
		Workloads: []sbv1.WorkloadGroup{
			{Name: "reader", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{100, 50}, DurationSeconds: 10, RampSeconds: ptr.To[int32](5)},
			{Name: "seq", BlockSizes: []sbv1.BlockSize{"1Mi"}, ReadPercents: []int32{100}, DurationSeconds: 20, RampSeconds: ptr.To[int32](0)},
			{Name: "writer", BlockSizes: []sbv1.BlockSize{"4Ki"}, ReadPercents: []int32{0, 10}, DurationSeconds: 12, RampSeconds: ptr.To[int32](5), ConcurrentWith: "reader"},
		},
	}
}

func TestSlotsShareConcurrentCellsAndRepeatTheWholeMatrix(t *testing.T) {
	slots := Slots(spec(), "")
	got := slotNames(slots)
	// reader slots last 17 s (the writer's 5 + 12), the seq slot 20 s, each
	// followed by the 2 s gap; repetition 2 starts after the first pass.
	want := []string{
		"reader-bs4k-r100-qd32-j1+writer-bs4k-r0-qd32-j1@0s",
		"reader-bs4k-r50-qd32-j1+writer-bs4k-r10-qd32-j1@19s",
		"seq-bs1m-r100-qd32-j1@38s",
		"reader-bs4k-r100-qd32-j1+writer-bs4k-r0-qd32-j1@1m0s",
		"reader-bs4k-r50-qd32-j1+writer-bs4k-r10-qd32-j1@1m19s",
		"seq-bs1m-r100-qd32-j1@1m38s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("timetable\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if slots[3].Repetition != 2 || slots[2].Repetition != 1 {
		t.Fatalf("repetition numbers wrong")
	}
}

// slotNames lists a timetable as "cell+cell@offset" lines.
func slotNames(slots []Slot) []string {
	var got []string
	for _, s := range slots {
		var names []string
		for _, c := range s.Cells {
			names = append(names, c.Name)
		}
		got = append(got, strings.Join(names, "+")+"@"+time.Duration(s.OffsetMilliseconds*int64(time.Millisecond)).String())
	}
	return got
}

// Seed 001's combined run: the reader on one target, the writer joined to
// it on another, side by side (Parallel). Both targets keep the whole
// benchmark's offsets, so the joined cells start at the same instant, and
// each runs only its own groups' cells.
func TestLinkedTargetsShareOneTimetable(t *testing.T) {
	s := spec()
	s.Repetitions = 1
	s.TargetExecution = sbv1.TargetsParallel
	s.Targets = []sbv1.Target{{Name: "cached"}, {Name: "nocache"}}
	s.Workloads[0].Targets = []string{"cached"}  // reader
	s.Workloads[1].Targets = []string{"nocache"} // seq
	s.Workloads[2].Targets = []string{"nocache"} // writer, concurrentWith reader
	if !s.LinksTargets() {
		t.Fatal("a writer joined to a reader on another target links the targets")
	}
	for target, want := range map[string][]string{
		"cached":  {"reader-bs4k-r100-qd32-j1@0s", "reader-bs4k-r50-qd32-j1@19s"},
		"nocache": {"writer-bs4k-r0-qd32-j1@0s", "writer-bs4k-r10-qd32-j1@19s", "seq-bs1m-r100-qd32-j1@38s"},
	} {
		if got := slotNames(Slots(s, target)); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: timetable %v, want %v", target, got, want)
		}
	}
	s.TargetExecution = sbv1.TargetsSequential
	if s.LinksTargets() {
		t.Fatal("targets run one after another are never linked")
	}
}

func TestPlanDurationAndProgress(t *testing.T) {
	p := &Plan{Slots: Slots(spec(), "")}
	if got := p.Duration(); got != 118*time.Second {
		t.Fatalf("duration %s, want 1m58s (last slot at 1m38s + 20s)", got)
	}
	if p.CellRuns() != 10 {
		t.Fatalf("cell runs %d, want 10 (5 cells x 2 repetitions)", p.CellRuns())
	}
	for _, tc := range []struct {
		elapsed time.Duration
		done    int
	}{{0, 0}, {16 * time.Second, 0}, {17 * time.Second, 2}, {58 * time.Second, 5}, {118 * time.Second, 10}} {
		if got := p.CellRunsDoneAt(tc.elapsed); got != tc.done {
			t.Errorf("at %s: %d done, want %d", tc.elapsed, got, tc.done)
		}
	}
}

func TestParseRefusesPlansItCannotRun(t *testing.T) {
	for name, tc := range map[string]struct{ json, want string }{
		"not json":      {"{", "reading the plan"},
		"other version": {`{"schemaVersion":"storagebench.io/client-plan/v9"}`, "different versions"},
		"no slots":      {`{"schemaVersion":"` + SchemaVersion + `","target":"t","clients":1,"data":{"path":"/data","sizePerClientBytes":1}}`, "incomplete"},
		"no data path":  {`{"schemaVersion":"` + SchemaVersion + `","target":"t","clients":1,"slots":[{}],"data":{"sizePerClientBytes":1}}`, "incomplete"},
		"no clients":    {`{"schemaVersion":"` + SchemaVersion + `","target":"t","slots":[{}],"data":{"path":"/d","sizePerClientBytes":1}}`, "incomplete"},
	} {
		if _, err := Parse([]byte(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
	}
}

func TestStartRecordRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	r := StartRecord{Generation: 4, Start: now.Add(StartLead(0, 0)), PublishedAt: now}
	back, err := DecodeStartRecord(r.Encode())
	if err != nil || !back.Start.Equal(r.Start) || !back.PublishedAt.Equal(now) || back.Generation != 4 {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if _, err := DecodeStartRecord(`{"generation":1}`); err == nil {
		t.Fatalf("a record without times must be refused")
	}
}

// A group restricted to some targets is in their timetables only, with
// its concurrent partner; the others' timetables close up.
func TestAGroupRunsOnlyOnItsTargets(t *testing.T) {
	s := spec()
	s.Repetitions = 1
	s.Workloads[0].Targets = []string{"nfs"} // reader, and so writer with it
	s.Workloads[2].Targets = []string{"nfs"}
	names := func(target string) string {
		var out []string
		for _, slot := range Slots(s, target) {
			for _, c := range slot.Cells {
				out = append(out, fmt.Sprintf("%s@%d", c.Name, slot.OffsetMilliseconds/1000))
			}
		}
		return strings.Join(out, " ")
	}
	if got, want := names("ssd"), "seq-bs1m-r100-qd32-j1@0"; got != want {
		t.Errorf("ssd runs %s, want %s", got, want)
	}
	if got := names("nfs"); !strings.Contains(got, "reader-bs4k-r100-qd32-j1@0") || !strings.Contains(got, "writer-bs4k-r10-qd32-j1@19") || !strings.Contains(got, "seq-bs1m-r100-qd32-j1@38") {
		t.Errorf("nfs runs %s, want every group", got)
	}
}
