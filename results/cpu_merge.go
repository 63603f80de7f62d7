package results

import (
	"fmt"

	"github.com/storagebench/storagebench/engine/result"
)

// jobCPU is one job's CPU seconds: fio's usr_cpu and sys_cpu are
// percentages of the job's runtime (job_runtime, ms, summed over its
// clones), so the seconds come back exactly but for the runtime's
// millisecond rounding.
func jobCPU(j *result.Job) (usr, sys float64, err error) {
	if !finiteNonNegative(j.UsrCPU) || !finiteNonNegative(j.SysCPU) || j.JobRuntime < 0 {
		return 0, 0, fmt.Errorf("negative or non-finite CPU (usr %v%%, sys %v%%, runtime %d ms)", j.UsrCPU, j.SysCPU, j.JobRuntime)
	}
	runtime := float64(j.JobRuntime) / 1000
	return j.UsrCPU / 100 * runtime, j.SysCPU / 100 * runtime, nil
}

// cpuUsage is the CPU of ios IOs over wallSeconds; nil when the engine
// reported none (an older client, or no rusage).
func cpuUsage(usr, sys, wallSeconds float64, ios int64) *CPUUsage {
	if usr == 0 && sys == 0 {
		return nil
	}
	c := &CPUUsage{UserSeconds: usr, SystemSeconds: sys}
	if wallSeconds > 0 {
		c.Percent = (usr + sys) / wallSeconds * 100
	}
	if ios > 0 {
		c.MicrosecondsPerIO = (usr + sys) / float64(ios) * 1e6
	}
	return c
}

// repetitionCPU adds the clients' CPU up: seconds sum, the percentage is
// the clients' mean (each client is a node's share), CPU per IO is over
// all IOs of all clients.
func repetitionCPU(clients []ClientResult) *CPUUsage {
	var usr, sys, percent float64
	var ios int64
	n := 0
	for _, c := range clients {
		if c.CPU == nil {
			continue
		}
		usr += c.CPU.UserSeconds
		sys += c.CPU.SystemSeconds
		percent += c.CPU.Percent
		n++
		for _, d := range []*DirectionStats{c.Read, c.Write} {
			if d != nil {
				ios += d.IOs
			}
		}
	}
	if n == 0 {
		return nil
	}
	r := cpuUsage(usr, sys, 0, ios)
	if r != nil {
		r.Percent = percent / float64(n)
	}
	return r
}
