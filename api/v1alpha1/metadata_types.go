package v1alpha1

// WorkloadKind says what a workload group measures.
// +kubebuilder:validation:Enum=IO;Metadata
type WorkloadKind string

const (
	// WorkloadIO measures reads and writes: the matrix of block sizes, read
	// percentages, queue depths and job counts.
	WorkloadIO WorkloadKind = "IO"
	// WorkloadMetadata measures file system operations per second
	// (create, stat, open, rename, delete, mkdir, rmdir), as mdtest and
	// bonnie++'s second half do.
	WorkloadMetadata WorkloadKind = "Metadata"
)

// MetadataOperation is one phase of a Metadata group.
// +kubebuilder:validation:Enum=Create;Stat;Open;Rename;Delete;Mkdir;Rmdir
type MetadataOperation string

const (
	// MetadataCreate creates each file (open O_CREAT; with fileSize, it
	// also writes the file, timed with the create).
	MetadataCreate MetadataOperation = "Create"
	// MetadataStat stats each file.
	MetadataStat MetadataOperation = "Stat"
	// MetadataOpen opens each file, reads it to its end and closes it.
	MetadataOpen MetadataOperation = "Open"
	// MetadataRename renames each file away and back (two operations).
	MetadataRename MetadataOperation = "Rename"
	// MetadataDelete unlinks each file.
	MetadataDelete MetadataOperation = "Delete"
	// MetadataMkdir creates a directory per name.
	MetadataMkdir MetadataOperation = "Mkdir"
	// MetadataRmdir removes each directory.
	MetadataRmdir MetadataOperation = "Rmdir"
)

// Repeatable reports whether a second visit of a name does the same
// operation again (a stat, an open, a rename there and back); a second
// create, delete, mkdir or rmdir of a name would fail or measure something
// else.
func (o MetadataOperation) Repeatable() bool {
	return o == MetadataStat || o == MetadataOpen || o == MetadataRename
}

// MetadataOrder is the order in which an operation visits the names.
// +kubebuilder:validation:Enum=Sequential;Random
type MetadataOrder string

const (
	// MetadataSequential visits the names in order (bonnie++'s sequential
	// pass).
	MetadataSequential MetadataOrder = "Sequential"
	// MetadataRandom visits every name once per operation in a random order
	// (bonnie++'s random pass).
	MetadataRandom MetadataOrder = "Random"
)

// MetadataTiming says when an operation ends.
// +kubebuilder:validation:Enum=Count;Duration
type MetadataTiming string

const (
	// MetadataByCount ends an operation when every name was visited once
	// (or at durationSeconds, whichever comes first).
	MetadataByCount MetadataTiming = "Count"
	// MetadataByDuration repeats the operations that can be repeated
	// (Stat, Open, Rename) over the names until durationSeconds has
	// passed; the others (Create, Delete, Mkdir, Rmdir) visit each name
	// once, as a second visit would fail or measure something else.
	MetadataByDuration MetadataTiming = "Duration"
)

// Bounds of a Metadata group.
const (
	// MaxMetadataFiles is the most names one job of a client works on.
	MaxMetadataFiles = 65536
	// MaxMetadataFileSize is the largest file a Create writes and an Open
	// reads (metadata measures small files; use an IO group for big ones).
	MaxMetadataFileSize = 64 << 20
)

// MetadataWorkload is what a Metadata group does: its operations run one
// after another, as mdtest's phases, each as one cell per numJobs value, on
// the same names: filesPerJob files (or directories for Mkdir and Rmdir) per
// job of every client.
//
// +kubebuilder:validation:XValidation:rule="self.operations.all(o, self.operations.exists_one(p, p == o))",message="metadata.operations must not name an operation twice",fieldPath=".operations"
// +kubebuilder:validation:XValidation:rule="!has(self.fileSize) || !isQuantity(self.fileSize) || (quantity(self.fileSize).compareTo(quantity('0')) >= 0 && quantity(self.fileSize).compareTo(quantity('64Mi')) <= 0)",messageExpression="'metadata.fileSize ' + self.fileSize + ' must be between 0 and 64Mi'",fieldPath=".fileSize"
type MetadataWorkload struct {
	// operations run in this order, each over all the names: e.g. Create,
	// Stat, Delete (bonnie++'s file phases) or Mkdir, Rmdir. Stat, Open,
	// Rename and Delete need the files: without a Create before them they
	// are made first, untimed (so a Create may not follow them unless a
	// Delete comes between). Mkdir and Rmdir work on directories of their
	// own names.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=7
	Operations []MetadataOperation `json:"operations"`

	// filesPerJob is how many names each job of each client works on.
	// +optional
	// +kubebuilder:default=1024
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65536
	FilesPerJob int32 `json:"filesPerJob,omitempty"`

	// fileSize is what a Create writes into each file and an Open reads;
	// 0 (the default) makes empty files.
	// +optional
	FileSize *ByteSize `json:"fileSize,omitempty"`

	// filesPerDirectory spreads each job's names over subdirectories of this
	// many (a directory fan-out); 0 puts them all in one directory.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=65536
	FilesPerDirectory int32 `json:"filesPerDirectory,omitempty"`

	// sharedDirectory puts the names of all clients in one directory (on a
	// ReadWriteMany volume, every client then creates in the same
	// directory: mdtest without -u); by default each client has its own.
	// +optional
	SharedDirectory bool `json:"sharedDirectory,omitempty"`

	// order is Sequential (names in order) or Random (a random order per
	// operation, as bonnie++'s second pass).
	// +optional
	// +kubebuilder:default=Sequential
	Order MetadataOrder `json:"order,omitempty"`

	// timedBy is Count (the default: an operation ends when every name was
	// visited once, or at durationSeconds) or Duration (Stat, Open and
	// Rename pass over the names again and again for durationSeconds, a
	// larger sample of fast operations; Create, Delete, Mkdir and Rmdir
	// still visit each name once).
	// +optional
	// +kubebuilder:default=Count
	TimedBy MetadataTiming `json:"timedBy,omitempty"`

	// keepFiles leaves the names after the last operation; by default what
	// the group made is removed (untimed) once its last operation ran.
	// +optional
	KeepFiles bool `json:"keepFiles,omitempty"`
}
