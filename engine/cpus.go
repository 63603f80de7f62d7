package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Placement policies (fio's cpus_allowed_policy).
const (
	// CPUsShared lets every thread of a job run on any CPU of the set.
	CPUsShared = "shared"
	// CPUsSplit gives each thread of a job one CPU of the set, round robin.
	CPUsSplit = "split"
)

// maxCPU bounds CPU numbers in a list (the kernel's CPU set size).
const maxCPU = 1024

// parseCPUList reads fio's CPU list: "0-3,6,8-9".
func parseCPUList(s string) ([]int, error) {
	var cpus []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= maxCPU {
			return nil, fmt.Errorf("%s is not a CPU list (want numbers and ranges such as 0-3,6)", excerpt(s))
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	return cpus, nil
}

// formatCPUList writes cpus back as a CPU list, runs of consecutive CPUs
// as ranges: error messages then stay short for "0-1023".
func formatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		end := i
		for end+1 < len(cpus) && cpus[end+1] == cpus[end]+1 {
			end++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if end > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(cpus[end]))
		}
		i = end + 1
	}
	return b.String()
}
