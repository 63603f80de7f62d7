package v1alpha1

import "fmt"

// LatencyTarget turns a workload group into a capacity search: instead of
// measuring every cell of its matrix, the benchmark looks for the most load
// each target carries while the latency at the percentile stays within the
// bound (fio's latency_target, PerfKitBenchmarker's fio_latency_sla). Each
// block size x read mix of the group is one search; its steps run on all
// clients of a target at the same instant and are merged before the next
// step is chosen.
type LatencyTarget struct {
	// percentile of the merged latency distribution the bound applies to:
	// P50, P90, P99, P99.9 or Max. For a mix of reads and writes the slower
	// direction decides.
	// +optional
	// +kubebuilder:default=P99
	Percentile Percentile `json:"percentile,omitempty"`

	// microseconds is the highest latency allowed at the percentile,
	// measured from each IO's intended start (so a queue that builds up
	// counts), 1 to 60,000,000 (a minute).
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=60000000
	Microseconds int64 `json:"microseconds"`

	// vary is what the search changes. Rate (the default) paces the
	// group's largest queue depth at a total rate split over all clients
	// and jobs: first unpaced (the probe: the most the target does), then
	// 25, 50, 75 and 90 % of what the probe reached, then bisection between
	// the highest rate that held and the lowest that did not. QueueDepth
	// runs unpaced (closed loop, fio's latency_target) from queue depth 1,
	// doubling until the bound fails or the group's largest queue depth is
	// reached, then bisecting.
	// +optional
	// +kubebuilder:default=Rate
	Vary SearchVariable `json:"vary,omitempty"`

	// maxSteps bounds how many steps one search runs, the probe included
	// (each step is rampSeconds + durationSeconds); 3 to 24, default 10.
	// The search stops earlier once the rate is known within 2 % (or the
	// queue depth exactly). A failing step is measured once more before
	// the search backs off below it, and that second look is a step too.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=3
	// +kubebuilder:validation:Maximum=24
	MaxSteps int32 `json:"maxSteps,omitempty"`
}

// SearchVariable is what a capacity search varies.
// +kubebuilder:validation:Enum=Rate;QueueDepth
type SearchVariable string

const (
	// SearchRate varies the offered rate at a fixed queue depth (open loop).
	SearchRate SearchVariable = "Rate"
	// SearchQueueDepth varies the queue depth, unpaced (closed loop).
	SearchQueueDepth SearchVariable = "QueueDepth"
)

// DefaultSearchSteps is maxSteps when the field is left out.
const DefaultSearchSteps = 10

// Search is one capacity search of a group with every default resolved:
// one block size and read mix, the group's latency target, and the cell
// its steps are variations of.
type Search struct {
	// Name is unique within a benchmark: <workload>-bs<size>-r<read%>.
	Name     string        `json:"name"`
	Workload string        `json:"workload"`
	Target   LatencyTarget `json:"target"`
	// Base is the step template: the group's largest queue depth, its one
	// numJobs value, unpaced.
	Base Cell `json:"base"`
}

// IsSearch reports whether the group is a capacity search rather than a
// matrix of cells.
func (w *WorkloadGroup) IsSearch() bool { return w.LatencyTarget != nil }

// Searches expands a search group into its searches, block sizes first and
// then read mixes, as cells are ordered; none for a matrix group.
func (w *WorkloadGroup) Searches() []Search {
	if !w.IsSearch() {
		return nil
	}
	target := *w.LatencyTarget
	if target.Percentile == "" {
		target.Percentile = PercentileP99
	}
	if target.Vary == "" {
		target.Vary = SearchRate
	}
	if target.MaxSteps == 0 {
		target.MaxSteps = DefaultSearchSteps
	}
	largest := int32(0)
	for _, qd := range orDefault(w.QueueDepths, 32) {
		largest = max(largest, qd)
	}
	matrix := *w
	matrix.LatencyTarget = nil
	matrix.QueueDepths = []int32{largest}
	matrix.NumJobs = orDefault(w.NumJobs, 1)[:1]
	var out []Search
	for _, c := range matrix.Cells() {
		c.RateIOPS = 0
		out = append(out, Search{Name: c.searchName(), Workload: w.Name, Target: target, Base: c})
	}
	return out
}

// Searches lists every search of the benchmark in spec order.
func (s *StorageBenchmarkSpec) Searches() []Search {
	var out []Search
	for i := range s.Workloads {
		out = append(out, s.Workloads[i].Searches()...)
	}
	return out
}

// SearchNameOf is the name of the search a step cell (or a search's base
// cell) belongs to.
func SearchNameOf(c *Cell) string { return c.searchName() }

func (c *Cell) searchName() string {
	bs := FormatBlockSize(c.BlockSizeBytes)
	if c.BlockSizeBytes == 0 {
		bs = FormatBlockSize(c.BlockSizeMinBytes) + "-" + FormatBlockSize(c.BlockSizeMaxBytes)
	}
	return fmt.Sprintf("%s-bs%s-r%d", c.Workload, bs, c.ReadPercent)
}

// StepLoad is what one step of a search offers: a total rate over all
// clients and jobs (0: unpaced), at a queue depth per job.
type StepLoad struct {
	OfferedIOPS int64 `json:"offeredIOPS,omitempty"`
	QueueDepth  int32 `json:"queueDepth"`
}

// Step is the cell of the search's step number (1-based) at a load, for a
// target with that many clients: a total rate is split evenly over every
// job of every client (at least one IO per second each), so the rate the
// step really offers is OfferedIOPS of the cell's RateIOPS x jobs x clients.
func (s *Search) Step(number int, load StepLoad, clients int32) Cell {
	c := s.Base
	c.QueueDepth = max(load.QueueDepth, 1)
	c.RateIOPS = 0
	if load.OfferedIOPS > 0 {
		jobs := int64(max(c.NumJobs, 1)) * int64(max(clients, 1))
		perJob := max(load.OfferedIOPS/jobs, 1)
		c.RateIOPS = int32(min(perJob, maxRateIOPS))
	}
	c.Name = fmt.Sprintf("%s-s%d", s.Name, number)
	return c
}

// OfferedIOPS is the total rate a step cell offers on a target with that
// many clients; 0 for an unpaced cell.
func (c *Cell) OfferedIOPS(clients int32) int64 {
	return int64(c.RateIOPS) * int64(max(c.NumJobs, 1)) * int64(max(clients, 1))
}

// maxRateIOPS is rateIOPS's schema maximum: a step never asks a job for
// more than a group could.
const maxRateIOPS = 10000000

// LargestQueueDepth is the deepest queue a search may use.
func (s *Search) LargestQueueDepth() int32 { return s.Base.QueueDepth }

// SteadyStateCheck is the steady-state rule of SNIA's Performance Test
// Specification (and fio's steadystate): over the last samples of a
// measured cell, IOPS must stay within a band and must not trend.
type SteadyStateCheck struct {
	// windowSeconds is how many of a cell's last one-second samples the
	// rule looks at; 0 turns it off. A cell with fewer samples is not
	// judged. Default 5.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	WindowSeconds *int32 `json:"windowSeconds,omitempty"`
	// maxExcursionPercent bounds max - min of IOPS over the window, in
	// percent of its mean; default 20.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	MaxExcursionPercent *int32 `json:"maxExcursionPercent,omitempty"`
	// maxSlopePercent bounds how much the least-squares line through the
	// window rises or falls from its first sample to its last, in percent
	// of the mean; default 10.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	MaxSlopePercent *int32 `json:"maxSlopePercent,omitempty"`
}

// SteadyStateRule is a SteadyStateCheck with its defaults resolved.
type SteadyStateRule struct {
	WindowSeconds, MaxExcursionPercent, MaxSlopePercent int32
}

// Rule resolves the defaults (a nil check is the default rule).
func (c *SteadyStateCheck) Rule() SteadyStateRule {
	r := SteadyStateRule{WindowSeconds: 5, MaxExcursionPercent: 20, MaxSlopePercent: 10}
	if c == nil {
		return r
	}
	if c.WindowSeconds != nil {
		r.WindowSeconds = *c.WindowSeconds
	}
	if c.MaxExcursionPercent != nil {
		r.MaxExcursionPercent = *c.MaxExcursionPercent
	}
	if c.MaxSlopePercent != nil {
		r.MaxSlopePercent = *c.MaxSlopePercent
	}
	return r
}
