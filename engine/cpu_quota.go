package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cgroupRoot is where the process's cgroup files are (a container with its
// own cgroup namespace sees its own cgroup there).
const cgroupRoot = "/sys/fs/cgroup"

// cpuQuota is the CPU time the process's cgroup may use per unit of wall
// time (cpu.max, or cpu.cfs_quota_us over cpu.cfs_period_us on cgroup v1),
// in CPUs; 0 when there is no limit or it cannot be read.
//
// GOMAXPROCS already follows the limit, but rounds it up, to 2 at least: a
// pod limited to half a CPU gets GOMAXPROCS 2, and a worker that looks for
// completions for 30 µs at a time on a device that answers within that
// keeps a whole CPU busy, which the limit would throttle (the whole cgroup
// stopped for the rest of its period, tens of milliseconds, inside the
// measurement). Go keeps its own reading internal, and libraries that read
// the limit (automaxprocs) keep theirs internal too; reading the two files
// is all this needs.
func cpuQuota() float64 { return cpuQuotaUnder(cgroupRoot) }

// cpuQuotaUnder is cpuQuota for the cgroup files under root.
func cpuQuotaUnder(root string) float64 {
	if b, err := os.ReadFile(filepath.Join(root, "cpu.max")); err == nil {
		f := strings.Fields(string(b))
		if len(f) != 2 || f[0] == "max" {
			return 0
		}
		return quotaOver(f[0], f[1])
	}
	for _, dir := range []string{"cpu", "cpu,cpuacct"} {
		q, err1 := os.ReadFile(filepath.Join(root, dir, "cpu.cfs_quota_us"))
		p, err2 := os.ReadFile(filepath.Join(root, dir, "cpu.cfs_period_us"))
		if err1 == nil && err2 == nil {
			return quotaOver(strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
		}
	}
	return 0
}

// quotaOver is quota/period in CPUs; 0 for no limit (-1 on cgroup v1) or
// anything that is not two positive numbers.
func quotaOver(quota, period string) float64 {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0
	}
	return float64(q) / float64(p)
}

// cpusForWorkers is how many CPUs the workers may keep busy: GOMAXPROCS as
// the runtime set it, or the cgroup's CPU limit in whole CPUs where that is
// lower.
func cpusForWorkers(gomaxprocs int, quota float64) int {
	if quota > 0 {
		return min(gomaxprocs, int(quota))
	}
	return gomaxprocs
}
