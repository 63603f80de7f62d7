package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// The names of a job's generated files, portable path logic: the local
// runner and clients remove a metadata data set by them on any system.

// renamedSuffix is where sb_filerename moves a file before moving it back.
const renamedSuffix = ".sbrenamed"

// clonePaths are the paths clone c of job j uses: the job's --filename list
// (shared by all clones) or fio's generated "<name>.<clone>.<n>" names.
func (j *JobSpec) clonePaths(c int) []string {
	var paths []string
	if len(j.Filenames) > 0 {
		for _, f := range j.Filenames {
			if j.Directory != "" && !filepath.IsAbs(f) {
				f = filepath.Join(j.Directory, f)
			}
			paths = append(paths, f)
		}
		return paths
	}
	dir := j.Directory
	if dir == "" {
		dir = "."
	}
	stem := j.fileStem()
	for n := 0; n < j.NrFiles; n++ {
		name := stem + "." + strconv.Itoa(c) + "." + strconv.Itoa(n)
		if j.FilesPerDir > 0 {
			name = filepath.Join(j.fanOutDir(c, n/j.FilesPerDir), name)
		}
		paths = append(paths, filepath.Join(dir, name))
	}
	return paths
}

// fanOutDir is the name of clone c's k-th subdirectory under
// sb_files_per_dir, relative to the job's directory.
func (j *JobSpec) fanOutDir(c, k int) string {
	return j.fileStem() + "." + strconv.Itoa(c) + ".d" + strconv.Itoa(k)
}

// fanOutDirs are the subdirectories clone c's generated files live in
// (none without sb_files_per_dir or with explicit filenames).
func (j *JobSpec) fanOutDirs(c int) []string {
	if j.FilesPerDir <= 0 || len(j.Filenames) > 0 {
		return nil
	}
	dir := j.Directory
	if dir == "" {
		dir = "."
	}
	var dirs []string
	for k := 0; k*j.FilesPerDir < j.NrFiles; k++ {
		dirs = append(dirs, filepath.Join(dir, j.fanOutDir(c, k)))
	}
	return dirs
}

// RemoveGenerated removes what the job's generated names hold for every
// clone (files, directories with what is in them) and its fan-out
// subdirectories: the data set of a metadata job, once it is no longer
// wanted. Names already gone are fine; explicit filenames are not touched.
func RemoveGenerated(j *JobSpec) error {
	if len(j.Filenames) > 0 {
		return nil
	}
	for c := 0; c < j.NumJobs; c++ {
		paths := j.clonePaths(c)
		for _, p := range paths {
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("job %q: removing %s: %w", j.Name, p, err)
			}
			if err := os.RemoveAll(p + renamedSuffix); err != nil {
				return fmt.Errorf("job %q: removing %s: %w", j.Name, p+renamedSuffix, err)
			}
		}
		for _, d := range j.fanOutDirs(c) {
			if err := os.RemoveAll(d); err != nil {
				return fmt.Errorf("job %q: removing %s: %w", j.Name, d, err)
			}
		}
	}
	return nil
}

// makeFanOutDirs makes clone c's fan-out subdirectories, untimed, before
// its files are laid out or operated on.
func (j *JobSpec) makeFanOutDirs(c int) error {
	for _, d := range j.fanOutDirs(c) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("job %q: sb_files_per_dir: %w", j.Name, err)
		}
	}
	return nil
}

// fileOpSize is the size of a file engine job's files: filesize, else size
// over the files (fio's rule when filesize is not given), else 0.
func (j *JobSpec) fileOpSize() int64 {
	switch {
	case j.FileSize > 0:
		return j.FileSize
	case j.Size > 0 && j.fileCount() > 0:
		return j.Size / int64(j.fileCount())
	}
	return 0
}
