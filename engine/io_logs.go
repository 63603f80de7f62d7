package engine

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// fio's write_bw_log, write_iops_log and write_lat_log, in fio's log format
// so that fio2gnuplot and fio's own plotting tools read them: one line per
// entry, "time (ms), value, direction (0 read, 1 write), block size[,
// offset], priority" (the offset with log_offset; the priority is 0 here,
// the engine setting none).
// Without log_avg_msec every IO is an entry (bandwidth in KiB/s over its
// clat, IOPS 1, latencies in ns; block size, and offset
// with log_offset); with it each window of log_avg_msec gives one entry per
// direction that did IO in it (bandwidth in KiB/s, IOPS, mean latencies; 0
// block size), at the window's end, and the latency logs also the last,
// partial window, as fio writes them. Times count from the end of the ramp.
// Files are PREFIX_bw.N.log, PREFIX_iops.N.log and PREFIX_lat/_clat/
// _slat.N.log with N the clone's number in the run (from 1), or
// PREFIX_bw.log ... shared by every clone with per_job_logs=0 (entries
// then interleave as the clones write them, where fio writes each job's in
// turn). psync's slat log stays empty, as fio's does: a blocking call has
// no submission apart from its completion.

func init() {
	for _, o := range []option{
		{name: "write_bw_log", flag: true, help: "log bandwidth to PREFIX_bw.N.log in fio's log format", apply: func(j *JobSpec, s string) error { j.Logs.BW = logPrefix(j, s); return nil }},
		{name: "write_iops_log", flag: true, help: "log IOPS to PREFIX_iops.N.log in fio's log format", apply: func(j *JobSpec, s string) error { j.Logs.IOPS = logPrefix(j, s); return nil }},
		{name: "write_lat_log", flag: true, help: "log latency (lat, clat, slat) to PREFIX_lat.N.log ... in fio's log format", apply: func(j *JobSpec, s string) error { j.Logs.Lat = logPrefix(j, s); return nil }},
		{name: "log_avg_msec", help: "average the logs over windows of this many milliseconds (default 0: every IO)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) { j.Logs.AvgMsec = v })},
		{name: "per_job_logs", flag: true, help: "each clone its own log files (default 1); 0: one file per log for all", apply: boolOpt(func(j *JobSpec, v bool) { j.Logs.Shared = !v })},
		{name: "log_offset", flag: true, help: "fill in each IO's offset in the logs", apply: boolOpt(func(j *JobSpec, v bool) { j.Logs.Offset = v })},
	} {
		registerOption(o)
	}
}

// logUseJobName stands for a log option given without a prefix: the job's
// name, known only once the job is (a [global] section has none).
const logUseJobName = "\x00job name"

// logPrefix is a log's file prefix: the value, or the job's name when the
// option is given without one, as fio does.
func logPrefix(_ *JobSpec, s string) string {
	if s == "" || s == "1" {
		return logUseJobName
	}
	return s
}

// resolveNames puts the job's name where a log was given without a prefix.
func (l *IOLogs) resolveNames(job string) {
	for _, p := range []*string{&l.BW, &l.IOPS, &l.Lat} {
		if *p == logUseJobName {
			*p = job
		}
	}
}

// IOLogs is a job's fio logs; empty prefixes leave them off.
type IOLogs struct {
	BW, IOPS, Lat string
	AvgMsec       int64
	Shared        bool // per_job_logs=0
	Offset        bool
}

func (l IOLogs) any() bool { return l.BW != "" || l.IOPS != "" || l.Lat != "" }

// logKind is one of the log files a clone writes.
type logKind int

const (
	logBW logKind = iota
	logIOPS
	logLat
	logClat
	logSlat
	logKinds
)

var logSuffixes = [logKinds]string{"bw", "iops", "lat", "clat", "slat"}

// logFile is one open log file, shared by the clones that write it.
type logFile struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// logFiles are a run's open log files by path, so that clones sharing one
// (per_job_logs=0, lanes of one clone) write the same file.
type logFiles struct {
	mu    sync.Mutex
	files map[string]*logFile
}

func (fs *logFiles) open(path string) (*logFile, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if lf := fs.files[path]; lf != nil {
		return lf, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("opening log %s: %w", path, err)
	}
	if fs.files == nil {
		fs.files = map[string]*logFile{}
	}
	lf := &logFile{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	fs.files[path] = lf
	return lf, nil
}

// closeAll flushes and closes every log, returning the first error.
func (fs *logFiles) closeAll() error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var first error
	for path, lf := range fs.files {
		err := lf.w.Flush()
		if cerr := lf.f.Close(); err == nil {
			err = cerr
		}
		if err != nil && first == nil {
			first = fmt.Errorf("writing log %s: %w", path, err)
		}
	}
	fs.files = nil
	return first
}

// cloneLogs is what one clone (all its lanes) logs.
type cloneLogs struct {
	cfg   IOLogs
	files [logKinds]*logFile
	base  int64 // nanotime of time 0 (the end of the ramp)
	// lanes share the logs: the first to begin sets time 0, the last to
	// end writes the partial window.
	lanes, begun, ended int
	// window sums per direction, with log_avg_msec.
	mu        sync.Mutex
	windowEnd int64
	bytes     [2]int64
	ios       [2]int64
	sum       [logKinds][2]int64 // latency sums (lat, clat, slat)
	n         [logKinds][2]int64
	line      []byte
}

// openCloneLogs opens clone number thread's logs (from 1 over the run),
// which its lanes share.
func openCloneLogs(fs *logFiles, cfg IOLogs, thread, lanes int) (*cloneLogs, error) {
	if !cfg.any() {
		return nil, nil
	}
	c := &cloneLogs{cfg: cfg, lanes: lanes}
	for k := range logKinds {
		prefix := cfg.BW
		switch k {
		case logIOPS:
			prefix = cfg.IOPS
		case logLat, logClat, logSlat:
			prefix = cfg.Lat
		}
		if prefix == "" {
			continue
		}
		path := fmt.Sprintf("%s_%s.%d.log", prefix, logSuffixes[k], thread)
		if cfg.Shared {
			path = fmt.Sprintf("%s_%s.log", prefix, logSuffixes[k])
		}
		lf, err := fs.open(path)
		if err != nil {
			return nil, err
		}
		c.files[k] = lf
	}
	return c, nil
}

// begin sets time 0 (the end of the ramp) and drops what the ramp summed.
func (c *cloneLogs) begin(at int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.begun++; c.begun > 1 && c.begun <= c.lanes {
		return // another lane of the clone began the measured phase
	}
	c.base, c.windowEnd = at, at+c.cfg.AvgMsec*int64(time.Millisecond)
	c.bytes, c.ios, c.sum, c.n = [2]int64{}, [2]int64{}, [logKinds][2]int64{}, [logKinds][2]int64{}
}

// write appends one entry to log k.
func (c *cloneLogs) write(k logKind, at int64, value int64, dir uint8, bs, off int64) {
	lf := c.files[k]
	if lf == nil {
		return
	}
	b := strconv.AppendInt(c.line[:0], (at-c.base)/int64(time.Millisecond), 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, value, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(dir), 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, bs, 10)
	if c.cfg.Offset {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, off, 10)
	}
	b = append(b, ", 0\n"...) // the IO's priority class, which fio logs last

	c.line = b
	lf.mu.Lock()
	_, _ = lf.w.Write(b) // a write error shows at the flush (closeAll)
	lf.mu.Unlock()
}

// io logs one completed IO: its direction, size, offset, completion time
// and latencies (ns).
func (c *cloneLogs) io(dir uint8, size, off, at, lat, clat, slat int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cfg.AvgMsec == 0 {
		if clat > 0 {
			c.write(logBW, at, size*int64(time.Second)/1024/clat, dir, size, off)
		}
		c.write(logIOPS, at, 1, dir, size, off)
		c.write(logLat, at, lat, dir, size, off)
		c.write(logClat, at, clat, dir, size, off)
		if slat >= 0 {
			c.write(logSlat, at, slat, dir, size, off)
		}
		return
	}
	for at >= c.windowEnd {
		c.flushWindow(c.windowEnd, true)
		c.windowEnd += c.cfg.AvgMsec * int64(time.Millisecond)
	}
	c.bytes[dir] += size
	c.ios[dir]++
	for k, v := range [...]int64{logLat: lat, logClat: clat, logSlat: slat} {
		if k >= int(logLat) && v >= 0 {
			c.sum[k][dir] += v
			c.n[k][dir]++
		}
	}
}

// flushWindow writes the window ending at end: bandwidth and IOPS only for
// a whole window, the latencies for any.
func (c *cloneLogs) flushWindow(end int64, whole bool) {
	secs := float64(c.cfg.AvgMsec) / 1000
	for d := uint8(0); d < 2; d++ {
		if c.ios[d] > 0 && whole {
			c.write(logBW, end, int64(float64(c.bytes[d])/1024/secs), d, 0, 0)
			c.write(logIOPS, end, int64(float64(c.ios[d])/secs+0.5), d, 0, 0)
		}
		for _, k := range []logKind{logLat, logClat, logSlat} {
			if c.n[k][d] > 0 {
				c.write(k, end, c.sum[k][d]/c.n[k][d], d, 0, 0)
			}
		}
	}
	c.bytes, c.ios, c.sum, c.n = [2]int64{}, [2]int64{}, [logKinds][2]int64{}, [logKinds][2]int64{}
}

// end writes the last, partial window's latencies (log_avg_msec).
func (c *cloneLogs) end(at int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended++; c.ended < c.lanes {
		return // other lanes still log into the window
	}
	if c.cfg.AvgMsec > 0 {
		c.flushWindow(at, false)
	}
}
