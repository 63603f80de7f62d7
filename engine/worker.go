//go:build linux

package engine

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// yieldEvery is how often a worker passes through the Go scheduler.
//
// Go's sysmon (runtime.retake) treats a P whose schedule tick has not moved
// for 10 ms (forcePreemptNS) as stuck: it preempts the goroutine, or, while
// it waits in a system call, takes its P away, and as the tick still does
// not move it does so again on every sysmon tick (20 µs) after that, so
// each return from the kernel takes the slow path. Only passing through the
// scheduler moves the tick. For a goroutine locked to its thread that pass
// is a hand-off of the P to another thread and back (about five futex calls
// and three context switches), which is why it is not done more often than
// needed: every 8 ms keeps the tick fresh with 2 ms to spare for the loop
// turn that notices it is due. Measured on the memory-backed loop device
// against 2 ms: futex calls per IO 0.239 -> 0.064 at io_uring QD1 and
// 0.289 -> 0.077 with 8 psync jobs, context switches per IO 1.148 -> 1.046
// and 1.189 -> 1.066 (fio: 1.01).
const yieldEvery = 8 * time.Millisecond

// slot is one IO buffer with the IO using it.
type slot struct {
	buf      []byte
	off      int64
	issue    int64 // nanotime handed to the kernel
	intended int64 // nanotime it was due (pacing), else issue
	slat     int64 // submission time, -1 where the backend does not time it
	size     int32
	op       uint8
	check    uint8 // what its completion checks (checkNone, ...)
	file     int32
}

// worker runs one clone of a job (or, for psync emulating a queue depth,
// one lane of a clone) on its own locked OS thread. It owns every piece of
// state it touches while running: nothing on the IO path is shared.
type worker struct {
	job   *JobSpec
	jobID int
	clone int
	lane  int
	lanes int
	depth int
	// cpus the worker's thread runs on (see affinity.go); empty: anywhere.
	cpus []int

	files  []fileSpec
	fds    []int
	seqPos [2][]int64 // next sequential offset per direction and file
	// curFile is the file the last IO went to; fileIOs and fileBytes
	// count what went to it since it was chosen (file_service_type).
	curFile            int
	fileIOs, fileBytes int64

	kind     string
	features string
	be       backend
	arena    *arena
	slots    []slot
	free     []int32
	batch    []int32
	// submitEvery is how many prepared IOs each submission hands to the
	// kernel (iodepth_batch_submit).
	submitEvery int
	// reapLeast and reapMost bound the completions one wait reaps
	// (iodepth_batch_complete_min and _max).
	reapLeast, reapMost int
	comps               []completion
	// spin looks for a completion before an untimed wait sleeps for one
	// (spin_wait.go); nil where the backend cannot tell without a system
	// call.
	spin     *spinWait
	rng      rng
	split    *sizeSplit   // bssplit's sizes, nil without it
	draws    []*blockDraw // random_distribution's, per file; nil: uniform
	sizeStep int64
	align    int64

	// timeSlat is false for psync, whose IO happens in wait: there is no
	// separate submission to time (fio reports no slat for it either).
	timeSlat bool

	// The measured phase's limits: bytes (size, io_size, loops) unless
	// time based, and reads and writes (number_ios). A lane's share may be
	// 0, so whether there is a limit is apart from its value.
	byteLimited, ioLimited  bool
	limitBytes, issuedBytes int64
	limitIOs, issuedIOs     int64
	// skippedBytes are the file tails the passes ended at, too short for
	// a block; passesDone says a pass ended with the byte limit met.
	skippedBytes int64
	passesDone   bool
	// writes counts the writes issued, for fsync and fdatasync;
	// lastWasSync keeps two syncs from following each other (fio's
	// last_was_sync).
	writes      int
	lastWasSync bool
	// sinceOffset counts the IOs since a random pattern's last new
	// offset (rw=PATTERN:N).
	sinceOffset int64

	// groupStop stops the worker's reporting group (exitall); exitAll
	// says whether the worker's end sets it.
	groupStop *atomic.Bool
	exitAll   bool

	// latency is the clone's latency_target search (nil without one);
	// latencyFound ends the job once the search is over.
	latency      *latencySearch
	latencyFound bool
	// think is fio's thinktime (thinktime.go); nil without one.
	think *thinker
	// dirPace is rate_iops=READ,WRITE's schedules (rate_direction_linux.go);
	// nil without per-direction caps.
	dirPace *directionPace
	// verify is fio's verify (verify_worker.go); nil without one.
	verify *workerVerify
	// content fills writes by the buffer options (buffer_content.go);
	// nil: the default scramble.
	content *contentFiller
	// floor is fio's rate_min and rate_iops_min (rate_min.go); nil
	// without one.
	floor *rateFloor
	// after is closed when the job this one waits for has finished
	// (wait_for); nil without one.
	after <-chan struct{}
	// logs are the clone's fio logs (write_bw_log ...), shared by its
	// lanes; nil without any.
	logs *cloneLogs
	// progress counts completions for the steady-state monitor, which
	// stops steady once the worker's unit is steady (both nil unless the
	// job has ss_dur).
	progress *ioProgress
	steady   *steadyUnit

	// opBuf is what sb_fileread reads into and sb_create_write writes
	// from; order the file engines' visiting order (see fileops.go).
	opBuf []byte
	order []int

	stats workerStats
	err   error
	ran   bool // IO was issued
}

// setup opens files, maps buffers and creates the backend. It runs on the
// worker's locked thread.
func (w *worker) setup() error {
	j := w.job
	flags := unix.O_CLOEXEC
	if j.readPercent() == 100 {
		flags |= unix.O_RDONLY
	} else {
		flags |= unix.O_RDWR
	}
	if j.Direct {
		flags |= unix.O_DIRECT
	}
	if j.Sync {
		flags |= unix.O_SYNC
	}
	if j.DSync {
		flags |= unix.O_DSYNC
	}
	perm := uint32(0)
	if j.CreateOnOpen {
		flags, perm = flags|unix.O_CREAT, 0o600 // fio's mode for the files it creates
	}
	for _, f := range w.files {
		if j.diskless() {
			break // null opens nothing; its backend needs no file
		}
		fd, err := openDataFile(f, flags, perm)
		if refusesDirect(flags, err) {
			return fmt.Errorf("job %q: %w", j.Name, directUnsupported(f.path, err))
		}
		if err != nil {
			return fmt.Errorf("job %q: opening %s: %w", j.Name, f.path, err)
		}
		w.fds = append(w.fds, fd)
		if j.Invalidate && !j.Direct {
			// Advice, as in fio: a file system that ignores it leaves
			// the cache as it is, which is no reason to stop the job.
			_ = unix.Fadvise(fd, f.base, f.length, unix.FADV_DONTNEED)
		}
	}
	for d := range w.seqPos {
		w.seqPos[d] = make([]int64, len(w.files))
		for i, f := range w.files {
			// Lanes split a sequential region into equal streams.
			start := f.length / int64(w.lanes) * int64(w.lane)
			w.seqPos[d][i] = f.base + start - start%j.BSMin
		}
	}
	var err error
	if w.arena, err = newArena(w.depth, j.BSMax); err != nil {
		return fmt.Errorf("job %q: %w", j.Name, err)
	}
	w.seedRNG()
	if j.Verify.Sum != "" {
		var err error
		if w.verify, err = newWorkerVerify(j, w.files, w.lane, w.lanes, w.seedBase()); err != nil {
			return fmt.Errorf("job %q: %w", j.Name, err)
		}
	}
	if j.Content.custom() {
		w.content = newContentFiller(j.Content, j.BSMax, &w.rng)
	}
	w.slots = make([]slot, w.depth)
	for i := range w.slots {
		w.slots[i].buf = w.arena.slot(i)[:j.BSMax]
		if !j.ZeroBuffers {
			w.rng.fill(w.slots[i].buf)
		}
		w.free = append(w.free, int32(i))
	}
	w.batch = make([]int32, 0, w.depth)
	w.submitEvery = j.submitEvery(w.depth)
	w.reapLeast, w.reapMost = j.reapBounds(w.depth)
	w.comps = make([]completion, 0, 2*w.depth)
	w.sizeStep = j.sizeStep()
	w.split = newSizeSplit(j.BSSplit)
	w.align = j.offsetAlign()
	if j.isRandom() && !j.RandomDistribution.uniform() {
		for _, f := range w.files {
			d, err := newBlockDraw(j.RandomDistribution, uint64((f.length-j.BSMax)/w.align+1), w.align, f.length, w.rng.next())
			if err != nil {
				return fmt.Errorf("job %q: random_distribution: %s: %w", j.Name, f.path, err)
			}
			w.draws = append(w.draws, d)
		}
	}
	be, features, err := newBackend(w.kind, w.depth, w.fds, w.arena.mem)
	if err != nil {
		return fmt.Errorf("job %q: %s backend: %w", j.Name, w.kind, err)
	}
	w.be, w.features = be, features
	if r, ok := be.(readiness); ok && r.canTellReady() && w.reapLeast <= 1 && !j.NoSpinWait {
		// Not with iodepth_batch_complete_min above 1: one completion
		// found by spinning would still leave the wait to sleep for the
		// rest.
		// How long it looks is chosen when the IO starts (chooseLook).
		w.spin = newSpinWait(r.ready, spinBudgetShort)
	}
	w.timeSlat = w.kind != EnginePsync && w.kind != EngineMmap
	if j.LatencyTarget > 0 {
		w.latency = newLatencySearch(j, w.depth)
	}
	if !j.TimeBased {
		var regions int64
		for _, f := range w.files {
			regions += f.length
		}
		w.byteLimited = true
		w.limitBytes = j.ioBytes(regions)
		if w.lanes > 1 {
			// Lanes split the bytes in whole blocks, so that they add
			// up to what one thread would issue.
			blocks := w.limitBytes/j.BSMin + min(w.limitBytes%j.BSMin, 1)
			w.limitBytes = share(blocks, w.lane, w.lanes) * j.BSMin
		}
	}
	if j.NumberIOs > 0 {
		w.ioLimited = true
		w.limitIOs = share(j.NumberIOs, w.lane, w.lanes)
	}
	return nil
}

// seedRNG seeds the worker's generator: from randseed while randrepeat is
// on (each job, clone and lane its own stream), else from the clock.
func (w *worker) seedRNG() { w.rng = newRNG(w.seedBase()) }

// seedBase is the worker's seed: randseed (or the clock without
// randrepeat), each job, clone and lane its own.
func (w *worker) seedBase() uint64 {
	seed := w.job.RandSeed
	if !w.job.RandRepeat {
		seed = uint64(time.Now().UnixNano())
	}
	return seed ^ uint64(w.jobID)<<48 ^ uint64(w.clone)<<32 ^ uint64(w.lane)<<16
}

// close releases everything setup acquired.
func (w *worker) close() {
	if w.be != nil {
		w.be.close()
	}
	for _, fd := range w.fds {
		unix.Close(fd)
	}
	w.arena.close()
}

// runSchedule is the shared timing of all workers of a run.
type runSchedule struct {
	start    int64 // nanotime all workers start at
	interval int64 // time-series interval, ns
	stop     *atomic.Bool
}

// run is the IO loop. Each iteration issues what it may (all free slots, or
// what the pacer says is due), submitting as iodepth_batch_submit says,
// then waits, then accounts the completions with one timestamp per batch,
// as fio does.
func (w *worker) run(s runSchedule) {
	j := w.job
	start, started := w.waitToStart(s)
	rampEnd := start + int64(j.Ramp)
	end := int64(math.MaxInt64)
	if j.Runtime > 0 {
		end = rampEnd + int64(j.Runtime)
	}
	interval := s.interval
	if !started {
		w.stats.begin(nanotime())
		w.stats.finish(nanotime())
		return
	}
	w.chooseLook()
	var pace pacer
	if j.RateIOPS > 0 {
		pace = newPacer(j.RateIOPS, w.lane, w.lanes, start, j.RateProcess, w.rng.next())
	} else if j.ratesByDirection() {
		w.dirPace = newDirectionPace(j, w.lane, w.lanes, start, &w.rng)
	}
	measuring := false
	var nextBoundary int64
	beginMeasure := func(at int64) {
		measuring = true
		w.stats.begin(at)
		nextBoundary = at + interval
		w.issuedBytes, w.issuedIOs = 0, 0
		if pace != nil {
			pace.restart(at)
		}
		if w.dirPace != nil {
			w.dirPace.restart(at)
		}
		if w.latency != nil {
			w.latency.restart(at)
		}
		if w.floor != nil {
			w.floor.restart(at)
		}
		if w.logs != nil {
			w.logs.begin(at)
		}
	}
	w.floor = newRateFloor(j.RateMin, w.lane, w.lanes)
	if j.Ramp == 0 {
		beginMeasure(start)
	}
	w.think = newThinker(j.Think, start)
	inflight := 0
	lastYield := start
	for {
		now := nanotime()
		if now-lastYield >= int64(yieldEvery) {
			// Before sysmon takes the loop for stuck (see
			// yieldEvery). Here, before the next IO is prepared, the
			// hand-off (tens of µs) delays no IO's start: the clock
			// is read again after it, so that it is not counted in
			// the next IOs' latency (it was, once per 8 ms: +30 µs
			// at p90 of a QD1 job thinking 1 ms between IOs). IOs in
			// flight meanwhile are reaped and stamped that much later.
			runtime.Gosched()
			now = nanotime()
			lastYield = now
		}
		if !measuring && now >= rampEnd {
			beginMeasure(rampEnd)
		}
		stopping := w.err != nil || s.stop.Load() || w.groupStop.Load()
		if w.verify != nil && inflight == 0 && !stopping {
			w.verify.settle(now < end)
			if measuring && w.limitReached() && now < end {
				// The writes are done: read them back before the end.
				w.verify.finalReadBack(j)
			}
		}
		if !w.readingBack() {
			stopping = stopping || now >= end || (measuring && w.limitReached()) || w.latencyFound || (w.steady != nil && w.steady.stop.Load())
		}
		if stopping && inflight == 0 {
			break
		}
		// room is how many IOs may be issued now: every free slot, or
		// what a latency_target search's current depth leaves.
		room := len(w.free)
		if w.latency != nil {
			room = min(room, w.latency.room(inflight))
		}
		if w.think != nil && !stopping && !w.readingBack() {
			room, now = w.think.room(room, inflight, now, end, s.stop)
		}
		if !stopping && room > 0 {
			n := room
			if pace != nil && !w.readingBack() {
				n = min(n, pace.due(now))
			}
			w.batch = w.batch[:0]
			sent, prepared := 0, now
			var err error
			for ; n > 0 && err == nil; n-- {
				if !w.prepOne(now, pace, measuring) {
					break
				}
				thinkDue := w.think != nil && !w.readingBack() && !isSync(w.slots[w.batch[len(w.batch)-1]].op) && w.think.issuedOne(now)
				if len(w.batch)-sent >= w.submitEvery {
					inflight += len(w.batch) - sent
					prepared, err = w.send(w.batch[sent:], prepared, inflight, measuring, pace == nil && w.dirPace == nil)
					sent = len(w.batch)
				}
				if thinkDue {
					break // the think is due: issue no more
				}
			}
			if err == nil && len(w.batch) > sent {
				inflight += len(w.batch) - sent
				_, err = w.send(w.batch[sent:], prepared, inflight, measuring, pace == nil && w.dirPace == nil)
			}
			if err != nil {
				w.fail(fmt.Errorf("job %q: %w", j.Name, err))
				break
			}
		}
		// How many completions to wait for, and how long: see decideWait.
		ws := waitState{
			now: now, inflight: inflight, free: room, paced: pace != nil || w.dirPace != nil,
			measuring: measuring, rampEnd: rampEnd, end: end, nextBoundary: nextBoundary, stopping: stopping,
			resumeAt: w.think.resumeAt(),
		}
		if pace != nil && room > 0 && !stopping {
			ws.nextDue = pace.nextDue() // only then does decideWait read it
		}
		if w.dirPace != nil && room > 0 && !stopping {
			ws.nextDue = w.dirPace.nextDue(now, j.readPercent())
		}
		ws.readingBack = w.readingBack()
		ws.reapLeast, ws.reapMost = w.reapLeast, w.reapMost
		wd := decideWait(ws)
		if w.spin != nil && wd.looksFirst(inflight) {
			w.spin.spin()
		}
		var err error
		w.comps, err = w.be.wait(wd.minComplete, wd.maxComplete, wd.timeout, w.comps[:0])
		if err != nil {
			w.fail(fmt.Errorf("job %q: %w", j.Name, err))
			break // the backend is unusable; close cancels what is in flight
		}
		var t int64
		if len(w.comps) > 0 {
			t = nanotime()
			inflight -= len(w.comps)
			w.complete(t, measuring)
		}
		if w.think != nil {
			w.think.check(now)
		}
		if measuring {
			if t == 0 {
				t = nanotime()
			}
			if w.latency != nil && !w.latencyFound {
				switch w.latency.turn(t, inflight) {
				case latencyFinalRun:
					// The depth is found: measure it alone, as
					// fio resets its statistics here.
					beginMeasure(t)
				case latencyDone:
					w.latencyFound = true
				}
			}
			if w.floor != nil && !w.readingBack() {
				d := &w.stats.dir
				if err := w.floor.check(t, [2]int64{d[opRead].bytes, d[opWrite].bytes}, [2]int64{d[opRead].ios, d[opWrite].ios}); err != nil {
					w.fail(fmt.Errorf("job %q: %w", j.Name, err))
				}
			}
			for t >= nextBoundary {
				w.stats.closeInterval(nextBoundary - w.stats.start)
				nextBoundary += interval
			}
		}
	}
	if !measuring {
		// Stopped during the ramp: nothing was measured.
		w.stats.begin(nanotime())
	} else if w.logs != nil {
		w.logs.end(nanotime())
	}
	if j.EndFsync && w.err == nil && j.readPercent() < 100 {
		for i, fd := range w.fds {
			if err := unix.Fsync(fd); err != nil {
				w.fail(fmt.Errorf("job %q: end_fsync of %s: %w", j.Name, w.files[i].path, err))
			}
		}
	}
	w.stats.finish(nanotime())
}

// chooseLook sets how long the worker looks for a completion before it
// sleeps (spinBudgetFor), and names the look in the backend reason. It is
// chosen when the IO starts rather than at setup: runs in one process that
// start together (a slot's concurrent cells, the local runner's clients)
// have all reserved their workers by then, so they choose alike.
func (w *worker) chooseLook() {
	if w.spin == nil {
		return
	}
	workers, cpus := workersInFlight()
	look := spinBudgetFor(workers, cpus, w.job.BSMax)
	w.spin.budget = int64(look)
	w.features = strings.TrimPrefix(fmt.Sprintf("%s,spin_wait_%dus", w.features, look.Microseconds()), ",")
}

// send submits the prepared IOs of batch, which inflight already counts,
// and stamps them. Submission is timed on its own, as fio does: slat runs
// from preparation (prepared) to the kernel having accepted the IOs, clat
// from there to completion. An unpaced IO is intended when it was
// prepared. It returns when the kernel accepted them: the next IOs'
// preparation starts there.
func (w *worker) send(batch []int32, prepared int64, inflight int, measuring, unpaced bool) (int64, error) {
	w.ran = true
	if measuring {
		w.stats.depth[depthBucket(inflight)] += int64(len(batch))
	}
	if err := w.be.submit(); err != nil {
		return 0, err
	}
	ts := nanotime()
	for _, i := range batch {
		sl := &w.slots[i]
		sl.issue = ts
		if unpaced {
			sl.intended = prepared
		}
		sl.slat = -1
		if measuring && w.timeSlat && !isSync(sl.op) {
			sl.slat = ts - prepared
			w.stats.dir[sl.op].slat.Record(sl.slat)
		}
	}
	return ts, nil
}

// prepOne prepares the next IO into a free slot. It returns false when the
// byte limit of the measured phase is reached.
func (w *worker) prepOne(now int64, pace pacer, measuring bool) bool {
	j := w.job
	if w.readingBack() {
		return w.prepCheck(now)
	}
	// The limits count from the end of the ramp; the ramp itself is not
	// limited.
	if measuring && w.limitReached() {
		return false
	}
	fi := w.pickFile()
	if op, due := w.syncDue(); due {
		s, si := w.takeSlot(pace, fi)
		if w.dirPace != nil {
			s.intended = now
		}
		w.countIssued(op)
		s.op, s.size, s.off = op, 0, 0
		w.be.prepSync(fi, op == opFdatasync, si)
		return true
	}
	op := opRead
	if rp := j.readPercent(); rp < 100 && (rp == 0 || int(w.rng.below(100)) >= rp) {
		op = opWrite
	}
	if w.dirPace != nil {
		var due bool
		if op, due = w.dirPace.choose(op, now); !due {
			return false // neither direction is due: wait for the schedule
		}
	}
	size := j.BSMin
	switch {
	case j.directionSize(op) > 0:
		size = j.directionSize(op)
	case w.split != nil:
		size = w.split.draw(&w.rng)
	case j.BSMax != j.BSMin:
		size += int64(w.rng.below(uint64((j.BSMax-j.BSMin)/w.sizeStep+1))) * w.sizeStep
	}
	f := &w.files[fi]
	var off int64
	pos := &w.seqPos[op][fi]
	if v := w.verify; v != nil {
		if v.waiting() {
			return false // for a read-back or a new pass (settle)
		}
		var ok bool
		if fi, off, ok = v.nextBlock(fi, op == opWrite); !ok {
			// The pass is over: its blocks are read back (settle)
			// before the next pass, once those in flight are done.
			// A pass with no block (a lane whose share is none)
			// ends the job: another would have none either.
			v.passEnded = w.nextPass(v.tails, measuring) && v.blocks() > 0
			w.passesDone = w.passesDone || v.blocks() == 0
			return false
		}
	} else if j.isRandom() && w.randomOffsetDue() && (j.PercentSequential == 0 || int(w.rng.below(100)) >= j.PercentSequential) {
		if w.draws != nil {
			off = f.base + int64(w.draws[fi].draw(&w.rng))*w.align
		} else {
			align := w.align
			if j.BlockAlign == 0 && j.directionSize(op) > 0 {
				align = size // each direction on its own size, as fio aligns
			}
			off = f.base + int64(w.rng.below(uint64((f.length-size)/align+1)))*align
		}
		switch {
		case j.SameOffset && j.OffsetModifier > 1:
			*pos = off // rw_sequencer=identical: the next IOs repeat it
		case j.PercentSequential > 0 || j.OffsetModifier > 1:
			*pos = off + size // the sequential share continues from here
		}
	} else if j.isRandom() && j.SameOffset && j.OffsetModifier > 1 && *pos+size <= f.base+f.length {
		off = *pos
	} else {
		if *pos+size > f.base+f.length {
			if !w.passOver(*pos, f, measuring) {
				return false
			}
			*pos = f.base
		}
		off = *pos
		*pos += size + j.holeAfter()
	}
	s, si := w.takeSlot(pace, fi)
	if w.dirPace != nil {
		s.intended = w.dirPace.take(op, now)
	}
	w.issuedBytes += size
	w.issuedIOs++
	w.fileBytes += size
	buf := s.buf[:size]
	if j.Verify.Only {
		op = opRead // verify_only checks what the write would have written
	}
	if op == opRead && j.checksEveryRead() {
		s.check = checkBlock
	}
	switch {
	case op == opWrite:
		if !j.ZeroBuffers && (w.content == nil || w.content.fill(buf, &w.rng)) {
			scramble(buf, off, now)
		}
		if w.verify != nil {
			w.verify.stamp(fi, buf, off)
			w.verify.wrote(j.Verify.Backlog)
		}
		w.be.prepWrite(fi, buf, off, si)
	default:
		w.be.prepRead(fi, buf, off, si)
	}
	w.countIssued(op)
	s.op, s.size, s.off = op, int32(size), off
	return true
}

// pickFile chooses the file of the next IO by file_service_type: each
// choice holds for FileServiceEvery IOs (roundrobin moves to the next file,
// random draws one), and sequential holds until the file's region's bytes
// are done.
func (w *worker) pickFile() int {
	n := len(w.files)
	if n <= 1 {
		return 0
	}
	j := w.job
	switch {
	case w.issuedIOs == 0 && w.fileIOs == 0:
		// The first IO: roundrobin and sequential start at file 0.
		if j.FileService == FileServiceRandom {
			w.curFile = int(w.rng.below(uint64(n)))
		}
	case j.FileService == FileServiceSequential:
		if w.fileBytes >= w.files[w.curFile].length {
			w.curFile, w.fileBytes = (w.curFile+1)%n, 0
		}
	case w.fileIOs >= max(j.FileServiceEvery, 1):
		w.fileIOs = 0
		if j.FileService == FileServiceRandom {
			w.curFile = int(w.rng.below(uint64(n)))
		} else {
			w.curFile = (w.curFile + 1) % n
		}
	}
	w.fileIOs++
	return w.curFile
}

// randomOffsetDue reports whether a random pattern's next IO takes a new
// random offset: every OffsetModifier-th IO (every IO without one).
func (w *worker) randomOffsetDue() bool {
	every := w.job.OffsetModifier
	if every <= 1 {
		return true
	}
	due := w.sinceOffset == 0
	w.sinceOffset = (w.sinceOffset + 1) % every
	return due
}

// takeSlot takes a free slot for the next IO, on file fi, and queues it for
// submission with its intended start.
func (w *worker) takeSlot(pace pacer, fi int) (*slot, int) {
	si := w.free[len(w.free)-1]
	w.free = w.free[:len(w.free)-1]
	s := &w.slots[si]
	w.batch = append(w.batch, si)
	if pace != nil {
		s.intended = pace.next()
	}
	s.file = int32(fi)
	s.check = checkNone
	return s, int(si)
}

// nextPass is a sequential stream reaching its file's end with tail bytes
// too few for the next block. As fio, the pass ends there and the tail
// counts as done (fio's io_skip_bytes), so that size=64k with bs=2300 does
// 28 writes, not a 29th from the file's start; a new pass starts only
// while the byte limit is not met. It reports whether one does. Lanes
// (psync's fallback threads) split a file mid-block, so the tail is theirs
// to share and is not counted.
func (w *worker) nextPass(tail int64, measuring bool) bool {
	if !measuring || !w.byteLimited || w.lanes > 1 {
		return true
	}
	w.skippedBytes += tail
	if w.issuedBytes+w.skippedBytes >= w.limitBytes {
		w.passesDone = true
		return false
	}
	return true
}

// passOver is a sequential stream at pos reaching its file's end: it
// reports whether a new pass starts. With holes (rw=write:8k), as fio
// 3.33 does: a pass whose last IO ended at the region's end ends a byte-
// limited job, one that ended short of it starts again, no bytes skipped
// (size=40k, bs=4k: 4 writes; size=44k: 11).
func (w *worker) passOver(pos int64, f *fileSpec, measuring bool) bool {
	end := f.base + f.length
	if hole := w.job.holeAfter(); hole > 0 {
		if pos-hole >= end && measuring && w.byteLimited && w.lanes == 1 {
			w.passesDone = true
			return false
		}
		return true
	}
	return w.nextPass(end-pos+f.tail, measuring)
}

// syncDue says whether the next IO is an fsync or fdatasync, as fio's
// get_rw_ddir decides: after every fsync-th write an fsync, else after every
// fdatasync-th write an fdatasync, never two in a row.
func (w *worker) syncDue() (op uint8, due bool) {
	j := w.job
	switch {
	case w.lastWasSync || w.writes == 0:
		return 0, false
	case j.Fsync > 0 && w.writes%j.Fsync == 0:
		return opFsync, true
	case j.Fdatasync > 0 && w.writes%j.Fdatasync == 0:
		return opFdatasync, true
	}
	return 0, false
}

// countIssued keeps what syncDue decides on: the writes issued, and
// whether the last IO was a sync (any other IO, a read too, clears it).
func (w *worker) countIssued(op uint8) {
	w.lastWasSync = isSync(op)
	if op == opWrite {
		w.writes++
	}
}

// sleepUntil waits for a job's delayed start (startdelay), or returns
// false when the run is stopped meanwhile.
func (w *worker) sleepUntil(at int64, stop *atomic.Bool) bool {
	for {
		left := at - nanotime()
		if stop.Load() {
			return false
		}
		if left <= 0 {
			return true
		}
		time.Sleep(min(time.Duration(left), 10*time.Millisecond))
	}
}

// limitReached reports whether the measured phase has issued all the bytes
// or IOs it may (size, io_size and loops; number_ios).
func (w *worker) limitReached() bool {
	return w.passesDone || (w.byteLimited && w.issuedBytes >= w.limitBytes) || (w.ioLimited && w.issuedIOs >= w.limitIOs)
}

// complete accounts the completions in w.comps, all stamped tc.
func (w *worker) complete(tc int64, measuring bool) {
	st := &w.stats
	var done, doneBytes int64 // reads and writes, for w.progress
	for _, c := range w.comps {
		s := &w.slots[c.slot]
		w.free = append(w.free, c.slot)
		if c.res < 0 {
			w.fail(ioError(w.job, &w.files[s.file], s, unix.Errno(-c.res)))
			continue
		}
		if c.res == 0 && s.size > 0 {
			// Nothing moved: a read at or past the file's end (a file
			// create_on_open made empty, or one shrunk under the job).
			// fio fails the job with EIO ("full resid"); so does this.
			err := ioError(w.job, &w.files[s.file], s, unix.EIO)
			err.Why = "it moved no bytes: the file ends before it (create_on_open leaves new files empty)"
			w.fail(err)
			continue
		}
		if s.check != checkNone {
			if err := w.checkRead(s, c.res); err != nil {
				w.fail(err)
			}
		}
		if !isSync(s.op) {
			done, doneBytes = done+1, doneBytes+int64(c.res)
			if w.think != nil {
				w.think.completed++
			}
		}
		if !measuring {
			continue
		}
		if isSync(s.op) {
			st.sync.Record(tc - s.issue)
			continue
		}
		d := &st.dir[s.op]
		d.clat.Record(tc - s.issue)
		lat := tc - s.intended
		if w.logs != nil {
			w.logs.io(s.op, int64(c.res), s.off, tc, lat, tc-s.issue, s.slat)
		}
		d.lat.Record(lat)
		if w.latency != nil && !w.latency.observe(lat) {
			w.fail(latencyMissed(w.job, lat))
		}
		st.interval.Record(lat)
		d.ios++
		d.bytes += int64(c.res)
		st.cur.ios[s.op]++
		st.cur.bytes[s.op] += int64(c.res)
		if c.res < s.size {
			d.short++
		}
	}
	if w.progress != nil {
		w.progress.ios.Add(done)
		w.progress.bytes.Add(doneBytes)
	}
}

// latencyMissed is the failure of a latency_target job whose IO missed the
// target at queue depth 1 while every IO must meet it (fio's "latency of N
// nsec exceeds specified max", ETIMEDOUT).
func latencyMissed(j *JobSpec, lat int64) error {
	return fmt.Errorf("job %q: latency_target: an IO took %v at queue depth 1, more than the target %v, and latency_percentile=100 requires every IO to meet it: %w",
		j.Name, time.Duration(lat), j.LatencyTarget, unix.ETIMEDOUT)
}

// fail records the first error; the loop then stops issuing and drains.
func (w *worker) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// ioError names the file, operation and cause of a failed IO.
func ioError(j *JobSpec, f *fileSpec, s *slot, errno unix.Errno) *IOError {
	op := map[uint8]string{opRead: "read", opWrite: "write", opFsync: "fsync", opFdatasync: "fdatasync"}[s.op]
	return &IOError{Job: j.Name, Path: f.path, Op: op, Offset: s.off, Size: int64(s.size), Errno: errno}
}

// IOError is an IO that failed during a run (EIO, ENOSPC, ...).
type IOError struct {
	// Job is the job's name, Path the file or device, Op read, write or
	// fsync.
	Job, Path, Op string
	// Offset and Size locate the failed IO.
	Offset, Size int64
	// Errno is the kernel's error; fio's "error" field carries it too.
	Errno unix.Errno
	// Why explains an error the engine decided on (empty: the kernel's).
	Why string
}

// Error names the job, the IO and the cause in one line.
func (e *IOError) Error() string {
	if e.Op == "fsync" {
		return fmt.Sprintf("job %q: fsync of %s failed: %v", e.Job, e.Path, e.Errno)
	}
	msg := fmt.Sprintf("job %q: %s of %d bytes at offset %d of %s failed: %v", e.Job, e.Op, e.Size, e.Offset, e.Path, e.Errno)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg
}

// Unwrap exposes the errno, so errors.Is(err, unix.ENOSPC) works.
func (e *IOError) Unwrap() error { return e.Errno }

// start runs the worker on a new locked OS thread: setup, then ready is
// signalled with the setup error, then it waits for go (closed by Run) and
// runs with the schedule Run published, then done.
func (w *worker) start(ready chan<- error, begin <-chan struct{}, sched *runSchedule, done func()) {
	go func() {
		defer done()
		// The thread stays locked until the goroutine ends, and then
		// exits with it: no other goroutine inherits its state.
		runtime.LockOSThread()
		// Timer slack of 1 ns lets the pacer's short sleeps end on time
		// (the default 50 µs slack would skew a fast schedule).
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
		err := pinThread(w.cpus)
		if err != nil {
			err = fmt.Errorf("job %q: placing its thread on CPUs %v: %w", w.job.Name, w.cpus, err)
		} else if w.job.isFileOp() {
			err = w.setupFileOps()
		} else {
			err = w.setup()
		}
		ready <- err
		defer w.close()
		if err != nil {
			return
		}
		<-begin
		if sched.stop.Load() && sched.start == 0 {
			return // aborted before starting
		}
		if w.job.isFileOp() {
			w.runFileOps(*sched)
		} else {
			w.run(*sched)
		}
		switch {
		case w.err != nil && w.job.ExitAllOnError:
			sched.stop.Store(true) // every other job stops
		case w.exitAll:
			w.groupStop.Store(true) // the reporting group's other jobs stop
		}
	}()
}
