//go:build linux

package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// fileChunk bounds the buffer sb_fileread reads into and sb_create_write
// writes from: files larger than it take several calls, so that numjobs
// clones of a large filesize do not hold as many copies of it.
const fileChunk = 1 << 20

// setupFileOps prepares a file engine's worker: its generator, the
// visiting order and the buffer of sb_fileread or sb_create_write.
func (w *worker) setupFileOps() error {
	j := w.job
	w.seedRNG()
	w.order = make([]int, len(w.files))
	for i := range w.order {
		w.order[i] = i
	}
	switch {
	case j.CreateWrite:
		w.opBuf = make([]byte, min(j.fileOpSize(), fileChunk))
		if !j.ZeroBuffers {
			w.rng.fill(w.opBuf)
		}
	case j.IOEngine == EngineFileRead:
		w.opBuf = make([]byte, min(max(j.fileOpSize(), 64<<10), fileChunk))
	}
	return nil
}

// runFileOps visits every file once per pass (loops, or until runtime with
// time_based), timing each operation alone from just before its system
// call to just after, as fio's file engines do. Operations count in the
// read direction, in the write direction when rw is a write-only pattern
// (fio's rule). There is no queue and no pacing: one operation at a time.
func (w *worker) runFileOps(s runSchedule) {
	j := w.job
	e, _ := j.fileOp()
	start, started := w.waitToStart(s)
	if !started {
		w.stats.begin(nanotime())
		w.stats.finish(nanotime())
		return
	}
	end := int64(math.MaxInt64)
	if j.Runtime > 0 {
		end = start + int64(j.Runtime)
	}
	// fio's rule: the read direction for any pattern that reads (even
	// randrw at rwmixread=0), the write direction for write-only ones.
	d := dirRead
	if j.RW == RWWrite || j.RW == RWRandWrite {
		d = dirWrite
	}
	st := &w.stats
	st.begin(nanotime())
	nextBoundary := st.start + s.interval
	lastYield := st.start
	if j.NumberIOs > 0 {
		w.ioLimited, w.limitIOs = true, j.NumberIOs
	}
	stopped := func(now int64) bool {
		return w.err != nil || now >= end || s.stop.Load() || w.groupStop.Load() || w.limitReached()
	}
	passes := max(j.Loops, 1)
loop:
	for pass := 0; j.TimeBased || pass < passes; pass++ {
		if j.RandomFileOrder {
			w.shuffleOrder()
		}
		for _, fi := range w.order {
			for k := 0; k < e.opsPerFile; k++ {
				now := nanotime()
				// A visit is never left half done: a file renamed
				// away is renamed back, whatever stopped the job.
				if k == 0 && stopped(now) {
					break loop
				}
				if now-lastYield >= int64(yieldEvery) {
					runtime.Gosched() // see run: sysmon must see us pass by
					lastYield = now
				}
				n, took, err := w.fileOpOnce(fi, k)
				if err != nil {
					w.fail(err)
					break loop
				}
				w.ran = true
				dd := &st.dir[d]
				dd.clat.Record(took)
				dd.lat.Record(took)
				st.interval.Record(took)
				dd.ios++
				dd.bytes += n
				st.cur.ios[d]++
				st.cur.bytes[d] += n
				st.depth[0]++ // one at a time: fio's "IO depths 1=100%"
				w.issuedIOs++
				for t := nanotime(); t >= nextBoundary; nextBoundary += s.interval {
					st.closeInterval(nextBoundary - st.start)
				}
			}
		}
	}
	st.finish(nanotime())
	if e.once && e.needsExisting && w.err == nil {
		w.removeEmptyFanOut()
	}
}

// shuffleOrder draws a new random visiting order (Fisher-Yates).
func (w *worker) shuffleOrder() {
	for i := len(w.order) - 1; i > 0; i-- {
		k := int(w.rng.below(uint64(i + 1)))
		w.order[i], w.order[k] = w.order[k], w.order[i]
	}
}

// fileOpOnce does the k-th operation of one visit of file fi, and returns
// the bytes it moved and how long the timed part took.
func (w *worker) fileOpOnce(fi, k int) (n int64, took int64, err error) {
	j := w.job
	path := w.files[fi].path
	t0 := nanotime()
	switch j.IOEngine {
	case EngineFileCreate:
		var fd int
		fd, err = unix.Open(path, unix.O_CREAT|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
		if err == nil && j.CreateWrite {
			n, err = writeSize(fd, w.opBuf, j.fileOpSize())
		}
		took = nanotime() - t0 // fio times the open alone; close is not timed
		if fd >= 0 && err == nil {
			err = unix.Close(fd)
		} else if fd >= 0 {
			unix.Close(fd)
		}
		return n, took, opErr(j, "create", path, err)
	case EngineFileStat, EngineDirStat:
		err = statPath(path, j.StatType)
		return 0, nanotime() - t0, opErr(j, j.statCall(), path, err)
	case EngineFileDelete:
		err = unix.Unlink(path)
		return 0, nanotime() - t0, opErr(j, "unlink", path, err)
	case EngineDirCreate:
		err = unix.Mkdir(path, 0o700)
		return 0, nanotime() - t0, opErr(j, "mkdir", path, err)
	case EngineDirDelete:
		err = unix.Rmdir(path)
		return 0, nanotime() - t0, opErr(j, "rmdir", path, err)
	case EngineFileRead:
		n, err = readWholeFile(path, w.opBuf)
		return n, nanotime() - t0, opErr(j, "open and read", path, err)
	case EngineFileRename:
		from, to := path, path+renamedSuffix
		if k == 1 {
			from, to = to, from
		}
		err = unix.Rename(from, to)
		return 0, nanotime() - t0, opErr(j, "rename to "+to+" of", from, err)
	}
	return 0, 0, fmt.Errorf("job %q: ioengine=%s is not a file engine", j.Name, j.IOEngine)
}

// opErr names the job, the operation and the path of a failed operation;
// the errno stays reachable for errors.Is.
func opErr(j *JobSpec, op, path string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("job %q: ioengine=%s: %s %s: %w", j.Name, j.IOEngine, op, path, err)
}

func (j *JobSpec) statCall() string {
	if j.StatType == "" {
		return StatStat
	}
	return j.StatType
}

// statPath makes the one system call stat_type names.
func statPath(path, call string) error {
	switch call {
	case StatLstat:
		var st unix.Stat_t
		return unix.Lstat(path, &st)
	case StatStatx:
		// statx(2) on the path itself; fio resolves the path with
		// realpath(3) first, inside its timed part.
		var stx unix.Statx_t
		return unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_ALL, &stx)
	}
	var st unix.Stat_t
	return unix.Stat(path, &st)
}

// writeSize writes size bytes from buf (again and again when it is
// shorter) at the start of fd, as many calls as it takes.
func writeSize(fd int, buf []byte, size int64) (int64, error) {
	var done int64
	for done < size {
		chunk := buf[:min(int64(len(buf)), size-done)]
		n, err := unix.Write(fd, chunk)
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, unix.EIO
		}
		done += int64(n)
	}
	return done, nil
}

// readWholeFile opens path, reads it to its end into buf (again and again
// when it is larger) and closes it.
func readWholeFile(path string, buf []byte) (int64, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	var done int64
	for {
		n, err := unix.Read(fd, buf)
		if err != nil {
			unix.Close(fd)
			return done, err
		}
		if n == 0 {
			break
		}
		done += int64(n)
	}
	return done, unix.Close(fd)
}

// removeEmptyFanOut removes the fan-out subdirectories a delete engine
// emptied (untimed, after the measurement). One still holding something
// (the run stopped early) stays.
func (w *worker) removeEmptyFanOut() {
	for _, d := range w.job.fanOutDirs(w.clone) {
		if err := unix.Rmdir(d); err != nil && !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.EEXIST) && !errors.Is(err, unix.ENOENT) {
			w.fail(fmt.Errorf("job %q: removing the emptied directory %s: %w", w.job.Name, d, err))
		}
	}
}

// prepareFileOp makes what a file engine job's names need before it runs,
// untimed, as fio lays files out: the fan-out subdirectories, and for the
// engines that work on existing names the missing files (filesize bytes of
// random data, or empty) or directories; a file shorter than filesize is
// written again. fill=never refuses to make or rewrite them.
func prepareFileOp(j *JobSpec) error {
	e, _ := j.fileOp()
	var buf []byte
	size := j.fileOpSize()
	for c := 0; c < j.NumJobs; c++ {
		if err := j.makeFanOutDirs(c); err != nil {
			return err
		}
		if !e.needsExisting || j.CreateOnOpen {
			continue
		}
		for _, p := range j.clonePaths(c) {
			st, err := os.Lstat(p)
			switch {
			case err == nil && (e.dirs || !st.Mode().IsRegular() || st.Size() >= size):
				continue
			case err == nil:
				// Shorter than filesize: fio lays such a file out
				// again, and so the operations meet the same files.
				if j.Fill == FillNever {
					return fmt.Errorf("%w: job %q: %s has %d bytes, not the %d of filesize (or size over nrfiles), and fill=never forbids rewriting it", ErrUsage, j.Name, p, st.Size(), size)
				}
				if err := os.Remove(p); err != nil {
					return fmt.Errorf("job %q: laying out: %w", j.Name, err)
				}
			case !errors.Is(err, fs.ErrNotExist):
				return fmt.Errorf("job %q: %w", j.Name, err)
			case j.Fill == FillNever || j.NoFileCreate:
				return fmt.Errorf("%w: job %q: %s does not exist, and fill=never (or allow_file_create=0) forbids creating it", ErrUsage, j.Name, p)
			}
			if e.dirs {
				if err := os.Mkdir(p, 0o700); err != nil {
					return fmt.Errorf("job %q: laying out: %w", j.Name, err)
				}
				continue
			}
			if buf == nil && size > 0 {
				buf = make([]byte, min(size, fileChunk))
				r := newRNG(j.RandSeed)
				r.fill(buf)
			}
			if err := writeSmallFile(p, size, buf); err != nil {
				return fmt.Errorf("job %q: laying out: %w", j.Name, err)
			}
		}
	}
	return nil
}

// writeSmallFile creates path with size bytes from buf (repeated), on disk.
func writeSmallFile(path string, size int64, buf []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for left := size; left > 0; {
		n, err := f.Write(buf[:min(left, int64(len(buf)))])
		if err != nil {
			f.Close()
			return err
		}
		left -= int64(n)
	}
	// fio's layout fsyncs each file it made (create_fsync, on by
	// default): the operations then meet files on disk, not dirty pages.
	// A delete of dirty pages is several times cheaper.
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
