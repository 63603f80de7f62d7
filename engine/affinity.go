//go:build linux

package engine

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Worker thread placement, as fio's cpus_allowed and cpus_allowed_policy.
// Without them a worker thread runs wherever the kernel puts it, as fio's
// do. Pinning is not the default although it measured faster on the
// memory-backed loop device (hack/bench-engine-vs-fio.sh, 2 CPUs, idle
// machine, medians of 3: 8 psync jobs 0.86 -> 0.93 of fio's IOPS, one
// io_uring job at QD8 0.94 -> 1.07, 4 jobs at QD16 0.96 -> 0.97; QD1 too
// noisy to call): a default placement would put worker 0 of every client
// pod on the same node on the same CPU, where the kernel would have spread
// them.

// placement holds the CPUs each job's worker threads may use: the job's
// cpus_allowed that the process may use; none, anywhere.
type placement struct {
	usable [][]int // by job
	split  []bool  // by job: one CPU per thread
}

// newPlacement reads the CPUs the process may use and refuses, before
// anything is laid out, a job whose cpus_allowed names none of them.
func newPlacement(jobs []JobSpec) (*placement, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("reading the CPUs this process may use: %w", err)
	}
	return placeJobs(jobs, func(c int) bool { return set.IsSet(c) })
}

// placeJobs is newPlacement for a given set of usable CPUs.
func placeJobs(jobs []JobSpec, mayUse func(cpu int) bool) (*placement, error) {
	p := &placement{usable: make([][]int, len(jobs)), split: make([]bool, len(jobs))}
	for ji := range jobs {
		j := &jobs[ji]
		if len(j.CPUsAllowed) == 0 {
			continue
		}
		for _, c := range j.CPUsAllowed {
			if mayUse(c) {
				p.usable[ji] = append(p.usable[ji], c)
			}
		}
		if len(p.usable[ji]) == 0 {
			return nil, fmt.Errorf("%w: job %q: cpus_allowed: none of CPUs %s is one this process may use", ErrUsage, j.Name, formatCPUList(j.CPUsAllowed))
		}
		p.split[ji] = j.CPUsAllowedPolicy == CPUsSplit
	}
	return p, nil
}

// cpusFor returns the CPUs the thread of lane `lane` (of `lanes`) of clone
// `clone` of job ji may use: all of the job's usable CPUs, or under split
// one of them, round robin over the job's threads; nil, anywhere.
func (p *placement) cpusFor(ji, clone, lane, lanes int) []int {
	cpus := p.usable[ji]
	if len(cpus) == 0 || !p.split[ji] {
		return cpus
	}
	return []int{cpus[(clone*lanes+lane)%len(cpus)]}
}

// pinThread restricts the calling (locked) thread to cpus.
func pinThread(cpus []int) error {
	if len(cpus) == 0 {
		return nil
	}
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return unix.SchedSetaffinity(0, &set)
}
