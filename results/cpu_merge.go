package results

import (
	"fmt"

	"github.com/storagebench/storagebench/engine/result"
)

// maxJobCPUSeconds bounds a job's CPU time read from a report: a year on
// each of 4096 threads is more than any cell uses; beyond it the number is
// forged, and sums of such would overflow.
const maxJobCPUSeconds = 365 * 24 * 3600 * 4096

// jobCPU is one job's CPU seconds: exactly from the extension's
// nanoseconds, or, from an engine that did not write them, from fio's
// usr_cpu and sys_cpu, percentages of job_runtime (whole milliseconds
// summed over clones, so a cell of a few milliseconds loses a share).
func jobCPU(j *result.Job, ext *result.JobExtension) (usr, sys float64, err error) {
	if ext.UserCPUNanoseconds < 0 || ext.SystemCPUNanoseconds < 0 {
		return 0, 0, fmt.Errorf("negative CPU time (user %d ns, system %d ns)", ext.UserCPUNanoseconds, ext.SystemCPUNanoseconds)
	}
	if ext.UserCPUNanoseconds > 0 || ext.SystemCPUNanoseconds > 0 {
		usr, sys = float64(ext.UserCPUNanoseconds)/1e9, float64(ext.SystemCPUNanoseconds)/1e9
	} else {
		if !finiteNonNegative(j.UsrCPU) || !finiteNonNegative(j.SysCPU) || j.JobRuntime < 0 {
			return 0, 0, fmt.Errorf("negative or non-finite CPU (usr %v%%, sys %v%%, runtime %d ms)", j.UsrCPU, j.SysCPU, j.JobRuntime)
		}
		runtime := float64(j.JobRuntime) / 1000
		usr, sys = j.UsrCPU/100*runtime, j.SysCPU/100*runtime
	}
	if !(usr <= maxJobCPUSeconds && sys <= maxJobCPUSeconds) {
		return 0, 0, fmt.Errorf("implausible CPU time (user %v s, system %v s)", usr, sys)
	}
	return usr, sys, nil
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
