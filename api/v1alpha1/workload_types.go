package v1alpha1

// WorkloadGroup is a named group of IO patterns. It expands to the cartesian
// product of blockSizes (or its one blockSizeRange) x readPercents x
// queueDepths x numJobs: its cells. A Metadata group expands to its
// metadata.operations x numJobs instead. Every cell runs on every target
// the group runs on (its targets, default all). A group with latencyTarget
// has no cells: it is a search per block size and read mix.
//
// +kubebuilder:validation:XValidation:rule="(has(self.kind) && self.kind == 'Metadata') || has(self.blockSizes) != has(self.blockSizeRange)",message="a workload needs exactly one of blockSizes or blockSizeRange"
// +kubebuilder:validation:XValidation:rule="(has(self.kind) && self.kind == 'Metadata') || has(self.readPercents)",message="an IO workload needs readPercents",fieldPath=".readPercents"
// +kubebuilder:validation:XValidation:rule="(has(self.kind) && self.kind == 'Metadata') == has(self.metadata)",message="kind: Metadata needs metadata (its operations), and metadata needs kind: Metadata",fieldPath=".metadata"
// +kubebuilder:validation:XValidation:rule="!(has(self.kind) && self.kind == 'Metadata') || !(has(self.blockSizes) || has(self.blockSizeRange) || has(self.readPercents) || has(self.rateIOPS) || has(self.concurrentWith))",message="a Metadata workload has no blockSizes, blockSizeRange, readPercents, rateIOPS or concurrentWith: its cells are metadata.operations x numJobs",fieldPath=".kind"
// +kubebuilder:validation:XValidation:rule="!has(self.concurrentWith) || self.concurrentWith != self.name",message="concurrentWith must name another workload",fieldPath=".concurrentWith"
// +kubebuilder:validation:XValidation:rule="!has(self.latencyTarget) || !(has(self.kind) && self.kind == 'Metadata')",message="latencyTarget searches IO loads: a Metadata workload cannot have one",fieldPath=".latencyTarget"
// +kubebuilder:validation:XValidation:rule="!has(self.latencyTarget) || !has(self.rateIOPS)",message="a workload with latencyTarget chooses its rates itself: leave rateIOPS out",fieldPath=".rateIOPS"
// +kubebuilder:validation:XValidation:rule="!has(self.latencyTarget) || !has(self.concurrentWith)",message="a workload with latencyTarget runs its steps alone: it cannot be concurrentWith another",fieldPath=".concurrentWith"
// +kubebuilder:validation:XValidation:rule="!has(self.latencyTarget) || !has(self.numJobs) || size(self.numJobs) == 1",message="a workload with latencyTarget varies one thing: give it one numJobs value",fieldPath=".numJobs"
// +kubebuilder:validation:XValidation:rule="!has(self.latencyTarget) || !has(self.latencyTarget.vary) || self.latencyTarget.vary != 'QueueDepth' || (has(self.queueDepths) && self.queueDepths.exists(q, q > 1))",message="a QueueDepth search goes from queue depth 1 to the largest of queueDepths: give one above 1",fieldPath=".queueDepths"
// +kubebuilder:validation:XValidation:rule="!(has(self.kind) && self.kind == 'Metadata') || !has(self.ioEngine) || self.ioEngine == 'Auto'",message="a Metadata workload's engines are its operations: leave ioEngine out",fieldPath=".ioEngine"
// +kubebuilder:validation:XValidation:rule="!has(self.ioEngine) || self.ioEngine != 'Psync' || (has(self.kind) && self.kind == 'Metadata') || (has(self.queueDepths) && self.queueDepths.all(q, q == 1))",message="ioEngine Psync does one IO at a time per job, as fio's psync: give queueDepths [1] (or more numJobs)",fieldPath=".queueDepths"
type WorkloadGroup struct {
	// name identifies the group; cell names start with it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=24
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// kind is IO (reads and writes, the default) or Metadata (file
	// operations per second; see metadata). A Metadata group uses numJobs
	// and durationSeconds; queueDepths, rampSeconds, direct, syncWrites and
	// access do not apply to it.
	// +optional
	// +kubebuilder:default=IO
	Kind WorkloadKind `json:"kind,omitempty"`

	// metadata is what a Metadata group does; only with kind: Metadata.
	// +optional
	Metadata *MetadataWorkload `json:"metadata,omitempty"`

	// targets the group runs on (names of spec.targets); default all. A
	// group meant for some classes only (metadata on the shared file
	// systems, a seed's procedure on the disk it was written for) leaves
	// the others' timetables shorter; their comparison, thresholds and
	// report cells are those of the targets that ran them.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=32
	Targets []string `json:"targets,omitempty"`

	// access is Random or Sequential.
	// +optional
	// +kubebuilder:default=Random
	Access AccessPattern `json:"access,omitempty"`

	// blockSizes to run, each a multiple of 512 bytes between 512 and 64Mi.
	// Use binary suffixes (4Ki, 64Ki, 1Mi): 4k means 4000 bytes.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	BlockSizes []BlockSize `json:"blockSizes,omitempty"`

	// blockSizeRange draws each IO's size from a range, as fio's bsrange and
	// Elastifile's min/max IO size; it counts as one block size in the matrix.
	// +optional
	BlockSizeRange *BlockSizeRange `json:"blockSizeRange,omitempty"`

	// readPercents are the read shares of the mixes to run, 0 (all writes)
	// to 100 (all reads). Required for IO groups.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=11
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=100
	ReadPercents []int32 `json:"readPercents,omitempty"`

	// queueDepths are the IOs each job keeps in flight (fio iodepth,
	// DiskSpd -o).
	// +optional
	// +listType=set
	// +kubebuilder:default={32}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=4096
	QueueDepths []int32 `json:"queueDepths,omitempty"`

	// numJobs are the concurrent jobs per client (fio numjobs, DiskSpd -t).
	// Each job works on its own equal part of each of the client's files,
	// as fio's numjobs clones work on files of their own: the jobs of a
	// sequential cell stream different blocks, not the same ones in
	// lockstep.
	// +optional
	// +listType=set
	// +kubebuilder:default={1}
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=64
	NumJobs []int32 `json:"numJobs,omitempty"`

	// rateIOPS caps each job at this many IOs per second on an absolute
	// schedule; latency is then measured from each IO's scheduled start, so
	// a saturated device is not hidden (no coordinated omission).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	RateIOPS *int32 `json:"rateIOPS,omitempty"`

	// durationSeconds is how long each cell is measured. A Metadata cell
	// ends when its names are done, or at this bound; the next cell starts
	// when the bound has passed, so that clients stay synchronized: keep it
	// short for metadata.
	// +optional
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	DurationSeconds int32 `json:"durationSeconds,omitempty"`

	// rampSeconds runs each cell this long before measuring, to get past
	// caches warming up and queues filling (DiskSpd -W, fio ramp_time);
	// 0 measures from the first IO.
	// +optional
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	RampSeconds *int32 `json:"rampSeconds,omitempty"` // a pointer: 0 is a valid ramp, which a typed client (the schedule controller copying its template) would otherwise drop and the API server default to 5

	// direct bypasses the client's page cache (O_DIRECT) so the storage is
	// measured, not the node's memory.
	// +optional
	// +kubebuilder:default=true
	Direct *bool `json:"direct,omitempty"`

	// syncWrites makes every write durable before it completes (O_DSYNC,
	// DiskSpd -Sh), as databases and replicated volumes need.
	// +optional
	// +kubebuilder:default=false
	SyncWrites *bool `json:"syncWrites,omitempty"`

	// ioEngine is how the clients' engine issues IO (fio's ioengine): Auto
	// tries io_uring, then libaio, then psync, and the results say which
	// ran and why (a pod whose seccomp profile refuses io_uring gets
	// libaio); IOUring, Libaio or Psync asks for that one, as a seed's job
	// file does, and the run fails naming it where the node refuses it.
	// Psync does one IO at a time per job, as fio's psync: such a group
	// gives queueDepths [1] and more numJobs for concurrency. Not for
	// Metadata groups, whose engines are their operations.
	// +optional
	// +kubebuilder:default=Auto
	IOEngine IOEngine `json:"ioEngine,omitempty"`

	// latencyTarget makes the group a capacity search: for each block size
	// and read mix, the most IOPS each target carries while the latency at
	// the percentile stays within the bound (see LatencyTarget). Such a
	// group has searches instead of cells; thresholds judge it with
	// minIOPSAtLatency. Its queueDepths give the queue depth a Rate search
	// paces (the largest) or the deepest a QueueDepth search goes; it takes
	// one numJobs value and no rateIOPS.
	// +optional
	LatencyTarget *LatencyTarget `json:"latencyTarget,omitempty"`

	// concurrentWith names another workload whose cells run at the same
	// time as this one's, cell by cell (e.g. a reader and a rate-limited
	// writer, seed 001's combined run). Both must have the same number of
	// cells; results stay per workload. Both run on the same targets,
	// unless targetExecution is Parallel: then the two may run on
	// different targets (seed 001's reader of the cached volume and
	// writer of the uncached one), and the targets are linked: they share
	// one timetable and one start (each runs its own groups' cells at
	// their times in it, idle in the others' slots), so that joined cells
	// start at the same instant. clients.colocateTargets puts them on one
	// node.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	ConcurrentWith string `json:"concurrentWith,omitempty"`
}

// IOEngine is the engine backend of a workload group.
// +kubebuilder:validation:Enum=Auto;IOUring;Libaio;Psync
type IOEngine string

const (
	// IOEngineAuto lets the engine choose: io_uring, else libaio, else psync.
	IOEngineAuto IOEngine = "Auto"
	// IOEngineIOUring is Linux io_uring (fio's io_uring).
	IOEngineIOUring IOEngine = "IOUring"
	// IOEngineLibaio is Linux native AIO (fio's libaio).
	IOEngineLibaio IOEngine = "Libaio"
	// IOEnginePsync is one blocking pread or pwrite at a time per job
	// (fio's psync).
	IOEnginePsync IOEngine = "Psync"
)

// EngineName is the engine's --ioengine value; empty for Auto (the client's
// default, which tests may set).
func (e IOEngine) EngineName() string {
	switch e {
	case IOEngineIOUring:
		return "io_uring"
	case IOEngineLibaio:
		return "libaio"
	case IOEnginePsync:
		return "psync"
	}
	return ""
}

// AccessPattern is the order of IO offsets.
// +kubebuilder:validation:Enum=Random;Sequential
type AccessPattern string

const (
	// AccessRandom picks every offset at random, aligned to the block size.
	AccessRandom AccessPattern = "Random"
	// AccessSequential walks the files from start to end.
	AccessSequential AccessPattern = "Sequential"
)

// BlockSizeRange draws IO sizes from min to max in steps of alignment.
//
// +kubebuilder:validation:XValidation:rule="quantity(self.min).compareTo(quantity(self.max)) <= 0",message="blockSizeRange.min must not exceed blockSizeRange.max"
// +kubebuilder:validation:XValidation:rule="!has(self.alignment) || quantity(self.alignment).compareTo(quantity(self.min)) <= 0",message="blockSizeRange.alignment must not exceed min",fieldPath=".alignment"
// +kubebuilder:validation:XValidation:rule="!has(self.alignment) || !isQuantity(self.alignment) || !isQuantity(self.min) || !isQuantity(self.max) || quantity(self.alignment).asInteger() <= 0 || (quantity(self.min).asInteger() % quantity(self.alignment).asInteger() == 0 && quantity(self.max).asInteger() % quantity(self.alignment).asInteger() == 0)",messageExpression="'blockSizeRange.alignment ' + self.alignment + ' must divide min (' + self.min + ') and max (' + self.max + '): IO sizes step from min to max by alignment'",fieldPath=".alignment"
type BlockSizeRange struct {
	// min is the smallest IO size.
	// +required
	Min BlockSize `json:"min"`
	// max is the largest IO size.
	// +required
	Max BlockSize `json:"max"`
	// alignment of IO offsets and the step between IO sizes (Elastifile
	// --io-alignment): sizes are min, min+alignment, ..., max, so it must
	// divide both; default 512.
	// +optional
	Alignment *BlockSize `json:"alignment,omitempty"`
}

// Dataset is the data each client works on.
//
// +kubebuilder:validation:XValidation:rule="!has(self.sizePerClient) || !isQuantity(self.sizePerClient) || quantity(self.sizePerClient).compareTo(quantity('1Mi')) >= 0",messageExpression="'dataset.sizePerClient ' + self.sizePerClient + ' must be at least 1Mi'",fieldPath=".sizePerClient"
type Dataset struct {
	// sizePerClient is the data each client lays out and then reads and
	// writes; a cell's jobs split it, each working on its own part of
	// every file. Make it several times the node's memory
	// (and the storage's cache) or reads measure a cache: the controller
	// warns when it is smaller than twice the node's memory.
	// +optional
	// +kubebuilder:default="1Gi"
	SizePerClient ByteSize `json:"sizePerClient,omitempty"`

	// filesPerClient splits the data into this many files (Elastifile
	// --nr-files); ignored for Block volumes.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	FilesPerClient int32 `json:"filesPerClient,omitempty"`

	// fill is IfMissing (lay the data out unless a complete copy is already
	// there), Always (rewrite it before measuring) or Never (use what is
	// there; fail when it is missing).
	// +optional
	// +kubebuilder:default=IfMissing
	Fill FillPolicy `json:"fill,omitempty"`

	// content of written buffers: Random (refreshed per IO, so compression
	// and dedupe cannot flatter the storage) or Zeros.
	// +optional
	// +kubebuilder:default=Random
	Content BufferContent `json:"content,omitempty"`

	// verify makes the benchmark also prove that the storage returns what
	// was written: the data set is laid out with a header (its offset,
	// which write it is, and a checksum of the data) every smallest block
	// size of the benchmark, every write stamps fresh ones and every read
	// checks them. Each client remembers the last write of every interval
	// of its data set (2 bytes each: 512 KiB for 1 GiB in 4 KiB
	// intervals, at most 256 MiB), so a read also catches a lost write
	// (older data, intact). A block that comes back corrupted, from
	// another offset or older than its last write fails the cell, naming
	// the client, file, offset and the expected and found checksums or
	// writes. None (the default), CRC32C, MD5 or SHA256. Every block size
	// must be a multiple of the smallest; ranges are refused. The
	// checksums cost CPU per IO.
	// +optional
	// +kubebuilder:default=None
	Verify VerifyChecksum `json:"verify,omitempty"`
}

// VerifyChecksum is the checksum dataset.verify stamps into each block.
// +kubebuilder:validation:Enum=None;CRC32C;MD5;SHA256
type VerifyChecksum string

const (
	// VerifyNone checks nothing.
	VerifyNone VerifyChecksum = "None"
	// VerifyCRC32C is crc32c (the CPU's CRC instruction where it has one).
	VerifyCRC32C VerifyChecksum = "CRC32C"
	// VerifyMD5 is md5.
	VerifyMD5 VerifyChecksum = "MD5"
	// VerifySHA256 is sha256.
	VerifySHA256 VerifyChecksum = "SHA256"
)

// Enabled reports whether the data set is verified.
func (v VerifyChecksum) Enabled() bool { return v != "" && v != VerifyNone }

// FillPolicy says when clients lay out their data set.
// +kubebuilder:validation:Enum=IfMissing;Always;Never
type FillPolicy string

const (
	// FillIfMissing lays out data unless a complete copy exists.
	FillIfMissing FillPolicy = "IfMissing"
	// FillAlways rewrites the data set before measuring.
	FillAlways FillPolicy = "Always"
	// FillNever uses existing data and fails when it is missing.
	FillNever FillPolicy = "Never"
)

// BufferContent is what written buffers hold.
// +kubebuilder:validation:Enum=Random;Zeros
type BufferContent string

const (
	// ContentRandom fills buffers with random bytes, scrambled per IO.
	ContentRandom BufferContent = "Random"
	// ContentZeros writes zeros (compressible: flatters some storage).
	ContentZeros BufferContent = "Zeros"
)

// RunsOn reports whether the group's cells run on a target: it names the
// target in its targets, or names none. An empty target name (a timetable
// for no target in particular) takes every group.
func (w *WorkloadGroup) RunsOn(target string) bool {
	if len(w.Targets) == 0 || target == "" {
		return true
	}
	for _, t := range w.Targets {
		if t == target {
			return true
		}
	}
	return false
}
