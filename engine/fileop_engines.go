package engine

import (
	"fmt"
	"sort"
	"strings"
)

// fio's file and directory engines, and two of storagebench's own. They do
// no data IO (but sb_fileread's reads and sb_create_write's writes): each
// operation is one system call on one file, timed alone.
const (
	EngineFileCreate = "filecreate"
	EngineFileStat   = "filestat"
	EngineFileDelete = "filedelete"
	EngineDirCreate  = "dircreate"
	EngineDirStat    = "dirstat"
	EngineDirDelete  = "dirdelete"
	// EngineFileRead opens a file, reads it whole and closes it: the
	// small-file read that mail and web servers do (storagebench's; fio
	// has no such engine).
	EngineFileRead = "sb_fileread"
	// EngineFileRename renames each file away and back, two timed
	// renames per file, so the data set is where it was afterwards
	// (storagebench's; fio has no such engine).
	EngineFileRename = "sb_filerename"
)

// fileOpEngine is what one file engine does to its files.
type fileOpEngine struct {
	// dirs: the names are directories, not files.
	dirs bool
	// needsExisting: the names must exist before the job runs; missing
	// ones are created first, untimed (fio lays them out).
	needsExisting bool
	// once: a second visit of a name cannot succeed (it is gone, or
	// already exists), so loops, time_based and random file order with
	// repetition are refused.
	once bool
	// opsPerFile is how many timed operations one visit is.
	opsPerFile int
	// doesWhat is the help text.
	doesWhat string
}

var fileOpEngines = map[string]fileOpEngine{
	EngineFileCreate: {opsPerFile: 1, doesWhat: "create each file (open O_CREAT, close), no IO"},
	EngineFileStat:   {needsExisting: true, opsPerFile: 1, doesWhat: "stat each file (stat_type)"},
	EngineFileDelete: {needsExisting: true, once: true, opsPerFile: 1, doesWhat: "unlink each file"},
	EngineDirCreate:  {dirs: true, once: true, opsPerFile: 1, doesWhat: "mkdir each name"},
	EngineDirStat:    {dirs: true, needsExisting: true, opsPerFile: 1, doesWhat: "stat each directory (stat_type)"},
	EngineDirDelete:  {dirs: true, needsExisting: true, once: true, opsPerFile: 1, doesWhat: "rmdir each directory"},
	EngineFileRead:   {needsExisting: true, opsPerFile: 1, doesWhat: "open, read whole and close each file (storagebench extension)"},
	EngineFileRename: {needsExisting: true, opsPerFile: 2, doesWhat: "rename each file away and back, two timed renames (storagebench extension)"},
}

// fileOpEngineNames lists the file engines for help and errors.
func fileOpEngineNames() string {
	var names []string
	for n := range fileOpEngines {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// fileOp returns the job's file engine, if it has one.
func (j *JobSpec) fileOp() (fileOpEngine, bool) {
	e, ok := fileOpEngines[j.IOEngine]
	return e, ok
}

// isFileOp reports whether the job runs a file engine instead of IO.
func (j *JobSpec) isFileOp() bool {
	_, ok := j.fileOp()
	return ok
}

// Stat system calls of stat_type.
const (
	StatStat  = "stat"
	StatLstat = "lstat"
	StatStatx = "statx"
)

// validateFileOp checks what a file engine job may not combine; nil for IO
// jobs.
func (j *JobSpec) validateFileOp() error {
	e, ok := j.fileOp()
	bad := func(opt, format string, a ...any) error {
		return fmt.Errorf("job %q: %s: %s", j.Name, opt, fmt.Sprintf(format, a...))
	}
	switch {
	case j.StatType != "" && j.StatType != StatStat && j.StatType != StatLstat && j.StatType != StatStatx:
		return bad("stat_type", "unknown call %q (stat, lstat, statx)", j.StatType)
	case j.FilesPerDir < 0:
		return bad("sb_files_per_dir", "must not be negative")
	case j.FilesPerDir > 0 && len(j.Filenames) > 0:
		return bad("sb_files_per_dir", "spreads generated names; it does not apply to filename=")
	case !ok && j.OpenFiles > 0 && j.OpenFiles < j.fileCount():
		return bad("openfiles", "%d is less than the job's %d files: IO jobs here keep all their files open", j.OpenFiles, j.fileCount())
	case !ok && j.CreateOnOpen && j.Fill == FillAlways:
		return bad("create_on_open", "not with --fill=always: create_on_open lays nothing out")
	case !ok && j.CreateWrite:
		return bad("sb_create_write", "only with ioengine=%s", EngineFileCreate)
	case !ok:
		return nil
	case j.CreateWrite && j.IOEngine != EngineFileCreate:
		return bad("sb_create_write", "only with ioengine=%s, not %s", EngineFileCreate, j.IOEngine)
	case j.CreateWrite && j.fileOpSize() == 0:
		return bad("sb_create_write", "needs a filesize (or size) to write")
	case j.Ramp > 0:
		return bad("ramp_time", "ioengine=%s visits each file once per pass; a warm-up would use files up (run a job before it instead)", j.IOEngine)
	case e.once && (j.TimeBased || j.Loops > 1):
		return bad("loops/time_based", "ioengine=%s can do each name only once (a second pass would fail)", j.IOEngine)
	case j.IOEngine == EngineFileRead && j.Direct:
		return bad("direct", "ioengine=%s reads through the page cache", EngineFileRead)
	case j.capped():
		return bad("rate_iops", "not supported with ioengine=%s", j.IOEngine)
	case j.RateMin.Bytes > 0 || j.RateMin.IOPS > 0:
		return bad("rate_min", "not supported with ioengine=%s", j.IOEngine)
	}
	return nil
}

// The file engines' options: fio's stat_type and file_service_type, and
// storagebench's directory fan-out and written creates.
func init() {
	for _, o := range []option{
		{name: "stat_type", help: "what filestat and dirstat time: stat (default) | lstat | statx", apply: func(j *JobSpec, v string) error {
			switch v {
			case StatStat, StatLstat, StatStatx:
				j.StatType = v
				return nil
			}
			return fmt.Errorf("unknown call %s (stat, lstat, statx)", excerpt(v))
		}},
		{name: "file_service_type", help: "how a job with several files picks the next: roundrobin (default), random, sequential (each file done before the next); :N switches after N IOs (roundrobin:4, random:8). The file engines visit each file once per pass, in random order with random", apply: func(j *JobSpec, v string) error {
			kind, every, err := parseFileService(v)
			if err != nil {
				return err
			}
			j.FileService, j.FileServiceEvery = kind, every
			j.RandomFileOrder = kind == FileServiceRandom
			return nil
		}},
		{name: "openfiles", help: "files a clone keeps open at once: the file engines keep none open between operations, IO jobs all of theirs (less is refused)", apply: numberOpt(countKind(1), func(j *JobSpec, v int64) { j.OpenFiles = int(min(v, 1<<30)) })},
		{name: "sb_files_per_dir", help: "spread generated files over subdirectories of this many each (storagebench option; 0: all in directory)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) { j.FilesPerDir = int(min(v, 1<<30)) })},
		{name: "create_on_open", flag: true, help: "lay nothing out beforehand: IO jobs create missing files empty when they open them (a read past a file's end fails the job, as fio's); the file engines meet missing names as they are", apply: boolOpt(func(j *JobSpec, v bool) { j.CreateOnOpen = v })},
		{name: "sb_create_write", flag: true, help: "filecreate also writes filesize bytes into each new file, timed with the create (storagebench option)", apply: boolOpt(func(j *JobSpec, v bool) { j.CreateWrite = v })},
	} {
		registerOption(o)
	}
}
