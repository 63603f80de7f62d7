//go:build linux

package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// layoutChunk is the size of each layout write: large enough to stream at
// device speed, small enough to keep memory low.
const layoutChunk = 1 << 20

// laidOut records, per path, how many bytes (from 0, or the device region
// end) this process has already laid out, so that Prepare is idempotent
// and Run does not redo what Prepare did. Only touched at preparation time.
var laidOut = struct {
	sync.Mutex
	done map[string]layoutMark
}{done: map[string]layoutMark{}}

// layoutMark identifies what was laid out: for regular files the inode and
// change time too, so a file deleted, recreated or written by someone else
// since is checked again.
type layoutMark struct {
	end   int64
	ino   uint64
	ctime unix.Timespec
}

// fileMark reads the identity of a regular file (zero for devices, whose
// node says nothing about the content behind it).
func fileMark(path string, device bool) layoutMark {
	var st unix.Stat_t
	if device || unix.Stat(path, &st) != nil {
		return layoutMark{}
	}
	return layoutMark{ino: st.Ino, ctime: st.Ctim}
}

// target is one distinct path with everything the jobs need from it.
type target struct {
	path   string
	device bool
	start  int64 // lowest region start (devices are laid out from here)
	end    int64 // highest region end: the file must hold this many bytes
	fill   string
	direct bool
	job    *JobSpec // first job using it, for alignment checks and errors
	align  int64
	// todo is set by planLayout when [from, end) must be written.
	todo bool
	from int64
	// verify stamps verify headers into the layout (a data set laid out
	// verified, VerifySpec.Everywhere); nil: plain random data.
	verify *blockChecker
}

// Prepare lays the jobs' data sets out according to each job's Fill policy
// and checks O_DIRECT alignment, before any clock starts: files are written
// fully with random data (reads never hit holes), existing complete files
// are reused (ifmissing), rewritten (always) or required (never). Files
// shared by several jobs or clones are laid out once. Calling it again is
// cheap: what this process already laid out is not redone.
//
// Job lists that could never run (more than MaxWorkerThreads worker threads)
// are refused before anything is written.
func Prepare(ctx context.Context, jobs []JobSpec) error {
	if err := validateJobs(jobs); err != nil {
		return err
	}
	if err := CheckWorkerThreads(jobs); err != nil {
		return err
	}
	_, err := prepare(ctx, jobs)
	return err
}

// validateJobs checks every job alone; errors wrap ErrUsage.
func validateJobs(jobs []JobSpec) error {
	for i := range jobs {
		if err := jobs[i].validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
	}
	if err := validateWaitFor(jobs); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return nil
}

// prepare returns the targets, for the environment record.
// The jobs must have passed validateJobs.
func prepare(ctx context.Context, jobs []JobSpec) ([]*target, error) {
	byPath := map[string]*target{}
	var order []*target
	for i := range jobs {
		j := &jobs[i]
		if j.diskless() {
			continue // no file to lay out, align or even find
		}
		if len(j.Filenames) == 0 && j.Directory != "" {
			if st, err := os.Stat(j.Directory); err != nil {
				return nil, fmt.Errorf("job %q: directory: %w", j.Name, err)
			} else if !st.IsDir() {
				return nil, fmt.Errorf("job %q: directory %s is not a directory", j.Name, j.Directory)
			}
		}
		if j.isFileOp() {
			if err := prepareFileOp(j); err != nil {
				return nil, err
			}
			continue
		}
		if j.CreateOnOpen {
			continue // its workers create missing files, empty, as they open them
		}
		for c := 0; c < j.NumJobs; c++ {
			if err := j.makeFanOutDirs(c); err != nil {
				return nil, err
			}
			files, err := j.resolveFiles(c)
			if err != nil {
				return nil, fmt.Errorf("job %q: %w", j.Name, err)
			}
			for _, f := range files {
				if j.NoFileCreate {
					if _, err := os.Stat(f.path); errors.Is(err, fs.ErrNotExist) {
						return nil, fmt.Errorf("%w: job %q: %s does not exist, and allow_file_create=0 forbids creating it", ErrUsage, j.Name, f.path)
					}
				}
				t := byPath[f.path]
				if t == nil {
					t = &target{path: f.path, device: f.device, start: f.base, fill: j.Fill, job: j}
					byPath[f.path] = t
					order = append(order, t)
				}
				t.start = min(t.start, f.base)
				t.end = max(t.end, f.base+f.length+f.tail)
				t.direct = t.direct || j.Direct
				if j.Verify.Everywhere && t.verify == nil {
					t.verify = newBlockChecker(j.Verify.Sum, j.verifyInterval())
				}
				if j.Fill == FillAlways {
					t.fill = FillAlways
				}
			}
		}
	}
	// First what each target lacks (and whether fill=never forbids it),
	// then whether the file systems can hold it, then the writes: a data
	// set that cannot be completed is refused before its first byte.
	for _, t := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := t.planLayout(); err != nil {
			return nil, err
		}
	}
	if err := checkFreeSpace(order); err != nil {
		return nil, err
	}
	for _, t := range order {
		if !t.todo {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := writeRegion(ctx, t, t.from); err != nil {
			return nil, err
		}
		record(t, t.end)
	}
	// Alignment is checked after layout so that new files exist for statx.
	for i := range jobs {
		j := &jobs[i]
		if !j.Direct || j.isFileOp() || j.diskless() || j.CreateOnOpen {
			continue // the file engines and null do no data IO to align; create_on_open's files do not exist yet
		}
		for c := 0; c < j.NumJobs; c++ {
			for _, p := range j.clonePaths(c) {
				t := byPath[p]
				if t.align == 0 {
					a, err := dioAlignment(p, t.device)
					if err != nil {
						return nil, fmt.Errorf("job %q: %w", j.Name, err)
					}
					t.align = a
				}
				if err := j.checkAlignment(p, t.align); err != nil {
					return nil, fmt.Errorf("%w: %w", ErrUsage, err)
				}
			}
		}
	}
	return order, nil
}

// planLayout applies the fill policy to one path: it sets todo and from
// when bytes must be written, and refuses what fill=never forbids.
func (t *target) planLayout() error {
	laidOut.Lock()
	done, ok := laidOut.done[t.path]
	laidOut.Unlock()
	if cur := fileMark(t.path, t.device); ok && done.end >= t.end && done.ino == cur.ino && done.ctime == cur.ctime {
		return nil
	}
	from, err := t.layoutStart()
	if err != nil {
		return err
	}
	if t.verify != nil && from > t.start && t.fill != FillNever {
		// Data laid out without headers (or with others) would fail
		// every check: it is laid out again, verified.
		if ok, err := t.laidOutVerified(); err != nil {
			return err
		} else if !ok {
			from = 0
			if t.device {
				from = t.start
			}
		}
	}
	if from >= t.end {
		record(t, t.end)
		return nil
	}
	if t.fill == FillNever {
		what := "does not exist"
		if from > 0 || t.device {
			what = fmt.Sprintf("is laid out only up to byte %d", from)
		}
		return fmt.Errorf("%s %s but the jobs need %d bytes, and --fill=never forbids creating or extending it", t.path, what, t.end)
	}
	t.todo, t.from = true, from
	return nil
}

func record(t *target, end int64) {
	m := fileMark(t.path, t.device)
	laidOut.Lock()
	m.end = end
	if prev, ok := laidOut.done[t.path]; ok && prev.ino == m.ino && prev.ctime == m.ctime {
		m.end = max(m.end, prev.end)
	}
	laidOut.done[t.path] = m
	laidOut.Unlock()
}

// layoutStart returns the offset from which the target must be written:
// t.end when nothing is missing. Regular files: the first hole (SEEK_HOLE),
// or the end of a shorter file. Devices: the region start unless sampled
// blocks show it was already written (never-written thin-provisioned
// blocks read as zeros; our data never does).
func (t *target) layoutStart() (int64, error) {
	if t.fill == FillAlways {
		if t.device {
			return t.start, nil
		}
		return 0, nil
	}
	if t.device {
		if t.fill == FillNever {
			// The user vouches for the device's content; reading it
			// here could only fail on the regions the jobs avoid.
			return t.end, nil
		}
		written, err := sampleWritten(t.path, t.start, t.end)
		if err != nil {
			return 0, err
		}
		if written {
			return t.end, nil
		}
		return t.start, nil
	}
	fd, err := unix.Open(t.path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", t.path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, fmt.Errorf("%s: %w", t.path, err)
	}
	hole, err := unix.Seek(fd, 0, unix.SEEK_HOLE)
	if err != nil {
		hole = st.Size // filesystems without SEEK_HOLE: trust the size
	}
	// A file whose allocated blocks cover less than its size is sparse
	// even where SEEK_HOLE cannot tell (some filesystems report the end).
	if st.Blocks*512 < min(st.Size, t.end) {
		return 0, nil
	}
	return min(hole, st.Size), nil
}

// sampleWritten reads 64 blocks spread over a device region and reports
// whether none of them is all zeros.
func sampleWritten(path string, start, end int64) (bool, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	defer unix.Close(fd)
	buf := make([]byte, 4096)
	const samples = 64
	for i := int64(0); i < samples; i++ {
		off := start + (end-start-4096)*i/(samples-1)
		off -= off % 4096
		if _, err := unix.Pread(fd, buf, off); err != nil {
			return false, fmt.Errorf("%s: reading at %d: %w", path, off, err)
		}
		zero := true
		for _, b := range buf {
			if b != 0 {
				zero = false
				break
			}
		}
		if zero {
			return false, nil
		}
	}
	return true, nil
}

// writeRegion writes random data into [from, t.end) of the target, with
// O_DIRECT when possible so that the layout does not fill the page cache
// (and later reads measure the device, not memory), then makes it durable.
// Where the file system refuses O_DIRECT the layout itself is written
// buffered, unless a job needs O_DIRECT on the target: then it fails before
// writing anything, as the job could not run.
//
// If the layout fails (ENOSPC or anything else), a file it created is
// removed, so that no partial file fills the disk or looks like a data
// set; a file that existed before is left as it is. The error says which.
func writeRegion(ctx context.Context, t *target, from int64) (err error) {
	if !t.device {
		if dir := filepath.Dir(t.path); dir != "" {
			if _, err := os.Stat(dir); err != nil {
				return fmt.Errorf("laying out %s: directory: %w", t.path, err)
			}
		}
	}
	from -= from % t.chunkAlign()
	fd, created, err := openForLayout(t)
	if err != nil {
		return fmt.Errorf("laying out %s: %w", t.path, pathErr(err))
	}
	defer func() {
		// fd changes when the tail is written buffered: close the last.
		unix.Close(fd)
		if err != nil {
			err = cleanUpFailedLayout(t, created, err)
		}
	}()
	direct := false
	const directFlags = unix.O_WRONLY | unix.O_CLOEXEC | unix.O_DIRECT
	if dfd, err := openFile(t.path, directFlags, 0); err == nil {
		unix.Close(fd)
		fd, direct = dfd, true
	} else if t.direct && refusesDirect(directFlags, err) {
		return fmt.Errorf("laying out for a job with direct=1: %w", directUnsupported(t.path, err))
	}
	buf, err := unix.Mmap(-1, 0, layoutChunk, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return fmt.Errorf("laying out %s: %w", t.path, err)
	}
	defer unix.Munmap(buf)
	r := newRNG(uint64(time.Now().UnixNano()))
	for off := from; off < t.end; {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("laying out %s: %w", t.path, err)
		}
		n := min(int64(layoutChunk)/t.chunkAlign()*t.chunkAlign(), t.end-off)
		chunk := buf[:n]
		if direct && n%4096 != 0 {
			// The tail is not aligned: finish it without O_DIRECT.
			unix.Close(fd)
			if fd, err = openFile(t.path, unix.O_WRONLY|unix.O_CLOEXEC, 0); err != nil {
				fd = -1
				return fmt.Errorf("laying out %s: %w", t.path, pathErr(err))
			}
			direct = false
		}
		r.fill(chunk)
		if t.verify != nil {
			t.verify.stamp(chunk, off, 0)
		}
		w, err := layoutWrite(fd, chunk, off)
		if err != nil {
			return fmt.Errorf("laying out %s: wrote %d of %d bytes: %w", t.path, off-from, t.end-from, pathErr(err))
		}
		if w == 0 {
			return fmt.Errorf("laying out %s: zero-byte write at %d", t.path, off)
		}
		off += int64(w)
	}
	if err := unix.Fdatasync(fd); err != nil {
		return fmt.Errorf("laying out %s: fdatasync: %w", t.path, pathErr(err))
	}
	return nil
}

// layoutWrite is unix.Pwrite; tests replace it to simulate a disk that
// fills up during the layout.
var layoutWrite = unix.Pwrite

// cleanUpFailedLayout removes a file the failed layout created and says
// so in err, or says that a file that existed before was kept.
func cleanUpFailedLayout(t *target, created bool, err error) error {
	switch {
	case t.device:
		return err
	case !created:
		return fmt.Errorf("%w; %s existed before this layout and is left as it is", err, t.path)
	}
	if rmErr := unix.Unlink(t.path); rmErr != nil {
		return fmt.Errorf("%w; removing the partial file this layout created failed too: %w", err, rmErr)
	}
	return fmt.Errorf("%w; removed %s, which this layout had created, so no partial file is left", err, t.path)
}

// openForLayout opens the target for writing, creating a missing regular
// file. created tells whether this call created it (O_EXCL makes that
// certain), so that a failed layout removes only files it created.
func openForLayout(t *target) (fd int, created bool, err error) {
	const flags = unix.O_WRONLY | unix.O_CLOEXEC
	if t.device {
		fd, err = openFile(t.path, flags, 0)
		return fd, false, err
	}
	fd, err = openFile(t.path, flags|unix.O_CREAT|unix.O_EXCL, 0o644)
	if err == nil {
		return fd, true, nil
	}
	if !errors.Is(err, unix.EEXIST) {
		return -1, false, err
	}
	fd, err = openFile(t.path, flags, 0)
	return fd, false, err
}

// pathErr keeps errno errors comparable with errors.Is(err, fs.ErrX) and
// readable ("no space left on device").
func pathErr(err error) error {
	var errno unix.Errno
	if errors.As(err, &errno) && errno == unix.ENOENT {
		return fmt.Errorf("%w", fs.ErrNotExist)
	}
	return err
}
