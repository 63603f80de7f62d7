//go:build linux

package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// fileSpec is one file a clone does IO on: the region [base, base+length).
type fileSpec struct {
	path   string
	base   int64
	length int64
	// tail is what the size leaves past the last whole block: a file is
	// laid out with it (fio's file size) but no IO touches it, and a
	// sequential pass ending there counts it as done (worker.nextPass).
	tail   int64
	device bool
}

// resolveFiles turns clone c's paths into IO regions. With --size the size
// is split evenly over the files (rounded down to whole minimum blocks, as
// fio does); without it the existing file or device size is used.
func (j *JobSpec) resolveFiles(c int) ([]fileSpec, error) {
	paths := j.clonePaths(c)
	out := make([]fileSpec, 0, len(paths))
	if j.isFileOp() {
		// A file engine's files are names, not IO regions.
		for _, p := range paths {
			out = append(out, fileSpec{path: p, length: j.fileOpSize()})
		}
		return out, nil
	}
	for _, p := range paths {
		f := fileSpec{path: p, base: j.Offset + int64(c)*j.OffsetIncrement}
		size, isDev, err := int64(-1), false, error(nil)
		if !j.diskless() {
			size, isDev, err = existingSize(p)
		}
		switch {
		case err == nil:
			f.device = isDev
		case errors.Is(err, fs.ErrNotExist):
			size = -1
		default:
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		switch {
		case j.FileSize > 0:
			f.length = j.FileSize
		case j.Size > 0:
			f.length = j.Size / int64(len(paths))
		default:
			if j.diskless() {
				return nil, fmt.Errorf("job %q: ioengine=null touches no file, so it needs --size (or filesize) for its offsets", j.Name)
			}
			if size < 0 {
				return nil, fmt.Errorf("%s does not exist and job %q gives no --size", p, j.Name)
			}
			f.length = size - f.base
		}
		f.tail = f.length % j.BSMin
		f.length -= f.tail
		if f.device && size >= 0 && f.base+f.length > size {
			return nil, fmt.Errorf("%s: region %d..%d is beyond the device's %d bytes", p, f.base, f.base+f.length, size)
		}
		if f.length < j.BSMax {
			return nil, fmt.Errorf("%s: IO region of %d bytes is smaller than one block (%d bytes)", p, f.length, j.BSMax)
		}
		out = append(out, f)
	}
	return out, nil
}

// existingSize returns a file's size, or a block device's capacity.
func existingSize(path string) (int64, bool, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return 0, false, fs.ErrNotExist
		}
		return 0, false, err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return 0, true, err
		}
		defer unix.Close(fd)
		var size uint64
		if err := ioctlPtr(fd, unix.BLKGETSIZE64, &size); err != nil {
			return 0, true, fmt.Errorf("reading the device size: %w", err)
		}
		return int64(size), true, nil
	case unix.S_IFREG:
		return st.Size, false, nil
	case unix.S_IFDIR:
		return 0, false, fmt.Errorf("is a directory, not a file")
	}
	return 0, false, fmt.Errorf("neither a regular file nor a block device")
}

// unlinkFiles removes the regular files of the jobs with Unlink, once
// their group has run. Devices and files already gone are left alone.
func unlinkFiles(jobs []JobSpec) error {
	for i := range jobs {
		j := &jobs[i]
		if !j.Unlink || j.diskless() {
			continue
		}
		for c := 0; c < j.NumJobs; c++ {
			for _, p := range j.clonePaths(c) {
				st, err := os.Lstat(p)
				if err != nil || !st.Mode().IsRegular() {
					continue
				}
				if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("job %q: unlink: %w", j.Name, err)
				}
			}
		}
	}
	return nil
}
