package engine

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"strings"
)

// fio's data verification (verify=): every block a job writes carries a
// header (what wrote it, where, and a checksum of the rest of the block),
// and reads check it. A write job reads back what it wrote once its writes
// are done (do_verify, the default), or every verify_backlog writes; a read
// job checks every block it reads (the second half of a write-then-read job
// file); verify_only runs the job with each write replaced by a checked
// read of the same block. The header's layout is the engine's own (see
// verifyHeader): fio's needs fio's random state to check, so files written
// by one tool do not verify with the other.

func init() {
	for _, o := range []option{
		{name: "verify", help: "checksum each written block and check it when read: " + strings.Join(verifySumNames(), ", ") + "; 0 or none: off", apply: func(j *JobSpec, s string) error {
			sum, err := parseVerifySum(s)
			if err == nil {
				j.Verify.Sum = sum
			}
			return err
		}},
		{name: "do_verify", flag: true, help: "read back and check a write job's blocks once its writes are done (default 1; with verify)", apply: boolOpt(func(j *JobSpec, v bool) { j.Verify.Skip = !v })},
		{name: "verify_only", flag: true, help: "write nothing: read and check each block the job would write", apply: boolOpt(func(j *JobSpec, v bool) { j.Verify.Only = v })},
		{name: "verify_backlog", help: "read back and check the written blocks after every this many writes (0: once the writes are done)", apply: numberOpt(countKind(0), func(j *JobSpec, v int64) { j.Verify.Backlog = v })},
		{name: "verify_interval", help: "a header every this many bytes of a block (default: one per block); must divide bs", apply: numberOpt(sizeKind, func(j *JobSpec, v int64) { j.Verify.Interval = v })},
		{name: "verify_state_save", flag: true, help: "accepted: the engine keeps no verify state file (fio writes one when a verifying job stops)", apply: acceptedFlag},
		{name: "verify_fatal", flag: true, help: "accepted: the job stops at the first mismatch either way, as fio 3.33's does", apply: boolOpt(func(j *JobSpec, v bool) { j.Verify.Fatal = v })},
	} {
		registerOption(o)
	}
}

// VerifySpec is a job's data verification; an empty Sum leaves it off.
type VerifySpec struct {
	// Sum is the checksum's fio name (crc32c, md5, ...).
	Sum string
	// Skip is do_verify=0: a write job does not read its blocks back.
	Skip bool
	// Only is verify_only: each write becomes a checked read.
	Only bool
	// Backlog is verify_backlog: check after every this many writes.
	Backlog int64
	// Fatal is verify_fatal, accepted for fio's job files.
	Fatal bool
	// Interval is verify_interval: a header every Interval bytes of a
	// block; 0 is one per block.
	Interval int64
	// Everywhere is not a fio option: the data set is laid out with
	// headers (every Interval bytes) and every read is checked, so that a
	// benchmark's timed cells of any block size check the storage
	// (dataset.verify in the API).
	Everywhere bool
	// Ledger, with Everywhere, remembers each interval's last write
	// across the runs of the process, so that reads catch lost writes
	// (verify_ledger.go); nil: headers and checksums only.
	Ledger *VerifyLedger
}

// verifySums are the checksums by fio's names, each a constructor; the
// engine computes them with Go's standard library (crc32c with the CPU's
// CRC instruction where it has one, as fio's crc32c-intel).
var verifySums = map[string]func() hash.Hash{
	"crc32c":       func() hash.Hash { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) },
	"crc32c-intel": func() hash.Hash { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) },
	"crc32":        func() hash.Hash { return crc32.NewIEEE() },
	"crc64":        func() hash.Hash { return crc64.New(crc64.MakeTable(crc64.ECMA)) },
	"md5":          md5.New,
	"sha1":         sha1.New,
	"sha256":       sha256.New,
	"sha512":       sha512.New,
}

// verifySumCodes number the checksums in the header (fio's order of its
// verify types, so that the numbers mean the same checksum).
var verifySumCodes = map[string]uint16{"md5": 2, "crc64": 3, "crc32c": 4, "crc32c-intel": 5, "crc32": 6, "sha256": 9, "sha512": 10, "sha1": 13}

func verifySumNames() []string {
	return []string{"crc32c", "crc32c-intel", "crc32", "crc64", "md5", "sha1", "sha256", "sha512"}
}

// parseVerifySum reads verify='s value: a checksum, or 0/none for off.
// fio's other kinds are refused by name with the reason.
func parseVerifySum(s string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch {
	case v == "0" || v == "none":
		return "", nil
	case verifySums[v] != nil:
		return v, nil
	case v == "pattern" || v == "pattern_hdr" || v == "null" || v == "meta":
		return "", fmt.Errorf("%s is not implemented: a checksum (%s) checks the same and more", excerpt(s), strings.Join(verifySumNames(), ", "))
	case v == "crc16" || v == "crc7" || v == "xxhash" || strings.HasPrefix(v, "sha3"):
		return "", fmt.Errorf("%s is not implemented here (Go's standard library has no such checksum): use %s", excerpt(s), strings.Join(verifySumNames(), ", "))
	}
	return "", fmt.Errorf("%s is not a checksum: want one of %s, or 0 for none", excerpt(s), strings.Join(verifySumNames(), ", "))
}

// validateVerify refuses what verification cannot mean here. Blocks must
// not overlap (one size, offsets on its multiples) for each block to hold
// one whole write, and each block is written once per pass (see
// blockWalk), which a distribution or sequential share would not keep.
func (j *JobSpec) validateVerify() error {
	v := j.Verify
	bad := func(opt, format string, a ...any) error {
		return fmt.Errorf("job %q: %s: %s", j.Name, opt, fmt.Sprintf(format, a...))
	}
	if v.Sum == "" {
		if v.Only || v.Backlog > 0 {
			return bad("verify_only/verify_backlog", "need verify= (a checksum)")
		}
		return nil
	}
	switch {
	case j.isFileOp() || j.diskless():
		return bad("verify", "not with ioengine=%s (it moves no data to check)", j.IOEngine)
	case j.BSMin != j.BSMax:
		return bad("verify", "needs one block size (bsrange and bssplit blocks would overlap one another's headers)")
	case j.BSMin < int64(verifyHeaderLen(v.Sum)):
		return bad("verify", "block size %d is less than its %d-byte header with %s", j.BSMin, verifyHeaderLen(v.Sum), v.Sum)
	case v.Interval < 0 || (v.Interval > 0 && (v.Interval < int64(verifyHeaderLen(v.Sum)) || j.BSMin%v.Interval != 0)):
		return bad("verify_interval", "%d must divide the block size %d and hold the %d-byte header", v.Interval, j.BSMin, verifyHeaderLen(v.Sum))
	case j.BlockAlign > 0 && j.BlockAlign != j.BSMin:
		return bad("verify", "blockalign %d differs from bs %d: blocks would overlap", j.BlockAlign, j.BSMin)
	case j.OffsetModifier > 1 || (j.OffsetModifier > 0 && !j.isRandom()):
		return bad("verify", "not with an offset modifier (rw=%s:%d): each block is written once per pass, in order or in a random order", j.RW, j.OffsetModifier)
	case j.isRandom() && j.PercentSequential > 0:
		return bad("verify", "not with percentage_random below 100: each block is written once per pass, in a random order")
	case j.isRandom() && !j.RandomDistribution.uniform():
		return bad("verify", "not with random_distribution %s: each block is written once per pass, in a random order", j.RandomDistribution.Kind)
	case v.Only && j.readPercent() != 0:
		return bad("verify_only", "needs a write job (rw=write or randwrite): which blocks a mixed job wrote depends on its reads")
	case v.Only && v.Backlog > 0:
		return bad("verify_only", "not with verify_backlog (nothing is written)")
	case j.LatencyTarget > 0:
		return bad("verify", "not with latency_target: the check reads would be judged as the search's IOs")
	case j.NumJobs > 1 && len(j.Filenames) > 0 && j.Size > 0 && j.OffsetIncrement < j.Size/int64(j.fileCount()):
		return bad("verify", "the %d clones would write the same blocks of %s (each would find the others' writes): give offset_increment of at least the region (%d bytes), or let each clone have its own files",
			j.NumJobs, j.Filenames[0], j.Size/int64(j.fileCount()))
	}
	return nil
}

// verifyOnWrite reports whether the job stamps a header into each write.
func (j *JobSpec) verifyOnWrite() bool { return j.Verify.Sum != "" && !j.Verify.Only }

// readsBack reports whether a write job reads its blocks back: after its
// writes (do_verify) or every verify_backlog writes. A time-based job's
// writes run to its end, so only a backlog ever reads them back (fio warns
// that its "verification read phase will never start").
func (j *JobSpec) readsBack() bool {
	if !j.verifyOnWrite() || j.readPercent() == 100 || j.Verify.Skip {
		return false // do_verify=0 turns verify_backlog off too, as in fio
	}
	return j.Verify.Backlog > 0 || (!j.Verify.Skip && !j.TimeBased)
}

// checksEveryRead reports whether every read of the workload is checked:
// read jobs, verify_only and a data set laid out verified. A mixed job's
// reads are not otherwise (they read blocks it has not written); its
// written blocks are read back instead.
func (j *JobSpec) checksEveryRead() bool {
	return j.Verify.Sum != "" && (j.readPercent() == 100 || j.Verify.Only || j.Verify.Everywhere)
}

// verifyInterval is the length each header covers: verify_interval, else
// the block.
func (j *JobSpec) verifyInterval() int64 {
	if j.Verify.Interval > 0 {
		return j.Verify.Interval
	}
	return j.BSMin
}
