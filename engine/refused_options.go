package engine

import (
	"fmt"
	"sort"
	"strings"
)

// refusedOptions are fio options the engine does not implement, each with
// the reason: a job file that uses one is refused naming the option and
// why, rather than as an unknown word (docs/engine-job-files.md has the
// same list).
var refusedOptions = map[string]string{
	"iodepth_low":                "the engine refills the queue as soon as a slot is free; a low watermark is not implemented",
	"continue_on_error":          "a failed IO ends the job here, and the run fails naming it",
	"ignore_error":               "a failed IO ends the job here, and the run fails naming it",
	"pre_read":                   "reads meet the device, or the page cache as it is (invalidate); reading files in beforehand is not implemented",
	"fadvise_hint":               "only invalidate's POSIX_FADV_DONTNEED is issued",
	"sync_file_range":            "fsync and fdatasync are implemented, sync_file_range is not",
	"mem":                        "IO buffers are the engine's own: page-aligned anonymous memory",
	"iomem":                      "IO buffers are the engine's own: page-aligned anonymous memory",
	"iomem_align":                "IO buffers are the engine's own: page-aligned anonymous memory",
	"hugepage-size":              "IO buffers are the engine's own: page-aligned anonymous memory",
	"nice":                       "CPU and IO priorities are not implemented",
	"prio":                       "CPU and IO priorities are not implemented",
	"prioclass":                  "CPU and IO priorities are not implemented",
	"cmdprio_percentage":         "CPU and IO priorities are not implemented",
	"cpumask":                    "give cpus_allowed (a CPU list) instead of a mask",
	"write_hist_log":             "histogram logs are not implemented (write_lat_log is)",
	"log_hist_msec":              "histogram logs are not implemented (write_lat_log is)",
	"unified_rw_reporting":       "reads and writes are reported apart",
	"kb_base":                    "sizes are read with k = 1024 (fio's default), which kb_base=1024 says; kb_base=1000 is not implemented",
	"ioscheduler":                "the engine does not change a device's IO scheduler",
	"status_interval":            "the result is printed once, at the end",
	"exec_prerun":                "the engine runs no commands",
	"exec_postrun":               "the engine runs no commands",
	"write_iolog":                "IO logs and their replay are not implemented",
	"read_iolog":                 "IO logs and their replay are not implemented",
	"replay_redirect":            "IO logs and their replay are not implemented",
	"lockfile":                   "clones never share blocks here, so there is nothing to lock",
	"filename_format":            "generated files are named as fio's default, JOB.CLONE.FILE",
	"serialize_overlap":          "overlap serialization is not implemented (verify keeps two IOs off one block by itself)",
	"io_submit_mode":             "IOs are submitted by the job's own thread",
	"verify_pattern":             "verify checks checksums; a pattern is not implemented",
	"verify_offset":              "the verify header is at the start of each interval",
	"verify_async":               "verify checks in the job's own thread",
	"verify_state_load":          "verify keeps no state between runs",
	"trim_percentage":            "trims are not implemented",
	"trim_verify_zero":           "trims are not implemented",
	"trim_backlog":               "trims are not implemented",
	"zonemode":                   "zoned block devices are not supported",
	"zonesize":                   "zoned block devices are not supported",
	"zonerange":                  "zoned block devices are not supported",
	"zoneskip":                   "zoned block devices are not supported",
	"max_open_zones":             "zoned block devices are not supported",
	"dedupe_global":              "dedupe_percentage repeats one buffer per clone; a global dedupe pool is not implemented",
	"buffer_pattern":             "compressible buffers are zeros after random bytes; a pattern is not implemented",
	"experimental_verify":        "verify reads back the blocks each pass wrote",
	"random_generator":           "random offsets come from xoshiro256** (a keyed permutation with verify)",
	"allrandrepeat":              "randrepeat covers every random choice here",
	"steadystate_check_interval": "steady state is judged every second, as fio's default",
}

// unknownOption is the error for an option the engine does not take
// (shown as given: --name on the command line): with the reason where it
// is one of fio's it refuses, and near names.
func unknownOption(name, shown string) error {
	if why, ok := refusedOptions[name]; ok {
		return fmt.Errorf("option %s is not supported: %s", excerpt(shown), why)
	}
	// Near names: the options the word begins, else the one it extends.
	var near []string
	for n := range jobOptions {
		if strings.HasPrefix(n, name) {
			near = append(near, n)
		}
	}
	for n := range jobOptions {
		if len(near) == 0 && len(name) > 3 && strings.HasPrefix(name, n) {
			near = append(near, n)
		}
	}
	sort.Strings(near)
	if len(near) > 0 && len(near) <= 5 {
		return fmt.Errorf("unknown or unsupported option %s (did you mean %s?)", excerpt(shown), strings.Join(near, ", "))
	}
	return fmt.Errorf("unknown or unsupported option %s", excerpt(shown))
}
