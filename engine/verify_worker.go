//go:build linux

package engine

import (
	"fmt"
	"time"
)

// What each IO's completion checks (slot.check).
const (
	checkNone = iota
	// checkBlock checks the header and the checksum.
	checkBlock
	// checkWrite also wants the generation of this pass's writes: the
	// read-back of a block this worker just wrote.
	checkWrite
)

// workerVerify is a verifying worker's state: where it is in each file's
// walk, and whether it is reading its writes back. A read-back is issued
// through the worker's own loop (prepOne asks nextCheck for its reads), so
// that its IOs are measured, logged and stopped like any other.
type workerVerify struct {
	checker *blockChecker
	walks   []blockWalk
	// seedBase is the worker's seed (its walks' orders derive from it);
	// genBase is unique to the run, job, clone and lane; gen is this
	// pass's generation, stamped into every block it writes.
	seedBase, genBase, gen uint64
	pass                   uint64
	// reading says a read-back is on; backlogDue and passEnded that one
	// is due once the IOs in flight complete.
	reading, backlogDue, passEnded bool
	sinceCheck                     int64 // writes since the last read-back
	tails                          int64 // the files' bytes after their last whole block
	readsBack                      bool  // the job reads its writes back (readsBack)
	fileCursor                     int   // the file a read-back takes its next block from
	// ledger and gens are the job's VerifyLedger and each file's
	// generations in it (nil without a ledger).
	ledger *VerifyLedger
	gens   [][]uint16
}

func newWorkerVerify(j *JobSpec, files []fileSpec, lane, lanes int, seedBase uint64) (*workerVerify, error) {
	v := &workerVerify{
		checker:   newBlockChecker(j.Verify.Sum, j.Verify.Interval),
		seedBase:  seedBase,
		genBase:   mix64(seedBase ^ uint64(time.Now().UnixNano())),
		readsBack: j.readsBack(),
	}
	mixed := j.readPercent() > 0 && j.readPercent() < 100
	for i, f := range files {
		v.tails += f.tail
		v.walks = append(v.walks, newBlockWalk(f.base, f.length, j.BSMin, lane, lanes, j.isRandom(), mixed, v.walkSeed(i)))
	}
	v.gen = mix64(v.genBase)
	if l := j.Verify.Ledger; l != nil && j.Verify.Everywhere {
		v.ledger = l
		for _, f := range files {
			g, err := l.file(f.path, f.base+f.length)
			if err != nil {
				return nil, err
			}
			v.gens = append(v.gens, g)
		}
	}
	return v, nil
}

// stamp writes a block's headers: the ledger's generations, or this
// pass's.
func (v *workerVerify) stamp(fi int, buf []byte, off int64) {
	if v.ledger != nil {
		v.checker.stampWith(v.ledger, v.gens[fi], buf, off)
		return
	}
	v.checker.stamp(buf, off, v.gen)
}

// walkSeed is file i's order in this pass: from the job's seed, so that
// verify_only visits the blocks in the order the writing run did.
func (v *workerVerify) walkSeed(i int) uint64 {
	return mix64(v.seedBase ^ v.pass<<40 ^ uint64(i))
}

// nextBlock is the file and offset of the workload's next IO, from file fi
// or, once fi's walk is over, the next file whose walk is not; false when
// every walk is over: the pass is (passEnded then waits for the IOs in
// flight to complete).
func (v *workerVerify) nextBlock(fi int, write bool) (int, int64, bool) {
	for range v.walks {
		if off, ok := v.walks[fi].take(write); ok {
			return fi, off, true
		}
		fi = (fi + 1) % len(v.walks)
	}
	v.passEnded = true
	return 0, 0, false
}

// waiting reports whether the workload waits for the IOs in flight to
// complete before a read-back or a new pass (settle).
func (v *workerVerify) waiting() bool { return v.backlogDue || v.passEnded }

// blocks is how many blocks a pass visits.
func (v *workerVerify) blocks() uint64 {
	var n uint64
	for i := range v.walks {
		n += v.walks[i].n
	}
	return n
}

// wrote counts a write for verify_backlog.
func (v *workerVerify) wrote(backlog int64) {
	v.sinceCheck++
	if backlog > 0 && v.sinceCheck >= backlog {
		v.backlogDue = true
	}
}

// nextCheck is the next block a read-back reads, or false when it has
// read them all.
func (v *workerVerify) nextCheck() (fi int, off int64, ok bool) {
	for range v.walks {
		fi = v.fileCursor
		if off, ok = v.walks[fi].nextToCheck(); ok {
			return fi, off, true
		}
		v.fileCursor = (v.fileCursor + 1) % len(v.walks)
	}
	return 0, 0, false
}

// unchecked reports whether written blocks wait to be read back.
func (v *workerVerify) unchecked() bool {
	for i := range v.walks {
		if v.walks[i].unchecked() {
			return true
		}
	}
	return false
}

// settle moves a read-back along; the worker calls it with nothing in
// flight. A read-back that has issued all its reads is over; one that is
// due starts, unless the job's time is up (inTime false: fio does not
// start one then either); a pass that ended and is read back starts the
// next pass.
func (v *workerVerify) settle(inTime bool) {
	if v.reading {
		if v.unchecked() {
			return
		}
		v.reading = false
	}
	if (v.backlogDue || v.passEnded) && v.readsBack && inTime && v.unchecked() {
		v.reading = true
		v.sinceCheck = 0
		return
	}
	v.backlogDue = false
	if v.passEnded {
		v.passEnded = false
		v.pass++
		v.gen = mix64(v.genBase + v.pass)
		for i := range v.walks {
			v.walks[i].restart(v.walkSeed(i))
		}
	}
}

// finalReadBack starts the read-back of a write job whose writes are done
// (do_verify), and reports whether it did.
func (v *workerVerify) finalReadBack(j *JobSpec) bool {
	if v.reading || !v.readsBack || j.Verify.Skip || !v.unchecked() {
		return false
	}
	v.reading = true
	return true
}

// readingBack reports whether the worker is reading its writes back.
func (w *worker) readingBack() bool { return w.verify != nil && w.verify.reading }

// prepCheck prepares the read-back's next read, or returns false when the
// read-back has issued them all.
func (w *worker) prepCheck(now int64) bool {
	fi, off, ok := w.verify.nextCheck()
	if !ok {
		return false
	}
	s, si := w.takeSlot(nil, fi)
	w.countIssued(opRead)
	s.op, s.size, s.off, s.intended, s.check = opRead, int32(w.job.BSMin), off, now, checkWrite
	w.be.prepRead(fi, s.buf[:w.job.BSMin], off, si)
	return true
}

// check checks a read's block: against the ledger's generations, or
// against this pass's for a read-back.
func (v *workerVerify) check(s *slot) *blockProblem {
	if v.ledger != nil {
		return v.checker.checkWith(v.ledger, v.gens[s.file], s.buf[:s.size], s.off)
	}
	return v.checker.check(s.buf[:s.size], s.off, v.gen, s.check == checkWrite)
}

// checkRead checks a completed read that carries a check.
func (w *worker) checkRead(s *slot, res int32) error {
	v := w.verify
	var p *blockProblem
	if res < s.size {
		p = &blockProblem{what: fmt.Sprintf("the read returned %d of %d bytes", res, s.size)}
	} else {
		p = v.check(s)
	}
	if p == nil {
		return nil
	}
	return &VerifyError{Job: w.job.Name, Path: w.files[s.file].path, Offset: s.off, Size: int64(s.size), Sum: v.checker.name,
		Problem: p.what, Expected: p.expected, Found: p.found}
}
