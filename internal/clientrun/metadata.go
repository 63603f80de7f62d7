package clientrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine"
)

// metadataEngines are the engine's file engines for the API's operations.
var metadataEngines = map[sbv1.MetadataOperation]string{
	sbv1.MetadataCreate: engine.EngineFileCreate,
	sbv1.MetadataStat:   engine.EngineFileStat,
	sbv1.MetadataOpen:   engine.EngineFileRead,
	sbv1.MetadataRename: engine.EngineFileRename,
	sbv1.MetadataDelete: engine.EngineFileDelete,
	sbv1.MetadataMkdir:  engine.EngineDirCreate,
	sbv1.MetadataRmdir:  engine.EngineDirDelete,
}

// metadataDir is where a metadata cell's names live: one directory per
// workload and job count, shared by all clients (sharedDirectory) or the
// client's own.
func (ds *dataSet) metadataDir(c *sbv1.Cell) string {
	group := fmt.Sprintf("%s-j%d", c.Workload, c.NumJobs)
	if c.Metadata.SharedDirectory {
		return filepath.Join(ds.root, "metadata", group)
	}
	return filepath.Join(ds.root, fmt.Sprintf("client-%d", ds.client), "metadata", group)
}

// metadataJob is the engine job of one operation. Every operation of a
// group meets the same names: the file stem is the client's (c<index>, so
// that clients sharing a directory never share a name), and directories get
// their own (c<index>d). The cell's duration bounds the operation; it ends
// earlier when its names are done.
func (ds *dataSet) metadataJob(c *sbv1.Cell, seed uint64) engine.JobSpec {
	m := c.Metadata
	stem, dirs := ds.metadataStems()
	if m.Operation == sbv1.MetadataMkdir || m.Operation == sbv1.MetadataRmdir {
		stem = dirs
	}
	return engine.JobSpec{
		Name:            c.Name,
		FileStem:        stem,
		Directory:       ds.metadataDir(c),
		NrFiles:         int(m.FilesPerJob),
		FileSize:        m.FileSizeBytes,
		CreateWrite:     m.Operation == sbv1.MetadataCreate && m.FileSizeBytes > 0,
		FilesPerDir:     int(m.FilesPerDirectory),
		RandomFileOrder: m.RandomOrder,
		RW:              engine.RWRead,
		BlockSize:       4096, BSMin: 4096, BSMax: 4096,
		IODepth:    1,
		NumJobs:    int(c.NumJobs),
		Runtime:    secs(c.DurationSeconds),
		TimeBased:  m.Repeat,
		IOEngine:   metadataEngines[m.Operation],
		RandRepeat: true,
		RandSeed:   seed,
		// An operation that needs the names before any Create made
		// them lays them out first, untimed.
		Fill: engine.FillIfMissing,
	}
}

// metadataStems are the client's file and directory name stems.
func (ds *dataSet) metadataStems() (files, dirs string) {
	return fmt.Sprintf("c%d", ds.client), fmt.Sprintf("c%dd", ds.client)
}

// removeMetadataNames removes every name the client's job of the cell may
// have made, files and directories.
func (ds *dataSet) removeMetadataNames(job *engine.JobSpec) error {
	files, dirs := ds.metadataStems()
	for _, stem := range []string{files, dirs} {
		names := *job
		names.FileStem = stem
		if err := engine.RemoveGenerated(&names); err != nil {
			return err
		}
	}
	return nil
}

// beforeMetadataCell gives the first operation of a group a fresh start.
// A client's own directory is emptied whatever an earlier, interrupted run
// left in it (other file counts or fan-outs included); in a directory all
// clients share, each removes what its own names may hold, as the others
// may already have begun.
func (ds *dataSet) beforeMetadataCell(job *engine.JobSpec, c *sbv1.Cell) error {
	if !c.IsMetadata() || !c.Metadata.First {
		return nil
	}
	var err error
	if c.Metadata.SharedDirectory {
		err = ds.removeMetadataNames(job)
	} else {
		err = os.RemoveAll(job.Directory)
	}
	if err != nil {
		return fmt.Errorf("removing what an earlier run left: %w", err)
	}
	if err := os.MkdirAll(job.Directory, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", job.Directory, err)
	}
	return nil
}

// afterMetadataCell removes the group's names (untimed) after its last
// operation, unless keepFiles: the client's own directory goes with them;
// a shared one stays (another client may not have started its operation
// yet, and would find its directory gone).
func (ds *dataSet) afterMetadataCell(job *engine.JobSpec, c *sbv1.Cell) error {
	if !c.IsMetadata() || !c.Metadata.Last || c.Metadata.KeepFiles {
		return nil
	}
	if c.Metadata.SharedDirectory {
		if err := ds.removeMetadataNames(job); err != nil {
			return fmt.Errorf("removing the names after the last operation: %w", err)
		}
		return nil
	}
	if err := os.RemoveAll(job.Directory); err != nil {
		return fmt.Errorf("removing the names after the last operation: %w", err)
	}
	// The client's metadata directory holds only its own groups' ones.
	parent := filepath.Dir(job.Directory)
	if err := os.Remove(parent); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
		return fmt.Errorf("removing %s: %w", parent, err)
	}
	return nil
}
