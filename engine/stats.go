//go:build linux

package engine

import (
	"time"

	"github.com/storagebench/storagebench/engine/hist"
	"golang.org/x/sys/unix"
)

// Directions, indexing per-direction stats.
const (
	dirRead  = 0
	dirWrite = 1
)

// IO operations in a slot.
const (
	opRead  uint8 = 0
	opWrite uint8 = 1
	opFsync uint8 = 2
	// opFdatasync is fio's fdatasync: the data and only the metadata
	// needed to read it back (not the mtime).
	opFdatasync uint8 = 3
)

// isSync reports whether op is an fsync or fdatasync, which carry no data
// and are measured apart (fio's sync latency).
func isSync(op uint8) bool { return op >= opFsync }

// dirStats is one direction's measurement.
type dirStats struct {
	slat, clat, lat hist.Histogram
	ios             int64
	bytes           int64
	short           int64
}

// intervalPoint is one time-series interval of one worker. The interval's
// latency histogram is kept encoded (a few hundred bytes) so that groups can
// merge it exactly without holding 30 KB per second per worker.
type intervalPoint struct {
	endOffset int64 // ns from measurement start
	ios       [2]int64
	bytes     [2]int64
	lat       string // hist encoding of lat, both directions
}

// depthBuckets are fio's iodepth_level buckets: 1, 2, 4, 8, 16, 32, >=64.
const depthBuckets = 7

func depthBucket(d int) int {
	switch {
	case d <= 1:
		return 0
	case d >= 64:
		return 6
	}
	b := 0
	for d > 1 {
		d >>= 1
		b++
	}
	return b
}

// workerStats is everything one worker measures; only its worker writes it
// while running, and Run reads it after the worker finished.
type workerStats struct {
	dir       [2]dirStats
	sync      hist.Histogram
	interval  hist.Histogram
	cur       intervalPoint
	series    []intervalPoint
	depth     [depthBuckets]int64
	start     int64 // nanotime of measurement start
	end       int64
	startWall time.Time
	endWall   time.Time
	ru0, ru1  unix.Rusage
	hasCPU    bool
}

// reset empties the measurement (at the end of the ramp).
func (s *workerStats) reset() {
	for i := range s.dir {
		s.dir[i].slat.Reset()
		s.dir[i].clat.Reset()
		s.dir[i].lat.Reset()
		s.dir[i].ios, s.dir[i].bytes, s.dir[i].short = 0, 0, 0
	}
	s.sync.Reset()
	s.interval.Reset()
	s.cur = intervalPoint{}
	s.series = s.series[:0]
	s.depth = [depthBuckets]int64{}
}

// begin starts the measured phase at nanotime now.
func (s *workerStats) begin(now int64) {
	s.reset()
	s.start = now
	s.startWall = time.Now()
	s.hasCPU = unix.Getrusage(unix.RUSAGE_THREAD, &s.ru0) == nil
}

// finish ends the measured phase, closing the last partial interval.
func (s *workerStats) finish(now int64) {
	s.end = now
	s.endWall = time.Now()
	if s.hasCPU {
		s.hasCPU = unix.Getrusage(unix.RUSAGE_THREAD, &s.ru1) == nil
	}
	// A last partial interval counts if it saw IO or lasted at least a
	// millisecond (a stop right on a boundary leaves nothing to report).
	if s.cur.ios[0]+s.cur.ios[1] > 0 || now-s.start-s.lastEnd() >= 1e6 {
		s.closeInterval(now - s.start)
	}
}

func (s *workerStats) lastEnd() int64 {
	if len(s.series) == 0 {
		return 0
	}
	return s.series[len(s.series)-1].endOffset
}

// closeInterval appends the current interval ending at offset.
func (s *workerStats) closeInterval(offset int64) {
	s.cur.endOffset = offset
	s.cur.lat = s.interval.Encode()
	s.series = append(s.series, s.cur)
	s.cur = intervalPoint{}
	s.interval.Reset()
}

// cpu returns user and system time used by the thread during measurement.
func (s *workerStats) cpu() (usr, sys time.Duration, ctx, minf, majf int64) {
	if !s.hasCPU {
		return 0, 0, 0, 0, 0
	}
	tv := func(t unix.Timeval) time.Duration { return time.Duration(t.Nano()) }
	usr = tv(s.ru1.Utime) - tv(s.ru0.Utime)
	sys = tv(s.ru1.Stime) - tv(s.ru0.Stime)
	ctx = (s.ru1.Nvcsw + s.ru1.Nivcsw) - (s.ru0.Nvcsw + s.ru0.Nivcsw)
	minf = s.ru1.Minflt - s.ru0.Minflt
	majf = s.ru1.Majflt - s.ru0.Majflt
	return
}
