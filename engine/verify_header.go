package engine

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
)

// A verified block starts with this header, little-endian:
//
//	 0  u32  magic "sbv1"
//	 4  u16  checksum code (verifySumCodes)
//	 6  u16  header length (verifyFixedLen + the checksum's size)
//	 8  u32  block length
//	12  u32  crc32c of bytes 0..31 with this field zero
//	16  u64  the block's offset in its file
//	24  u64  generation: which run, job, clone and pass wrote it
//	32  ...  checksum of the block's bytes after the header
//
// The offset catches misplaced writes (a block that landed elsewhere), the
// generation lost ones (a block that still holds an older write, whose
// header and checksum are both intact), the checksum corrupted data.
const (
	verifyMagic    = 0x31766273 // "sbv1"
	verifyFixedLen = 32
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// verifyHeaderLen is the header's length with the named checksum.
func verifyHeaderLen(sum string) int {
	return verifyFixedLen + verifySums[sum]().Size()
}

// blockChecker stamps and checks blocks with one checksum; it reuses its
// hash and digest buffers, so a worker keeps one. With an interval (fio's
// verify_interval) each interval of a block has its own header, so that
// IOs of any size that are whole intervals can check one another's data.
type blockChecker struct {
	name     string
	code     uint16
	h        hash.Hash
	hdrLen   int
	interval int // 0: one header per block
	digest   []byte
}

func newBlockChecker(sum string, interval int64) *blockChecker {
	h := verifySums[sum]()
	return &blockChecker{name: sum, code: verifySumCodes[sum], h: h, hdrLen: verifyFixedLen + h.Size(), interval: int(interval), digest: make([]byte, 0, h.Size())}
}

// step is the length each header covers in a block of n bytes.
func (c *blockChecker) step(n int) int {
	if c.interval > 0 && c.interval < n {
		return c.interval
	}
	return n
}

// stamp writes the headers into buf, a block about to be written at off.
func (c *blockChecker) stamp(buf []byte, off int64, gen uint64) {
	step := c.step(len(buf))
	for i := 0; i < len(buf); i += step {
		c.stampOne(buf[i:min(i+step, len(buf))], off+int64(i), gen)
	}
}

// stampOne writes one header; the bytes after it are the data as they are.
func (c *blockChecker) stampOne(buf []byte, off int64, gen uint64) {
	binary.LittleEndian.PutUint32(buf[0:], verifyMagic)
	binary.LittleEndian.PutUint16(buf[4:], c.code)
	binary.LittleEndian.PutUint16(buf[6:], uint16(c.hdrLen))
	binary.LittleEndian.PutUint32(buf[8:], uint32(len(buf)))
	binary.LittleEndian.PutUint32(buf[12:], 0)
	binary.LittleEndian.PutUint64(buf[16:], uint64(off))
	binary.LittleEndian.PutUint64(buf[24:], gen)
	binary.LittleEndian.PutUint32(buf[12:], crc32.Checksum(buf[:verifyFixedLen], castagnoli))
	copy(buf[verifyFixedLen:c.hdrLen], c.sum(buf[c.hdrLen:]))
}

func (c *blockChecker) sum(data []byte) []byte {
	c.h.Reset()
	c.h.Write(data)
	c.digest = c.h.Sum(c.digest[:0])
	return c.digest
}

// blockProblem is what a check found wrong with a block, or nil.
type blockProblem struct {
	what            string // a sentence: what is wrong, and what it means
	expected, found string // the checksums, where the data's checksum failed
}

// check reads buf, a block read back from off, against its headers. With
// wantGen (a block this run wrote), they must carry gen too.
func (c *blockChecker) check(buf []byte, off int64, gen uint64, wantGen bool) *blockProblem {
	step := c.step(len(buf))
	for i := 0; i < len(buf); i += step {
		if p := c.checkOne(buf[i:min(i+step, len(buf))], off+int64(i), gen, wantGen); p != nil {
			if step < len(buf) {
				p.what = fmt.Sprintf("in its %d-byte interval at offset %d, %s", step, off+int64(i), p.what)
			}
			return p
		}
	}
	return nil
}

func (c *blockChecker) checkOne(buf []byte, off int64, gen uint64, wantGen bool) *blockProblem {
	if len(buf) < c.hdrLen {
		return &blockProblem{what: fmt.Sprintf("the block is %d bytes, shorter than its %d-byte header", len(buf), c.hdrLen)}
	}
	if m := binary.LittleEndian.Uint32(buf[0:]); m != verifyMagic {
		return &blockProblem{what: fmt.Sprintf("no verify header (magic %08x, want %08x): the block was not written by a verifying job, or was overwritten", m, verifyMagic)}
	}
	stored := binary.LittleEndian.Uint32(buf[12:])
	binary.LittleEndian.PutUint32(buf[12:], 0)
	computed := crc32.Checksum(buf[:verifyFixedLen], castagnoli)
	binary.LittleEndian.PutUint32(buf[12:], stored)
	if stored != computed {
		return &blockProblem{what: "the header is corrupt (its own crc32c does not match)", expected: fmt.Sprintf("crc32c %08x", stored), found: fmt.Sprintf("crc32c %08x", computed)}
	}
	code, hdrLen := binary.LittleEndian.Uint16(buf[4:]), int(binary.LittleEndian.Uint16(buf[6:]))
	switch {
	case code != c.code || hdrLen != c.hdrLen:
		return &blockProblem{what: fmt.Sprintf("the block was written with checksum code %d, not %s's %d", code, c.name, c.code)}
	case binary.LittleEndian.Uint32(buf[8:]) != uint32(len(buf)):
		return &blockProblem{what: fmt.Sprintf("the header says a block of %d bytes, read %d", binary.LittleEndian.Uint32(buf[8:]), len(buf))}
	case int64(binary.LittleEndian.Uint64(buf[16:])) != off:
		return &blockProblem{what: fmt.Sprintf("the header says offset %d: a misplaced write (the block written for there landed here)", binary.LittleEndian.Uint64(buf[16:]))}
	case wantGen && binary.LittleEndian.Uint64(buf[24:]) != gen:
		return &blockProblem{what: fmt.Sprintf("the block holds an older write (generation %016x, want %016x): the last write to it was lost", binary.LittleEndian.Uint64(buf[24:]), gen)}
	}
	want := buf[verifyFixedLen:c.hdrLen]
	if got := c.sum(buf[c.hdrLen:]); string(got) != string(want) {
		return &blockProblem{what: "the data does not match its checksum: corrupted", expected: c.name + " " + hex.EncodeToString(want), found: c.name + " " + hex.EncodeToString(got)}
	}
	return nil
}

// VerifyError is a block that failed its check: the run fails with it,
// naming where and what (fio's job error is EILSEQ for it too).
type VerifyError struct {
	Job, Path string
	Offset    int64
	Size      int64
	Sum       string
	// Problem says what is wrong; Expected and Found are the checksums
	// (named: "md5 9e10...") where the data's or the header's did not
	// match.
	Problem, Expected, Found string
}

func (e *VerifyError) Error() string {
	s := fmt.Sprintf("job %q: verify (%s) failed for the block of %d bytes at offset %d of %s: %s", e.Job, e.Sum, e.Size, e.Offset, e.Path, e.Problem)
	if e.Expected != "" {
		s += fmt.Sprintf("; expected %s, found %s", e.Expected, e.Found)
	}
	return s
}
