// Package plan is what a client is handed: the cells it runs, on which data,
// at which offsets from a start instant that every client of a target shares.
// The controller builds one plan per target and mounts it into the client
// pods; the local runner builds the same plan for in-process clients. Pure
// data and arithmetic, no Kubernetes clients.
package plan

import (
	"encoding/json"
	"fmt"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// SchemaVersion identifies the plan layout; clients refuse other versions,
// so an old client image never misreads a newer controller's plan.
const SchemaVersion = "storagebench.io/client-plan/v1"

// SlotGap separates consecutive slots so that every engine has stopped and
// released its files before the next cell starts on any client.
const SlotGap = 2 * time.Second

// Plan is one target's run as its clients see it.
type Plan struct {
	SchemaVersion string `json:"schemaVersion"`
	Benchmark     string `json:"benchmark"`
	Namespace     string `json:"namespace,omitempty"`
	Generation    int64  `json:"generation"`
	Target        string `json:"target"`
	// Clients is the number of clients of the target; each knows its index.
	Clients int32 `json:"clients"`
	Data    Data  `json:"data"`
	// Slots run in order; each starts at its offset from the shared start.
	Slots []Slot `json:"slots"`
	// IOEngine is the engine backend to ask for (auto unless testing).
	IOEngine string `json:"ioEngine"`
	// StartSignal says where a cluster client reads the start instant.
	StartSignal StartSignal `json:"startSignal,omitempty"`
	// MaxClockOffsetMilliseconds is how far a client's clock may be from the
	// controller's before it refuses to start.
	MaxClockOffsetMilliseconds int32 `json:"maxClockOffsetMilliseconds"`
	// WaitForStartSeconds bounds how long a ready client waits for the start
	// instant before giving up.
	WaitForStartSeconds int32 `json:"waitForStartSeconds"`
	// WaitForRoundSeconds bounds how long a client of a target with
	// searches waits for the next round: the controller may wait for the
	// slowest client's report for timeouts.collectSeconds, and a manager
	// that fails over takes a while to pick up.
	WaitForRoundSeconds int32 `json:"waitForRoundSeconds,omitempty"`
	// Searches are the capacity searches of the target. With any, clients
	// stay up after the slots: each writes its report of the round and
	// waits for the next round the controller publishes (RoundRecord),
	// until one says the searches are done.
	Searches []sbv1.Search `json:"searches,omitempty"`
}

// HasRounds reports whether clients run search rounds after the slots.
func (p *Plan) HasRounds() bool { return len(p.Searches) > 0 }

// Data is the data set each client lays out and works on.
type Data struct {
	// Mode is Filesystem (Path is a directory) or Block (Path is a device).
	Mode string `json:"mode"`
	Path string `json:"path"`
	// Shared is true when all clients use the same volume: each then works
	// in its own subdirectory (Filesystem) or region (Block).
	Shared             bool   `json:"shared"`
	SizePerClientBytes int64  `json:"sizePerClientBytes"`
	FilesPerClient     int32  `json:"filesPerClient"`
	Fill               string `json:"fill"`
	ZeroBuffers        bool   `json:"zeroBuffers,omitempty"`
	// LargestBlockBytes is the biggest IO of any cell or search step on
	// the target: files are a whole number of them. Zero in plans of older
	// controllers: the largest block of the plan's slots.
	LargestBlockBytes int64 `json:"largestBlockBytes,omitempty"`
	// Verify is dataset.verify as the engine names the checksum (crc32c,
	// md5, sha256); empty: off. VerifyIntervalBytes is where the headers
	// go: every this many bytes (the benchmark's smallest block size).
	Verify              string `json:"verify,omitempty"`
	VerifyIntervalBytes int64  `json:"verifyIntervalBytes,omitempty"`
}

// Slot is what runs at one instant: one cell, or several cells of workloads
// declared concurrentWith each other.
type Slot struct {
	// OffsetMilliseconds is the slot's start after the shared start instant.
	OffsetMilliseconds int64 `json:"offsetMilliseconds"`
	// Repetition is 1..spec.repetitions.
	Repetition int32       `json:"repetition"`
	Cells      []sbv1.Cell `json:"cells"`
}

// StartSignal names the ConfigMap key a cluster client polls for the start.
type StartSignal struct {
	ConfigMap string `json:"configMap,omitempty"`
	Key       string `json:"key,omitempty"`
}

// Length is how long the slot runs: the longest ramp + duration among its
// cells.
func (s *Slot) Length() time.Duration {
	var longest time.Duration
	for _, c := range s.Cells {
		if d := time.Duration(c.RampSeconds+c.DurationSeconds) * time.Second; d > longest {
			longest = d
		}
	}
	return longest
}

// MaxClockOffset is the bound on a client's clock offset from the
// controller's.
func (p *Plan) MaxClockOffset() time.Duration {
	return time.Duration(p.MaxClockOffsetMilliseconds) * time.Millisecond
}

// Duration is the time from the shared start to the end of the last slot.
func (p *Plan) Duration() time.Duration {
	if len(p.Slots) == 0 {
		return 0
	}
	last := p.Slots[len(p.Slots)-1]
	return time.Duration(last.OffsetMilliseconds)*time.Millisecond + last.Length()
}

// CellRuns is the number of (cell, repetition) runs in the plan.
func (p *Plan) CellRuns() int {
	n := 0
	for _, s := range p.Slots {
		n += len(s.Cells)
	}
	return n
}

// CellRunsDoneAt counts the cell runs whose slot has ended by elapsed time
// after the start: the progress of a running target.
func (p *Plan) CellRunsDoneAt(elapsed time.Duration) int {
	n := 0
	for _, s := range p.Slots {
		if time.Duration(s.OffsetMilliseconds)*time.Millisecond+s.Length() <= elapsed {
			n += len(s.Cells)
		}
	}
	return n
}

// Slots lays out in time the cells that run on a target (the groups that
// name it in their targets, or name none): cells of concurrent workloads
// share a slot, every repetition runs the whole matrix once (so drift over
// time spreads over all cells rather than hitting one), and slots follow
// each other with SlotGap between them.
//
// Targets that LinksTargets joins share one timetable, the whole
// benchmark's: each keeps the cells of its own groups at their offsets in
// it (a slot with none of them is left out), so that slot k starts at the
// same instant on every target.
func Slots(spec *sbv1.StorageBenchmarkSpec, target string) []Slot {
	if target == "" || !spec.LinksTargets() {
		return timetable(spec, target)
	}
	var slots []Slot
	for _, s := range timetable(spec, "") {
		var cells []sbv1.Cell
		for _, c := range s.Cells {
			if w := spec.Workload(c.Workload); w != nil && w.RunsOn(target) {
				cells = append(cells, c)
			}
		}
		if len(cells) > 0 {
			s.Cells = cells
			slots = append(slots, s)
		}
	}
	return slots
}

// timetable lays out the cells of the groups that run on target ("": all).
func timetable(spec *sbv1.StorageBenchmarkSpec, target string) []Slot {
	cellsOf := map[string][]sbv1.Cell{}
	for i := range spec.Workloads {
		w := &spec.Workloads[i]
		cellsOf[w.Name] = w.Cells()
	}
	// A group that names a partner runs inside the partner's slots.
	var round [][]sbv1.Cell
	for i := range spec.Workloads {
		w := &spec.Workloads[i]
		if w.ConcurrentWith != "" || !w.RunsOn(target) {
			continue
		}
		var partners []string
		for j := range spec.Workloads {
			if spec.Workloads[j].ConcurrentWith == w.Name && spec.Workloads[j].RunsOn(target) {
				partners = append(partners, spec.Workloads[j].Name)
			}
		}
		for k, c := range cellsOf[w.Name] {
			slot := []sbv1.Cell{c}
			for _, partner := range partners {
				if k < len(cellsOf[partner]) {
					slot = append(slot, cellsOf[partner][k])
				}
			}
			round = append(round, slot)
		}
	}
	repetitions := spec.Repetitions
	if repetitions < 1 {
		repetitions = 1
	}
	var slots []Slot
	var offset time.Duration
	for rep := int32(1); rep <= repetitions; rep++ {
		for _, cells := range round {
			s := Slot{OffsetMilliseconds: offset.Milliseconds(), Repetition: rep, Cells: cells}
			slots = append(slots, s)
			offset += s.Length() + SlotGap
		}
	}
	return slots
}

// Parse reads a plan and checks that this client can run it.
func Parse(data []byte) (*Plan, error) {
	p := &Plan{}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	if p.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("plan schema %q is not %q: the client image and the controller are different versions", p.SchemaVersion, SchemaVersion)
	}
	if p.Clients < 1 || (len(p.Slots) == 0 && !p.HasRounds()) || p.Data.Path == "" || p.Data.SizePerClientBytes <= 0 {
		return nil, fmt.Errorf("plan for target %q is incomplete (clients %d, slots %d, data path %q, size %d)",
			p.Target, p.Clients, len(p.Slots), p.Data.Path, p.Data.SizePerClientBytes)
	}
	return p, nil
}
