package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// More of fio's job options: the load's shape (rate, percentage_random,
// offset_increment, bssplit) and what happens around the IO (end_fsync,
// unlink, invalidate, allow_file_create, exitall). Each has fio's meaning;
// where a form is not supported (per-direction values) it is refused.
func init() {
	for _, o := range []option{
		{name: "rate", help: "cap each clone's bandwidth, bytes per second (with one bs: rate_iops = rate / bs); READ,WRITE caps each direction apart", apply: func(j *JobSpec, s string) error {
			j.RateBytesByDir = [2]int64{}
			if strings.Contains(s, ",") {
				r, err := parseDirectionRates(s, sizeKind)
				j.RateBytes, j.RateBytesByDir = 0, r
				return err
			}
			return numberOpt(sizeKind, func(j *JobSpec, v int64) { j.RateBytes = v })(j, s)
		}},
		{name: "percentage_random", help: "percentage of a random job's IOs at random offsets; the rest continue after the previous IO (default 100)", apply: func(j *JobSpec, s string) error {
			if err := rejectList(s); err != nil {
				return err
			}
			return numberOpt(percentKind, func(j *JobSpec, v int64) { j.PercentSequential = 100 - int(v) })(j, s)
		}},
		{name: "random_distribution", help: "random (default) | zipf:THETA[:CENTER] | pareto:POWER[:CENTER] | normal:DEV[:CENTER] | zoned:ACCESS/RANGE%:... | zoned_abs:ACCESS/SIZE:...", apply: func(j *JobSpec, s string) error {
			d, err := parseDistribution(s)
			if err == nil {
				j.RandomDistribution = d
			}
			return err
		}},
		{name: "offset_increment", help: "clone c's region starts at offset + c * offset_increment", apply: numberOpt(sizeKind, func(j *JobSpec, v int64) { j.OffsetIncrement = v })},
		{name: "bssplit", help: "block sizes by share of IOs, e.g. 4k/60:64k/40 (an empty share takes an equal part of the rest)", apply: func(j *JobSpec, s string) error {
			shares, err := parseBSSplit(s)
			if err != nil {
				return err
			}
			j.BSSplit = shares // its sizes set the block sizes in resolve
			return nil
		}},
		{name: "end_fsync", flag: true, help: "fsync the files when the job's IO is done", apply: boolOpt(func(j *JobSpec, v bool) { j.EndFsync = v })},
		{name: "fsync_on_close", flag: true, help: "fsync the files when the job closes them (as end_fsync here)", apply: boolOpt(func(j *JobSpec, v bool) { j.EndFsync = v })},
		{name: "unlink", flag: true, help: "remove the job's regular files after the run", apply: boolOpt(func(j *JobSpec, v bool) { j.Unlink = v })},
		{name: "invalidate", flag: true, help: "drop the files' cached pages before a buffered job starts (default 1)", apply: boolOpt(func(j *JobSpec, v bool) { j.Invalidate = v })},
		{name: "allow_file_create", flag: true, help: "create missing files (default 1); 0 refuses to run on a missing file", apply: boolOpt(func(j *JobSpec, v bool) { j.NoFileCreate = !v })},
		{name: "exitall", flag: true, help: "stop the other jobs of the group when this one finishes", apply: boolOpt(func(j *JobSpec, v bool) { j.ExitAll = v })},
		{name: "exitall_on_error", flag: true, help: "stop the other jobs of the group when this one fails", apply: boolOpt(func(j *JobSpec, v bool) { j.ExitAllOnError = v })},
		{name: "gtod_reduce", flag: true, help: "accepted; every IO's latency is still recorded", apply: acceptedFlag},
		{name: "disable_lat", flag: true, help: "accepted; every IO's latency is still recorded", apply: acceptedFlag},
		{name: "disable_clat", flag: true, help: "accepted; every IO's latency is still recorded", apply: acceptedFlag},
		{name: "disable_slat", flag: true, help: "accepted; every IO's latency is still recorded", apply: acceptedFlag},
		{name: "disable_bw_measurement", flag: true, help: "accepted; bandwidth is still measured", apply: acceptedFlag},
		{name: "clat_percentiles", flag: true, help: "accepted: completion latency percentiles are always reported", apply: acceptedFlag},
		{name: "lat_percentiles", flag: true, help: "accepted: total latency percentiles are always reported", apply: acceptedFlag},
		{name: "sb_spin_wait", flag: true, help: "storagebench's own: before sleeping for a completion, look for it in the ring for up to 30 µs (5 µs for blocks over 16 KiB, or when every CPU the process may use has a worker thread), backing off while that finds nothing (io_uring and libaio; default 1); 0 sleeps at once, as fio does", apply: boolOpt(func(j *JobSpec, v bool) { j.NoSpinWait = !v })},
		{name: "userspace_reap", flag: true, help: "accepted: the libaio backend always reads finished IOs from the completion ring in user space first, and calls io_getevents only to wait", apply: acceptedFlag},
		{name: "overwrite", flag: true, help: "accepted: IO jobs' files are written whole before the job starts, as overwrite=1 asks", apply: acceptedFlag},
		{name: "fallocate", help: "accepted (none, posix, keep, native, truncate, 0, 1): files are written whole before the job, so how their space is reserved first changes nothing measured", apply: func(_ *JobSpec, s string) error {
			switch strings.TrimSpace(s) {
			case "none", "posix", "keep", "native", "truncate", "0", "1":
				return nil
			}
			return fmt.Errorf("%s is not one of none, posix, keep, native, truncate, 0, 1", excerpt(s))
		}},
	} {
		registerOption(o)
	}
}

// parseBSSplit reads fio's bssplit value as fio does: size/percent entries
// separated by ':'; entries without a percentage (or with 0) share what the
// others leave equally (rounded down); more than 100 % is refused only with
// several such entries. The entries are ordered by share, smallest first,
// and a draw beyond the last share takes the last entry, so shares that add
// up to less than 100 leave the rest to the largest share, as in fio.
func parseBSSplit(s string) ([]BlockSizeShare, error) {
	if err := rejectList(s); err != nil {
		return nil, err
	}
	var shares []BlockSizeShare
	total, blank := 0, 0
	for _, entry := range strings.Split(s, ":") {
		size, pct, _ := strings.Cut(entry, "/")
		v, err := sizeKind.value(size)
		if err != nil {
			return nil, fmt.Errorf("block size: %w", err)
		}
		if v <= 0 {
			return nil, fmt.Errorf("block size %s must be positive", excerpt(size))
		}
		sh := BlockSizeShare{Size: v}
		if pct != "" {
			p, err := strconv.Atoi(pct)
			if err != nil || p < 0 {
				return nil, fmt.Errorf("share %s of %s is not a percentage", excerpt(pct), excerpt(size))
			}
			sh.Percent = min(p, 100)
		}
		if sh.Percent == 0 {
			blank++
		}
		total += sh.Percent
		shares = append(shares, sh)
	}
	if total > 100 && blank > 1 {
		return nil, fmt.Errorf("the shares add up to %d%%, more than 100%%, with %d sizes left to share the rest", total, blank)
	}
	left := max(100-total, 0)
	if blank == 1 && len(shares) == 1 {
		left = 100
	}
	for i := range shares {
		if shares[i].Percent == 0 && blank > 0 {
			shares[i].Percent = left / blank
		}
	}
	sort.SliceStable(shares, func(a, b int) bool { return shares[a].Percent < shares[b].Percent })
	if !hasShare(shares) {
		return nil, fmt.Errorf("every share of %s is 0%%", excerpt(s))
	}
	return shares, nil
}

// sizeSplit draws block sizes by bssplit's shares: one draw of 0..99 per
// IO against the cumulative shares.
type sizeSplit struct {
	upTo  []uint64 // cumulative percentages, the last is 100
	sizes []int64
}

func newSizeSplit(shares []BlockSizeShare) *sizeSplit {
	if len(shares) == 0 {
		return nil
	}
	s := &sizeSplit{}
	var cum uint64
	for _, sh := range shares {
		if sh.Percent == 0 {
			continue
		}
		cum += uint64(sh.Percent)
		s.upTo = append(s.upTo, cum)
		s.sizes = append(s.sizes, sh.Size)
	}
	return s
}

func (s *sizeSplit) draw(r *rng) int64 {
	x := r.below(100)
	for i, up := range s.upTo {
		if x < up {
			return s.sizes[i]
		}
	}
	return s.sizes[len(s.sizes)-1]
}

// registerOption adds a job option; one registered twice is a bug that
// would silently drop the first definition.
func registerOption(o option) {
	if _, dup := jobOptions[o.name]; dup {
		panic("engine: job option " + o.name + " registered twice")
	}
	jobOptions[o.name] = o
}
