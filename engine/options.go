package engine

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrUsage is wrapped by every error caused by the options or job files
// rather than by the run, so that callers can tell the two apart (the CLI
// exits with 3 for these).
var ErrUsage = errors.New("usage error")

// option is one supported fio option.
type option struct {
	name  string
	flag  bool // may be given without a value (true)
	help  string
	apply func(j *JobSpec, v string) error
}

// valueKind is what a numeric option's value must be: how to parse it,
// its range, and how an error says so. Every numeric option is built from
// one, so that each error names the kind expected (a count, a rate, a size,
// a percentage, a time) instead of one generic message.
type valueKind struct {
	noun     string // "a count"
	want     string // what a valid value looks like
	parse    func(string) (int64, error)
	min, max int64
}

var (
	sizeKind = valueKind{noun: "a size", want: "a size such as 4k, 1m (a whole number of bytes >= 0, optional unit k, m, g, t, p)",
		parse: parseSize, max: math.MaxInt64}
	// Rates and percentages take fio's units too (rate_iops=2k), as
	// counts do.
	rateKind    = valueKind{noun: "a rate", want: "IOs per second, a whole number >= 0", parse: parseSize, max: math.MaxInt32}
	percentKind = valueKind{noun: "a percentage", want: "a whole number 0..100", parse: parseSize, max: 100}
	timeKind    = valueKind{noun: "a time", want: "a whole number >= 0 with an optional unit us, ms, s, m, h, d (a bare number is seconds)",
		parse: func(s string) (int64, error) { d, err := parseDuration(s); return int64(d), err }, max: math.MaxInt64}
)

// countKind is a whole number of things (iodepth, numjobs, ...) of at least
// min. fio accepts size units on counts (iodepth=1k), and so do we.
func countKind(min int64) valueKind {
	return valueKind{noun: "a count", want: fmt.Sprintf("a whole number >= %d", min), parse: parseSize, min: min, max: math.MaxInt32}
}

// value parses s as this kind, or says what is wrong and what was wanted.
func (k valueKind) value(s string) (int64, error) {
	v, err := k.parse(s)
	switch {
	case errors.Is(err, errNotNumber):
		return 0, fmt.Errorf("%s is not %s: want %s", excerpt(s), k.noun, k.want)
	case err != nil:
		return 0, fmt.Errorf("%s is not %s (%w): want %s", excerpt(s), k.noun, err, k.want)
	case v < k.min:
		return 0, fmt.Errorf("%s is not %s (below %d): want %s", excerpt(s), k.noun, k.min, k.want)
	case v > k.max:
		return 0, fmt.Errorf("%s is not %s (above %d): want %s", excerpt(s), k.noun, k.max, k.want)
	}
	return v, nil
}

// numberOpt builds the setter of an option holding a value of kind k.
func numberOpt(k valueKind, set func(j *JobSpec, v int64)) func(*JobSpec, string) error {
	return func(j *JobSpec, s string) error {
		v, err := k.value(s)
		if err == nil {
			set(j, v)
		}
		return err
	}
}

func boolOpt(set func(j *JobSpec, v bool)) func(*JobSpec, string) error {
	return func(j *JobSpec, s string) error {
		v, err := parseBool(s)
		if err == nil {
			set(j, v)
		}
		return err
	}
}

// acceptedFlag applies a flag that changes nothing here, once its value is
// a boolean: accepting an option does not accept a value fio refuses.
var acceptedFlag = boolOpt(func(*JobSpec, bool) {})

// rejectList refuses fio's per-direction "read,write" value form, which
// this engine does not support, instead of silently using one part.
func rejectList(s string) error {
	if strings.Contains(s, ",") {
		return fmt.Errorf("per-direction values (%s) are not supported; give one value", excerpt(s))
	}
	return nil
}

// jobOptions are the job options, by fio name. Aliases fio accepts are
// listed in optionAliases.
var jobOptions = map[string]option{}

var optionAliases = map[string]string{
	"blocksize":              "bs",
	"readwrite":              "rw",
	"blocksize_range":        "bsrange",
	"ba":                     "blockalign",
	"nr_files":               "nrfiles",
	"timeout":                "runtime",
	"io_limit":               "io_size",
	"wait_for_previous":      "stonewall",
	"iodepth_batch":          "iodepth_batch_submit",
	"iodepth_batch_complete": "iodepth_batch_complete_min",
}

func init() {
	for _, o := range []option{
		{name: "name", help: "job name; on the command line it starts a new job", apply: func(j *JobSpec, v string) error { j.Name = v; return nil }},
		{name: "filename", help: "file(s) or block device(s), colon-separated; shared by all numjobs clones", apply: func(j *JobSpec, v string) error {
			j.Filenames = nil
			for _, f := range strings.Split(v, ":") {
				if f == "" {
					return fmt.Errorf("empty file name in %s", excerpt(v))
				}
				j.Filenames = append(j.Filenames, f)
			}
			return nil
		}},
		{name: "description", help: "free text about the job; echoed in the JSON job options, as fio does", apply: func(*JobSpec, string) error { return nil }},
		{name: "directory", help: "directory for generated files and prefix of relative filenames", apply: func(j *JobSpec, v string) error {
			if strings.Contains(v, ":") {
				return fmt.Errorf("several directories (%s) are not supported", excerpt(v))
			}
			j.Directory = v
			return nil
		}},
		{name: "size", help: "bytes of IO region per clone, split over its files (default: existing file size)", apply: numberOpt(sizeKind, func(j *JobSpec, v int64) { j.Size = v })},
		{name: "filesize", help: "length of each file's IO region; size then is only how much IO to do (no ranges)", apply: numberOpt(sizeKind, func(j *JobSpec, v int64) { j.FileSize = v })},
		{name: "io_size", help: "bytes of IO per clone (default size); more than the region wraps around it", apply: numberOpt(sizeKind, func(j *JobSpec, v int64) { j.IOSize = v })},
		{name: "loops", help: "repeat the job's IO this many times (default 1; not with time_based)", apply: numberOpt(countKind(1), func(j *JobSpec, v int64) { j.Loops = int(v) })},
		{name: "number_ios", help: "stop a clone after this many reads and writes, if it has not stopped before", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) { j.NumberIOs = v })},
		{name: "startdelay", help: "start the job this long after the others (its ramp included)", apply: numberOpt(timeKind, func(j *JobSpec, v int64) { j.StartDelay = time.Duration(v) })},
		{name: "buffered", flag: true, help: "through the page cache (the opposite of direct)", apply: boolOpt(func(j *JobSpec, v bool) { j.Direct = !v })},
		{name: "nrfiles", help: "generated files per clone (default 1)", apply: numberOpt(countKind(1), func(j *JobSpec, v int64) { j.NrFiles = int(v) })},
		{name: "offset", help: "start of the IO region in each file", apply: numberOpt(sizeKind, func(j *JobSpec, v int64) { j.Offset = v })},
		{name: "rw", help: "read|write|randread|randwrite|rw|readwrite|randrw (default read)", apply: func(j *JobSpec, v string) error {
			j.OffsetModifier = 0
			if pattern, modifier, ok := strings.Cut(v, ":"); ok {
				m, err := parseOffsetModifier(modifier)
				if err != nil {
					return err
				}
				v, j.OffsetModifier = pattern, m
			}
			switch v {
			case "readwrite":
				v = RWMixed
			case RWRead, RWWrite, RWRandRead, RWRandWrite, RWMixed, RWRandMixed:
			default:
				return fmt.Errorf("unknown pattern %s (read, write, randread, randwrite, rw, readwrite, randrw)", excerpt(v))
			}
			j.RW = v
			return nil
		}},
		{name: "rwmixread", help: "percent of reads in a mixed job (default 50)", apply: numberOpt(percentKind, func(j *JobSpec, v int64) { j.RWMixRead = int(v) })},
		{name: "rwmixwrite", help: "percent of writes in a mixed job", apply: numberOpt(percentKind, func(j *JobSpec, v int64) { j.RWMixRead = 100 - int(v) })},
		{name: "bs", help: "block size (default 4k); READ,WRITE sizes apart (bs=8k,32k; an empty part is 4k; a third, for trims, is ignored)", apply: func(j *JobSpec, s string) error {
			sizes, err := parseDirectionSizes(s)
			if err != nil {
				return err
			}
			j.setBlockSizes(sizes)
			return nil
		}},
		{name: "bsrange", help: "block size range min-max; each IO draws its size from it", apply: func(j *JobSpec, s string) error {
			if err := rejectList(s); err != nil {
				return err
			}
			lo, hi, ok := strings.Cut(s, "-")
			if !ok {
				return fmt.Errorf("%s is not a range (want min-max, e.g. 4k-64k)", excerpt(s))
			}
			a, err := sizeKind.value(lo)
			if err != nil {
				return err
			}
			b, err := sizeKind.value(hi)
			if err != nil {
				return err
			}
			if a > b {
				a, b = b, a
			}
			j.BlockSize, j.BSMin, j.BSMax, j.BSByDirection = a, a, b, [2]int64{}
			return nil
		}},
		{name: "blockalign", help: "alignment of random offsets (default: minimum block size)", apply: func(j *JobSpec, s string) error {
			if err := rejectList(s); err != nil {
				return err
			}
			v, err := sizeKind.value(s)
			j.BlockAlign = v
			return err
		}},
		{name: "iodepth", help: "IOs in flight per clone (default 1)", apply: numberOpt(countKind(1), func(j *JobSpec, v int64) { j.IODepth = int(v) })},
		{name: "iodepth_batch_submit", help: "IOs handed to the kernel per submission (default 1: each as soon as it is prepared; 0: every free slot at once)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) {
			if v == 0 {
				v = maxSubmitBatch // fio's 0: up to iodepth
			}
			j.SubmitBatch = int(min(v, maxSubmitBatch))
		})},
		{name: "iodepth_batch_complete_min", help: "completions a wait reaps at least (default 1; 0 acts as 1, as fio's does with a full queue)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) {
			j.CompleteMin = int(min(v, maxSubmitBatch)) // a wait never reaps more than iodepth
		})},
		{name: "iodepth_batch_complete_max", help: "completions a wait reaps at most (default: iodepth_batch_complete_min; fio's default of 1 keeps the queue at its depth)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) {
			j.CompleteMax = int(min(v, maxSubmitBatch))
		})},
		{name: "numjobs", help: "clones of this job, each on its own thread (default 1)", apply: numberOpt(countKind(1), func(j *JobSpec, v int64) { j.NumJobs = int(v) })},
		{name: "runtime", help: "length of the measured phase (bare number = seconds)", apply: numberOpt(timeKind, func(j *JobSpec, v int64) { j.Runtime = time.Duration(v) })},
		{name: "ramp_time", help: "warm-up before measuring; stats are reset after it", apply: numberOpt(timeKind, func(j *JobSpec, v int64) { j.Ramp = time.Duration(v) })},
		{name: "stonewall", flag: true, help: "wait for the jobs before this one to finish, and start a new group", apply: boolOpt(func(j *JobSpec, v bool) { j.Stonewall = v })},
		{name: "new_group", flag: true, help: "start a new reporting group (groupid; group_reporting merges per group) without waiting", apply: boolOpt(func(j *JobSpec, v bool) { j.NewGroup = v })},
		{name: "time_based", flag: true, help: "run for runtime even when size is done", apply: boolOpt(func(j *JobSpec, v bool) { j.TimeBased = v })},
		{name: "direct", flag: true, help: "O_DIRECT (bypass the page cache)", apply: boolOpt(func(j *JobSpec, v bool) { j.Direct = v })},
		{name: "sync", flag: true, help: "synchronous writes: 1|sync = O_SYNC, dsync = O_DSYNC, 0|none", apply: func(j *JobSpec, s string) error {
			switch strings.ToLower(s) {
			case "dsync":
				j.Sync, j.DSync = false, true
			case "sync":
				j.Sync, j.DSync = true, false
			case "none":
				j.Sync, j.DSync = false, false
			default:
				v, err := parseBool(s)
				if err != nil {
					return fmt.Errorf("%s is not one of 0, 1, none, sync, dsync", excerpt(s))
				}
				j.Sync, j.DSync = v, false
			}
			return nil
		}},
		{name: "fsync", help: "fsync after this many writes (0 = never)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) { j.Fsync = int(v) })},
		{name: "fdatasync", help: "fdatasync (data, not the mtime) after this many writes (0 = never)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) { j.Fdatasync = int(v) })},
		{name: "rate_iops", help: "cap each clone at this many IOPS on an absolute schedule; READ,WRITE caps each direction apart (an empty part: none)", apply: func(j *JobSpec, s string) error {
			j.RateIOPSByDir = [2]int{}
			if strings.Contains(s, ",") {
				r, err := parseDirectionRates(s, rateKind)
				j.RateIOPS, j.RateIOPSByDir = 0, [2]int{int(r[0]), int(r[1])}
				return err
			}
			v, err := rateKind.value(s)
			j.RateIOPS = int(v)
			return err
		}},
		{name: "ioengine", help: "auto (default: io_uring, else libaio, else psync) | io_uring | libaio | psync; sync, pvsync and pvsync2 run psync (one pread or pwrite per IO, where fio's sync uses lseek and read, its pvsync preadv); null: no IO and no file, each IO completes at once (the engine's own cost per IO, as fio's null); mmap: the files mapped, each IO a copy to or from the mapping, fsync an msync, one IO at a time (fio's mmap); file engines: filecreate | filestat | filedelete | dircreate | dirstat | dirdelete, and storagebench's sb_fileread | sb_filerename (see docs/engine-job-files.md)", apply: func(j *JobSpec, v string) error {
			if _, ok := fileOpEngines[v]; ok {
				j.IOEngine = v
				return nil
			}
			switch v {
			case EngineAuto, EngineIOUring, EngineLibaio, EnginePsync, EngineNull, EngineMmap:
				j.IOEngine = v
				return nil
			case "sync", "pvsync", "pvsync2":
				// The same IOs at the same offsets, one system call
				// each, from one thread per clone; the echoed job
				// options keep the name given.
				j.IOEngine = EnginePsync
				return nil
			}
			return fmt.Errorf("unsupported engine %s (auto, io_uring, libaio, psync, sync, pvsync, pvsync2, null, mmap, %s)", excerpt(v), fileOpEngineNames())
		}},
		{name: "randrepeat", flag: true, help: "repeat the same random offsets every run (default 1)", apply: boolOpt(func(j *JobSpec, v bool) { j.RandRepeat = v })},
		{name: "randseed", help: "seed of the random generator (default fio's 0x89)", apply: func(j *JobSpec, s string) error {
			v, err := strconv.ParseUint(s, 0, 64)
			if err != nil {
				return fmt.Errorf("%s is not a seed: %w", excerpt(s), err)
			}
			j.RandSeed = v
			return nil
		}},
		{name: "zero_buffers", flag: true, help: "write zeros instead of scrambled random data", apply: boolOpt(func(j *JobSpec, v bool) { j.ZeroBuffers = v })},
		{name: "norandommap", flag: true, help: "accepted: offsets are always drawn uniformly without a coverage map", apply: acceptedFlag},
		{name: "cpus_allowed", help: "CPUs the job's threads may run on, as 0-3,6 (default: wherever the kernel puts them)", apply: func(j *JobSpec, v string) error {
			cpus, err := parseCPUList(v)
			j.CPUsAllowed = cpus
			return err
		}},
		{name: "cpus_allowed_policy", help: "shared (default: the job's threads share cpus_allowed) | split (one CPU each)", apply: func(j *JobSpec, v string) error {
			switch v {
			case CPUsShared, CPUsSplit:
				j.CPUsAllowedPolicy = v
				return nil
			}
			return fmt.Errorf("%s is not a policy (shared, split)", excerpt(v))
		}},
		{name: "thread", flag: true, help: "accepted: jobs always run as threads", apply: acceptedFlag},
		{name: "threads", help: "fio's alias of thread; fio 3.33 reads it only with a value (threads=1)", apply: boolOpt(func(*JobSpec, bool) {})},
		{name: "fill", help: "data set layout: ifmissing (default) | always | never (storagebench option)", apply: func(j *JobSpec, v string) error {
			switch strings.ToLower(v) {
			case FillIfMissing, FillAlways, FillNever:
				j.Fill = strings.ToLower(v)
				return nil
			}
			return fmt.Errorf("unknown policy %s (ifmissing, always, never)", excerpt(v))
		}},
	} {
		registerOption(o)
	}
}

// runOption is an option of the whole run: group_reporting and
// percentile_list are job options in fio but apply to the report, and
// output-format is command-line only.
type runOption struct {
	flag  bool
	help  string
	apply func(o *RunOptions, v string) error
}

var runOptions = map[string]runOption{
	"group_reporting": {flag: true, help: "report all jobs and clones as one merged entry", apply: func(o *RunOptions, v string) error {
		b, err := parseBool(v)
		o.GroupReporting = o.GroupReporting || b
		return err
	}},
	"percentile_list": {help: "colon-separated percentiles to report (default fio's list)", apply: func(o *RunOptions, v string) error {
		var list []float64
		for _, p := range strings.Split(v, ":") {
			f, err := strconv.ParseFloat(p, 64)
			if err != nil || !(f >= 0 && f <= 100) {
				return fmt.Errorf("%s is not a percentile between 0 and 100", excerpt(p))
			}
			list = append(list, f)
		}
		if len(list) == 0 || len(list) > 64 {
			return fmt.Errorf("want 1 to 64 percentiles")
		}
		o.PercentileList = list
		return nil
	}},
}

// cliOnly are accepted on the command line but not in job files.
var cliOnly = map[string]runOption{
	"output-format": {help: "normal (default) | json | json+", apply: func(o *RunOptions, v string) error {
		switch v {
		case "normal", "json", "json+":
			o.OutputFormat = v
			return nil
		}
		return fmt.Errorf("unsupported output format %s (normal, json, json+)", excerpt(v))
	}},
}

// canonicalName resolves aliases.
func canonicalName(name string) string {
	if c, ok := optionAliases[name]; ok {
		return c
	}
	return name
}

// isFlag tells whether an option may be given without a value.
func isFlag(name string) bool {
	if o, ok := jobOptions[name]; ok {
		return o.flag
	}
	if o, ok := runOptions[name]; ok {
		return o.flag
	}
	return false
}

// knownOption tells whether name is any option we accept on the command
// line.
func knownOption(name string) bool {
	_, j := jobOptions[name]
	_, r := runOptions[name]
	_, c := cliOnly[name]
	return j || r || c
}

// ParseArgs parses a fio-style command line: options before the first
// --name are global, each --name starts a new job that inherits them, and
// positional arguments are fio job files (read from disk; the first runs
// beside the command line's jobs with its global options, each later one
// as a group of its own after the jobs before it, as fio runs them). Options
// are given as --opt=value, --opt value, or --flag for flags. Unknown or
// unsupported options are an error naming the option. All errors wrap
// ErrUsage.
func ParseArgs(args []string) ([]JobSpec, RunOptions, error) {
	p := newParser()
	keywords := newKeywordExpander()
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			files = append(files, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		name = canonicalName(name)
		if !knownOption(name) {
			return nil, RunOptions{}, fmt.Errorf("%w: %w (see --help)", ErrUsage, unknownOption(name, "--"+name))
		}
		bare := !hasValue && isFlag(name)
		if !hasValue {
			switch {
			case bare:
				value = "1"
			case i+1 < len(args) && !strings.HasPrefix(args[i+1], "--"):
				i++
				value = args[i]
			default:
				return nil, RunOptions{}, fmt.Errorf("%w: option --%s needs a value", ErrUsage, name)
			}
		}
		expanded, err := keywords(value)
		if err != nil {
			return nil, RunOptions{}, fmt.Errorf("%w: --%s=%s: %w", ErrUsage, name, excerptValue(value), err)
		}
		value = expanded
		if err := p.set(name, value, true); err != nil {
			return nil, RunOptions{}, fmt.Errorf("%w: --%s=%s: %w", ErrUsage, name, excerptValue(value), err)
		}
		if bare {
			p.unrecord(name)
		}
	}
	jobs, err := p.finish("command line")
	if err != nil {
		return nil, RunOptions{}, err
	}
	for i, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, RunOptions{}, fmt.Errorf("%w: job file: %w", ErrUsage, err)
		}
		// As fio does: the first job file's jobs start from the command
		// line's global options and run beside its jobs; every later
		// file starts from the defaults and is a group of its own, run
		// after the jobs before it.
		globals := defaultJob()
		if i == 0 {
			globals = p.global
		}
		fileJobs, fileOpts, err := parseJobFileFrom(fh, f, globals)
		fh.Close()
		if err != nil {
			return nil, RunOptions{}, err
		}
		if i > 0 {
			fileJobs[0].Stonewall = true
		}
		jobs = append(jobs, fileJobs...)
		p.opts.GroupReporting = p.opts.GroupReporting || fileOpts.GroupReporting
		if fileOpts.PercentileList != nil && p.opts.PercentileList == nil {
			p.opts.PercentileList = fileOpts.PercentileList
		}
		for k, v := range fileOpts.GlobalOptions {
			p.opts.GlobalOptions[k] = v
		}
	}
	if len(jobs) == 0 {
		return nil, RunOptions{}, fmt.Errorf("%w: no job given (use --name=... with options, or a job file)", ErrUsage)
	}
	if err := checkUniqueNames(jobs); err != nil {
		return nil, RunOptions{}, err
	}
	p.opts.fillDefaults()
	return jobs, p.opts, nil
}

// parser accumulates global options and jobs, for both the command line
// and job files.
type parser struct {
	global JobSpec
	cur    *JobSpec
	jobs   []JobSpec
	opts   RunOptions
	// lines are the job sections' line numbers (job files only), so that
	// validation errors can point at file:line.
	lines []int
}

func newParser() *parser {
	return &parser{global: defaultJob(), opts: RunOptions{GlobalOptions: map[string]string{}}}
}

// set applies one option to the current job (or the global section when no
// job was started). cli says whether command-line-only options are allowed.
func (p *parser) set(name, value string, cli bool) error {
	if o, ok := cliOnly[name]; ok {
		if !cli {
			return fmt.Errorf("%s is a command-line option, not a job option", name)
		}
		return o.apply(&p.opts, value)
	}
	if o, ok := runOptions[name]; ok {
		p.record(name, value)
		return o.apply(&p.opts, value)
	}
	if name == "name" && cli {
		p.startJob(value)
	}
	o, ok := jobOptions[name]
	if !ok {
		return unknownOption(name, name)
	}
	target := &p.global
	if p.cur != nil {
		target = p.cur
	}
	p.record(name, value)
	return o.apply(target, value)
}

// record remembers an option as given, for fio's "job options" and
// "global options" echo.
func (p *parser) record(name, value string) {
	if p.cur != nil {
		p.cur.Options[name] = value
	} else {
		p.opts.GlobalOptions[name] = value
	}
}

// unrecord drops an option from the echo: fio echoes only options given
// with a value, not bare flags (time_based, stonewall, thread).
func (p *parser) unrecord(name string) {
	if p.cur != nil {
		delete(p.cur.Options, name)
	} else {
		delete(p.opts.GlobalOptions, name)
	}
}

// startJob closes the current job and starts one inheriting the globals.
func (p *parser) startJob(name string) {
	p.closeJob()
	j := p.global
	j.Filenames = append([]string(nil), p.global.Filenames...)
	j.Options = map[string]string{}
	j.Name = name
	p.cur = &j
}

func (p *parser) closeJob() {
	if p.cur != nil {
		p.jobs = append(p.jobs, *p.cur)
		p.cur = nil
	}
}

// finish validates the collected jobs; where names the source for errors.
func (p *parser) finish(where string) ([]JobSpec, error) {
	p.closeJob()
	for i := range p.jobs {
		err := p.jobs[i].resolve()
		if err == nil {
			err = p.jobs[i].validate()
		}
		if err != nil {
			if i < len(p.lines) {
				where = fmt.Sprintf("%s:%d", where, p.lines[i])
			}
			return nil, fmt.Errorf("%w: %s: %w", ErrUsage, where, err)
		}
	}
	return p.jobs, nil
}

func checkUniqueNames(jobs []JobSpec) error {
	seen := map[string]bool{}
	for _, j := range jobs {
		stem := j.fileStem()
		if seen[stem] && len(j.Filenames) == 0 && !j.Stonewall {
			// Generated file names derive from the job name: two jobs
			// with one name running together would share files by
			// accident. After a stonewall the sharing is the point
			// (fio's file engines: create, then stat, then delete).
			return fmt.Errorf("%w: two jobs are named %q, use generated files and run at the same time; give them distinct names (or stonewall the later one)", ErrUsage, stem)
		}
		seen[stem] = true
	}
	return nil
}

func (o *RunOptions) fillDefaults() {
	if o.PercentileList == nil {
		o.PercentileList = append([]float64(nil), DefaultPercentiles...)
	}
	if o.OutputFormat == "" {
		o.OutputFormat = "normal"
	}
	if o.Interval <= 0 {
		o.Interval = defaultInterval
	}
}

// HelpText lists the supported options, for `storagebench engine --help`.
func HelpText() string {
	var b strings.Builder
	b.WriteString(`Usage: storagebench engine [global options] --name=JOB [job options] ... [jobfile ...]

Runs fio-compatible IO jobs with storagebench's engine. The options have fio's
names and meanings, so the same argument list works for fio; options before the
first --name are global, each --name starts a job. Job files are read as fio
reads them: [global] and job sections, a comment from the first ; or #
anywhere on a line, name= to rename a job (its files keep the section's name),
"include FILE" relative to the including file, ${VAR} from the environment
(empty when unset) and $pagesize, $mb_memory, $ncpus. Jobs run concurrently
except across a stonewall (or wait_for_previous): the jobs after it start when
those before it have finished. As in fio, the first job file's jobs inherit
the command line's global options and run beside its jobs; each later job
file starts from the defaults and is a group of its own, run after the jobs
before it.
Sizes take fio's units (4k = 4096; as in fio, kib/mib/gib mean powers of 1000);
times take us, ms, s, m, h (a bare number is seconds).

Job options:
`)
	names := make([]string, 0, len(jobOptions))
	for n := range jobOptions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := jobOptions[n]
		arg := "=VALUE"
		if o.flag {
			arg = "[=0|1]"
		}
		fmt.Fprintf(&b, "  --%-28s %s\n", n+arg, o.help)
	}
	b.WriteString("\nReport options:\n")
	for _, n := range []string{"group_reporting", "percentile_list"} {
		arg := "=VALUE"
		if runOptions[n].flag {
			arg = "[=0|1]"
		}
		fmt.Fprintf(&b, "  --%-28s %s\n", n+arg, runOptions[n].help)
	}
	fmt.Fprintf(&b, "  --%-28s %s\n", "output-format=FORMAT", cliOnly["output-format"].help)
	b.WriteString(`
Aliases: blocksize=bs, readwrite=rw, blocksize_range=bsrange, ba=blockalign,
nr_files=nrfiles, timeout=runtime, wait_for_previous=stonewall, io_limit=io_size.

Exit status: 0 success, 1 the run failed (partial results are still printed),
3 usage error.
`)
	return b.String()
}
