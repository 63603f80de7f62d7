// Package engine is storagebench's IO engine: a fio-compatible workload
// model (options, job files), io_uring / libaio / psync backends driven by
// one locked OS thread per job, exact mergeable latency histograms, pacing
// without coordinated omission, and fio's JSON layout with a storagebench
// extension (see engine/result).
//
// Client pods and the local runner use it as a library: Prepare lays the
// data set out (so that "ready" means ready), then Run executes one matrix
// cell at a time. The `storagebench engine` command is a thin wrapper.
package engine

import (
	"fmt"
	"math"
	"time"
)

// Access patterns, with fio's names.
const (
	RWRead      = "read"
	RWWrite     = "write"
	RWRandRead  = "randread"
	RWRandWrite = "randwrite"
	RWMixed     = "rw" // sequential mix; fio also calls it "readwrite"
	RWRandMixed = "randrw"
)

// Backend names accepted by --ioengine.
const (
	EngineAuto    = "auto"
	EngineIOUring = "io_uring"
	EngineLibaio  = "libaio"
	EnginePsync   = "psync"
	// EngineNull does no IO at all (fio's null engine): no files are
	// opened or laid out, and each IO completes at once.
	EngineNull = "null"
	// EngineMmap maps the files and copies to and from the mapping
	// (fio's mmap engine), one IO at a time.
	EngineMmap = "mmap"
)

// diskless reports whether the job's engine touches no file (fio's
// FIO_DISKLESSIO): its files are names and sizes only.
func (j *JobSpec) diskless() bool { return j.IOEngine == EngineNull }

// Fill policies for the data set (--fill).
const (
	// FillIfMissing lays files out unless a complete (non-sparse) file of
	// at least the needed size already exists.
	FillIfMissing = "ifmissing"
	// FillAlways rewrites the data set before the run.
	FillAlways = "always"
	// FillNever refuses to create or extend files: they must exist.
	FillNever = "never"
)

// DefaultPercentiles is fio's default percentile list.
var DefaultPercentiles = []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// fioDefaultSeed is fio's default random seed (randseed), used while
// randrepeat is on so that runs repeat the same offsets.
const fioDefaultSeed = 0x89

// JobSpec is one fully resolved job section: fio's options after global
// inheritance and defaults. NumJobs clones of it run, each on its own
// worker thread.
type JobSpec struct {
	// Name is the job's name (--name, or the job file's section).
	Name string
	// FileStem, when set, names the generated files instead of Name: a job
	// file's section name, which a name= in the section does not change
	// (fio names the files after the section).
	FileStem string
	// Filenames are explicit files or block devices (--filename, fio's
	// colon-separated list). All NumJobs clones share them. When empty,
	// each clone uses NrFiles files named "<name>.<clone>.<n>" in Directory.
	Filenames []string
	// Directory is where generated files live, and the prefix of relative
	// Filenames (fio's behaviour).
	Directory string
	// NrFiles is the number of generated files per clone (default 1).
	NrFiles int
	// Size is the bytes of IO region per clone, split evenly over its
	// files; 0 means the size of the existing file or device.
	Size int64
	// FileSize, when set, is the length of every generated or given file's
	// IO region (fio's filesize); Size then is only how much IO to do.
	FileSize int64
	// IOSize is how many bytes of IO a clone does (fio's io_size, io_limit;
	// default Size, or the files' lengths): more than the region wraps
	// around it. Loops repeats the job's IO that many times (default 1).
	// NumberIOs stops a clone after that many reads and writes, if it has
	// not stopped before (0: no such limit). All count from the end of
	// the ramp.
	IOSize    int64
	Loops     int
	NumberIOs int64
	// StartDelay delays the job's start, ramp included (fio's startdelay).
	StartDelay time.Duration
	// Offset is where the IO region starts in every file.
	Offset int64
	// RW is fio's access pattern: read, write, randread, randwrite, rw
	// (readwrite) or randrw.
	RW string
	// RWMixRead is the percentage of reads in rw/randrw (default 50).
	RWMixRead int
	// BlockSize is the fixed block size; when BSMin < BSMax the size of
	// each IO is drawn from [BSMin, BSMax] (--bsrange) in multiples of
	// BSMin's alignment, and BlockSize equals BSMin.
	BlockSize, BSMin, BSMax int64
	// BSByDirection is bs=READ,WRITE: the read and the write size, where
	// they differ (zero otherwise); BSMin and BSMax then span both.
	BSByDirection [2]int64
	// BlockAlign aligns random offsets (default: BSMin).
	BlockAlign int64
	// BSStep, when set, is the step between the sizes a bsrange draws:
	// BSMin, BSMin+BSStep, ..., BSMax. It is the StorageBenchmark API's
	// blockSizeRange.alignment (sizes in steps of alignment, as Elastifile's
	// --io-alignment); fio has no such option, and 0 keeps fio's rule.
	BSStep int64
	// Stonewall makes the job wait until every job before it has finished
	// (fio's stonewall, wait_for_previous), and starts a new group.
	// NewGroup starts a new reporting group without waiting (new_group).
	// Jobs of one group run concurrently; groups run one after another.
	Stonewall, NewGroup bool
	// IODepth is the number of IOs kept in flight per clone.
	IODepth int
	// SubmitBatch is how many prepared IOs go to the kernel in one
	// submission (fio's iodepth_batch_submit): 0 is fio's default, 1;
	// anything above IODepth submits every free slot at once (fio's 0,
	// stored as maxSubmitBatch).
	SubmitBatch int
	// CompleteMin and CompleteMax bound the completions one wait reaps
	// (fio's iodepth_batch_complete_min and _max). 0 is fio's default:
	// at least one (fio waits for one with a full queue even at 0), and
	// at most CompleteMin.
	CompleteMin, CompleteMax int
	// NumJobs is the number of clones.
	NumJobs int
	// Runtime bounds the measured phase (after Ramp); 0 = until Size bytes
	// are done. With TimeBased the job runs for Runtime regardless of Size.
	Runtime, Ramp time.Duration
	// TimeBased repeats the workload until Runtime passes.
	TimeBased bool
	// Direct opens files with O_DIRECT.
	Direct bool
	// Sync opens files with O_SYNC (fio's sync=1 / sync=sync); DSync with
	// O_DSYNC (sync=dsync). Both make every write durable before it
	// completes.
	Sync, DSync bool
	// Fsync issues an fsync after every Fsync writes, Fdatasync an
	// fdatasync after every Fdatasync writes (0 = never); where both fall
	// on the same write, the fsync.
	Fsync, Fdatasync int
	// RateBytes caps each clone's bandwidth (fio's rate); with one block
	// size it is RateIOPS = RateBytes / bs, set when the job is resolved.
	RateBytes int64
	// RandomDistribution spreads a random job's offsets (fio's
	// random_distribution); the zero value is uniform.
	RandomDistribution Distribution
	// PercentSequential is the share of a random job's IOs that continue
	// sequentially after the previous one (100 - fio's percentage_random).
	PercentSequential int
	// OffsetModifier is rw=PATTERN:N: a random pattern takes a new random
	// offset every N IOs, the ones between continuing sequentially from
	// it (or at the same offset with SameOffset, fio's
	// rw_sequencer=identical); a sequential pattern leaves N bytes
	// untouched after each IO. 0 (and 1 for random) is none.
	OffsetModifier int64
	SameOffset     bool
	// OffsetIncrement moves clone c's region to Offset + c*OffsetIncrement.
	OffsetIncrement int64
	// BSSplit, when set, draws each IO's size from these shares (fio's
	// bssplit); BSMin and BSMax are then its smallest and largest size.
	BSSplit []BlockSizeShare
	// EndFsync fsyncs the files once the job's IO is done (end_fsync,
	// fsync_on_close). Unlink removes its regular files after the run.
	EndFsync, Unlink bool
	// Invalidate drops the files' cached pages before a buffered job
	// starts (fio's invalidate, on by default in fio's defaults; jobs the
	// operator's plans build leave it off). NoFileCreate refuses to create
	// a missing file (allow_file_create=0).
	Invalidate, NoFileCreate bool
	// NoSpinWait has a worker sleep for a completion at once instead of
	// first looking for it for a moment (sb_spin_wait=0; spin_wait.go).
	NoSpinWait bool
	// ExitAll stops the other jobs of the group when this one finishes;
	// ExitAllOnError when it fails (exitall, exitall_on_error).
	ExitAll, ExitAllOnError bool
	// RateIOPS caps each clone at this many IOs per second on an absolute
	// schedule (0 = unpaced).
	RateIOPS int
	// RateIOPSByDir and RateBytesByDir are rate_iops=READ,WRITE and
	// rate=READ,WRITE (rate_direction.go): caps per direction, 0 none;
	// RateBytesByDir becomes RateIOPSByDir when the job is resolved.
	RateIOPSByDir  [2]int
	RateBytesByDir [2]int64
	// IOEngine is auto, io_uring, libaio or psync.
	IOEngine string
	// RandRepeat seeds the generator with RandSeed so runs repeat the same
	// offsets (fio's default); off seeds it from the clock.
	RandRepeat bool
	// RandSeed is the base seed; each clone derives its own from it.
	RandSeed uint64
	// ZeroBuffers writes zeros instead of scrambled random data.
	ZeroBuffers bool
	// Content is what else shapes written buffers (buffer_content.go).
	Content BufferContent
	// Fill is the data set policy: ifmissing, always or never.
	Fill string
	// StatType is the system call filestat and dirstat time: stat
	// (default), lstat or statx (fio's stat_type).
	StatType string
	// RandomFileOrder picks files at random instead of in turn (fio's
	// file_service_type=random); the file engines then visit every file
	// once per pass in a random order, as fio's skipping of done files
	// makes its random choice.
	RandomFileOrder bool
	// FileService is file_service_type for IO jobs (file_service.go; ""
	// is roundrobin), FileServiceEvery its :N (IOs per choice; 0 is 1).
	FileService      string
	FileServiceEvery int64
	// FilesPerDir, when set, spreads generated files over subdirectories
	// of the job's directory holding that many each (storagebench's
	// sb_files_per_dir; fio has no directory fan-out).
	FilesPerDir int
	// OpenFiles is fio's openfiles: how many files a clone keeps open at
	// once. The file engines keep none open between operations; IO jobs
	// keep all of theirs, so less than their file count is refused.
	OpenFiles int
	// CreateOnOpen leaves a file engine's missing names to the operation
	// (fio's create_on_open: nothing is laid out beforehand).
	CreateOnOpen bool
	// CreateWrite makes filecreate write FileSize bytes into each new
	// file before closing it, timed with the create (sb_create_write;
	// fio's filecreate writes nothing).
	CreateWrite bool
	// CPUsAllowed restricts the job's threads to these CPUs (fio's
	// cpus_allowed); empty, anywhere (see affinity.go). CPUsAllowedPolicy
	// is shared or split.
	CPUsAllowed       []int
	CPUsAllowedPolicy string
	// LatencyTarget, when set, makes each clone search for the deepest
	// queue (up to IODepth) at which its IOs meet this latency (fio's
	// latency_target; see latency_target.go). LatencyWindow is how long
	// each depth is judged, LatencyPercentile the share of a window's IOs
	// that must meet it (default 100), and LatencyRun keeps searching
	// until the job ends instead of ending it once the depth is found.
	LatencyTarget, LatencyWindow time.Duration
	LatencyPercentile            float64
	LatencyRun                   bool
	// SteadyState ends the job (with group_reporting, its reporting
	// group) once the last SteadyDuration of 1 s IOPS or bandwidth
	// samples meet its criterion, the samples starting after SteadyRamp
	// (fio's steadystate, ss_dur, ss_ramp; see steady_state.go). A zero
	// SteadyDuration leaves it off.
	SteadyState                SteadyStateCriterion
	SteadyDuration, SteadyRamp time.Duration
	// Think is fio's thinktime (see thinktime.go).
	Think ThinkTime
	// Verify is fio's data verification (see verify.go).
	Verify VerifySpec
	// RateMin is fio's rate_min and rate_iops_min (see rate_min.go).
	RateMin RateMin
	// Logs are fio's write_bw_log, write_iops_log and write_lat_log (see
	// io_logs.go).
	Logs IOLogs
	// threadBase is how many clones the run's jobs before this one have,
	// which numbers its log files as fio numbers its threads.
	threadBase int
	// WaitFor names an earlier job whose clones must all finish before
	// this job starts (fio's wait_for; see wait_for.go).
	WaitFor string
	// RateProcess is how paced IOs are spread: RateProcessLinear (even
	// gaps, the default) or RateProcessPoisson (fio's rate_process).
	RateProcess string
	// Options are the options given for this job (not inherited from the
	// global section), echoed as fio's "job options".
	Options map[string]string
}

// RunOptions are the settings of a whole run rather than of one job.
type RunOptions struct {
	// GroupReporting merges all jobs and clones into one reported entry
	// (exactly, by histogram merge), as fio's group_reporting does for a
	// group.
	GroupReporting bool
	// PercentileList are the percentiles reported (default fio's list).
	PercentileList []float64
	// OutputFormat is normal, json or json+.
	OutputFormat string
	// Interval is the time-series interval (default 1 s).
	Interval time.Duration
	// GlobalOptions are the global options given, echoed as fio's
	// "global options".
	GlobalOptions map[string]string
}

// defaultInterval is the time-series interval when RunOptions leaves it 0.
const defaultInterval = time.Second

// maxSubmitBatch is the largest iodepth_batch_submit and
// iodepth_batch_complete_min and _max, iodepth's maximum: a larger one
// submits or reaps no more at once.
const maxSubmitBatch = 4096

// submitEvery is how many prepared IOs one submission takes at a queue
// depth of depth: iodepth_batch_submit, 1 when unset, at most depth.
func (j *JobSpec) submitEvery(depth int) int {
	if j.SubmitBatch == 0 {
		return 1
	}
	return min(j.SubmitBatch, depth)
}

// reapBounds is how many completions one wait reaps at a queue depth of
// depth: at least lo, at most hi (iodepth_batch_complete_min and _max).
// fio's default is one of each: it reaps one completion and refills its
// slot, so the queue stays at its depth; reaping every completion there
// is refills several slots one after another, each submitted with fewer
// IOs in flight.
func (j *JobSpec) reapBounds(depth int) (lo, hi int) {
	lo = max(j.CompleteMin, 1)
	hi = j.CompleteMax
	if hi == 0 {
		hi = lo
	}
	return min(lo, depth), min(hi, depth)
}

// defaultJob is fio's defaults plus ours (ioengine auto, fill ifmissing).
func defaultJob() JobSpec {
	return JobSpec{
		NrFiles:    1,
		RW:         RWRead,
		RWMixRead:  50,
		BlockSize:  4096,
		BSMin:      4096,
		BSMax:      4096,
		IODepth:    1,
		NumJobs:    1,
		IOEngine:   EngineAuto,
		RandRepeat: true,
		RandSeed:   fioDefaultSeed,
		Fill:       FillIfMissing,
		Invalidate: true,
		// fio's defaults: every IO must meet a latency_target, and a
		// steady state is a slope under 0.01 % of the mean IOPS.
		LatencyPercentile: 100,
		SteadyState:       defaultSteadyState,
	}
}

// maxStartDelay bounds startdelay (the clock's arithmetic must not wrap);
// maxSplitSizes and maxZones bound the lists a draw walks per IO (fio's
// bounds are 64 sizes and 256 zones).
const (
	maxStartDelay = 100 * 365 * 24 * time.Hour
	maxSplitSizes = 64
	maxZones      = 256
)

func hasShare(shares []BlockSizeShare) bool {
	for _, sh := range shares {
		if sh.Percent > 0 {
			return true
		}
	}
	return false
}

// BlockSizeShare is one entry of bssplit: a block size and the percentage
// of IOs of that size.
type BlockSizeShare struct {
	Size    int64
	Percent int
}

// resolve turns options that depend on others into what the engine runs,
// once all of a job's options are read: bssplit's sizes win over bs and
// bsrange whatever their order (as in fio), and rate becomes rate_iops for
// the job's block size. It may be called again: rate is consumed.
func (j *JobSpec) resolve() error {
	j.Logs.resolveNames(j.Name)
	if len(j.BSSplit) > 0 {
		j.BSByDirection = [2]int64{}
		j.BSMin, j.BSMax = j.BSSplit[0].Size, j.BSSplit[0].Size
		for _, sh := range j.BSSplit {
			j.BSMin, j.BSMax = min(j.BSMin, sh.Size), max(j.BSMax, sh.Size)
		}
		j.BlockSize, j.BSStep = j.BSMin, 0
	}
	if j.BSMin <= 0 {
		return nil // a bad block size is validate's to report
	}
	if err := j.resolveDirectionRates(); err != nil {
		return err
	}
	if j.RateBytes == 0 {
		return nil
	}
	switch {
	case j.RateIOPS > 0 || j.ratesByDirection():
		return fmt.Errorf("job %q: rate and rate_iops: give one", j.Name)
	case j.BSMin != j.BSMax:
		return fmt.Errorf("job %q: rate: a bandwidth cap needs one block size here (bs); with bsrange, bssplit or sizes per direction give rate_iops", j.Name)
	}
	j.RateIOPS = int(min(max(1, (j.RateBytes+j.BSMin/2)/j.BSMin), math.MaxInt32))
	j.RateBytes = 0
	return nil
}

// isRandom reports whether offsets are random.
func (j *JobSpec) isRandom() bool {
	return j.RW == RWRandRead || j.RW == RWRandWrite || j.RW == RWRandMixed
}

// readPercent is the share of reads: 100 for read jobs, 0 for write jobs.
func (j *JobSpec) readPercent() int {
	switch j.RW {
	case RWRead, RWRandRead:
		return 100
	case RWWrite, RWRandWrite:
		return 0
	}
	return j.RWMixRead
}

// validate checks a resolved job for values no option parser can catch
// alone (combinations). Errors name the job and the option.
func (j *JobSpec) validate() error {
	bad := func(opt, format string, a ...any) error {
		return fmt.Errorf("job %q: %s: %s", j.Name, opt, fmt.Sprintf(format, a...))
	}
	switch {
	case j.Name == "":
		return fmt.Errorf("a job has no name (give --name before its options)")
	case j.BSMin <= 0 || j.BSMax < j.BSMin:
		return bad("bs", "block size must be positive (bsrange min <= max)")
	case j.BSMax > 1<<30:
		return bad("bs", "block size %d is larger than 1 GiB", j.BSMax)
	case j.BlockAlign < 0:
		return bad("blockalign", "must not be negative")
	case j.BSStep < 0 || (j.BSStep > 0 && ((j.BSMax-j.BSMin)%j.BSStep != 0)):
		return bad("bsrange", "size step %d does not divide the range %d-%d", j.BSStep, j.BSMin, j.BSMax)
	case j.IODepth < 1 || j.IODepth > 4096:
		return bad("iodepth", "%d is outside 1..4096", j.IODepth)
	case j.SubmitBatch < 0 || j.SubmitBatch > maxSubmitBatch:
		return bad("iodepth_batch_submit", "%d is outside 0..%d", j.SubmitBatch, maxSubmitBatch)
	case j.CompleteMin < 0 || j.CompleteMin > maxSubmitBatch:
		return bad("iodepth_batch_complete_min", "%d is outside 0..%d", j.CompleteMin, maxSubmitBatch)
	case j.CompleteMax < 0 || j.CompleteMax > maxSubmitBatch:
		return bad("iodepth_batch_complete_max", "%d is outside 0..%d", j.CompleteMax, maxSubmitBatch)
	case j.CompleteMax > 0 && j.CompleteMax < j.CompleteMin:
		return bad("iodepth_batch_complete_max", "%d is below iodepth_batch_complete_min (%d)", j.CompleteMax, j.CompleteMin)
	case j.NumJobs < 1 || j.NumJobs > 1024:
		return bad("numjobs", "%d is outside 1..1024", j.NumJobs)
	case j.NrFiles < 1 || j.NrFiles > 65536:
		return bad("nrfiles", "%d is outside 1..65536", j.NrFiles)
	case j.RWMixRead < 0 || j.RWMixRead > 100:
		return bad("rwmixread", "%d is outside 0..100", j.RWMixRead)
	case j.Size < 0 || j.Offset < 0:
		return bad("size/offset", "must not be negative")
	case j.FileSize < 0 || j.IOSize < 0 || j.NumberIOs < 0 || j.Loops < 0 || j.StartDelay < 0:
		return bad("filesize/io_size/number_ios/loops/startdelay", "must not be negative")
	case j.FileSize > 0 && j.FileSize < j.BSMax && !j.isFileOp():
		return bad("filesize", "%d bytes is less than one block (%d bytes)", j.FileSize, j.BSMax)
	case j.OffsetIncrement > 0 && (math.MaxInt64-j.Offset)/j.OffsetIncrement < int64(max(j.NumJobs-1, 0)):
		return bad("offset_increment", "offset + offset_increment x numjobs overflows")
	case j.StartDelay > maxStartDelay:
		return bad("startdelay", "%v is more than %v", j.StartDelay, maxStartDelay)
	case len(j.BSSplit) > maxSplitSizes:
		return bad("bssplit", "%d sizes, more than %d", len(j.BSSplit), maxSplitSizes)
	case len(j.BSSplit) > 0 && !hasShare(j.BSSplit):
		return bad("bssplit", "every share is 0%%")
	case len(j.RandomDistribution.Zones) > maxZones:
		return bad("random_distribution", "%d zones, more than %d", len(j.RandomDistribution.Zones), maxZones)
	case j.Runtime < 0 || j.Ramp < 0:
		return bad("runtime/ramp_time", "must not be negative")
	case j.TimeBased && j.Runtime == 0:
		return bad("time_based", "needs a runtime")
	case j.Fsync < 0:
		return bad("fsync", "must not be negative")
	case j.Fdatasync < 0:
		return bad("fdatasync", "must not be negative")
	case j.RateIOPS > 0 && j.ratesByDirection():
		return bad("rate_iops", "one cap, or one per direction (READ,WRITE): not both")
	case j.RateIOPS < 0 || j.RateBytes < 0:
		return bad("rate_iops/rate", "must not be negative")
	case j.PercentSequential < 0 || j.PercentSequential > 100:
		return bad("percentage_random", "%d is outside 0..100", 100-j.PercentSequential)
	case j.OffsetIncrement < 0:
		return bad("offset_increment", "must not be negative")
	case j.Sync && j.DSync:
		return bad("sync", "sync and dsync are exclusive")
	}
	switch j.RW {
	case RWRead, RWWrite, RWRandRead, RWRandWrite, RWMixed, RWRandMixed:
	default:
		return bad("rw", "unknown pattern %q", j.RW)
	}
	switch j.IOEngine {
	case EngineAuto, EngineIOUring, EngineLibaio, EnginePsync, EngineNull, EngineMmap:
	default:
		if !j.isFileOp() {
			return bad("ioengine", "unsupported engine %q (supported: auto, io_uring, libaio, psync, null, %s)", j.IOEngine, fileOpEngineNames())
		}
	}
	if err := j.validateFileOp(); err != nil {
		return err
	}
	if err := j.validateLatencyTarget(); err != nil {
		return err
	}
	if err := j.validateSteadyState(); err != nil {
		return err
	}
	if err := j.validateThinkTime(); err != nil {
		return err
	}
	if err := j.validateRateMin(); err != nil {
		return err
	}
	if err := j.validateVerify(); err != nil {
		return err
	}
	if err := j.validateContent(); err != nil {
		return err
	}
	switch j.Fill {
	case FillIfMissing, FillAlways, FillNever:
	default:
		return bad("fill", "unknown policy %q (ifmissing, always, never)", j.Fill)
	}
	if j.isFileOp() {
		return nil // no IO region: the files' sizes are filesize, or 0
	}
	if len(j.Filenames) == 0 && j.Size == 0 && j.FileSize == 0 {
		return bad("size", "needed when no existing --filename is given (or filesize)")
	}
	if j.FileSize == 0 && j.Size > 0 && j.Size/int64(j.fileCount()) < j.BSMax {
		return bad("size", "%d bytes over %d file(s) leaves less than one block (%d bytes) per file", j.Size, j.fileCount(), j.BSMax)
	}
	return nil
}

// fileCount is the number of files each clone spreads its IO over.
func (j *JobSpec) fileCount() int {
	if len(j.Filenames) > 0 {
		return len(j.Filenames)
	}
	return j.NrFiles
}

// fileStem is what the job's generated files are named after.
func (j *JobSpec) fileStem() string {
	if j.FileStem != "" {
		return j.FileStem
	}
	return j.Name
}

// ioBytes is how many bytes of IO a clone does when the job is not time
// based, given the lengths of its files' regions, as fio counts them:
// io_size, else size, else the regions; times loops.
func (j *JobSpec) ioBytes(regions int64) int64 {
	amount := regions
	switch {
	case j.IOSize > 0:
		amount = j.IOSize
	case j.Size > 0:
		amount = j.Size
	}
	loops := int64(max(j.Loops, 1))
	if amount > math.MaxInt64/loops {
		return math.MaxInt64 // more than can ever be done
	}
	return amount * loops
}

// share is lane's part of n split over lanes, the first n%lanes lanes
// taking one more: the parts add up to n.
func share(n int64, lane, lanes int) int64 {
	part := n / int64(lanes)
	if int64(lane) < n%int64(lanes) {
		part++
	}
	return part
}
