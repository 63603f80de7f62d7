//go:build linux

package engine

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// arena is an anonymous mmap holding every slot's buffer. mmap memory is
// page-aligned (so it suits O_DIRECT on any device) and the garbage
// collector never moves or scans it, so the kernel may hold its addresses
// while IOs are in flight.
type arena struct {
	mem      []byte
	slotSize int
}

// newArena maps slots buffers of bufSize bytes each, every one starting on
// a page boundary.
func newArena(slots int, bufSize int64) (*arena, error) {
	page := int64(unix.Getpagesize())
	slotSize := (bufSize + page - 1) / page * page
	mem, err := unix.Mmap(-1, 0, int(slotSize)*slots, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("allocating %d IO buffers of %d bytes: %w", slots, slotSize, err)
	}
	return &arena{mem: mem, slotSize: int(slotSize)}, nil
}

// slot returns slot i's whole buffer.
func (a *arena) slot(i int) []byte { return a.mem[i*a.slotSize : (i+1)*a.slotSize] }

func (a *arena) close() {
	if a != nil && a.mem != nil {
		_ = unix.Munmap(a.mem)
		a.mem = nil
	}
}

// scramble stamps the IO's offset and a timestamp into the start of every
// 512-byte chunk of a buffer about to be written, as fio does by default:
// the buffers keep their random content, but no two written blocks are
// identical, so deduplicating or compressing storage cannot shortcut the
// benchmark. It costs two stores per 512 bytes.
func scramble(buf []byte, off int64, stamp int64) {
	for i := 0; i+16 <= len(buf); i += 512 {
		binary.LittleEndian.PutUint64(buf[i:], uint64(off+int64(i)))
		binary.LittleEndian.PutUint64(buf[i+8:], uint64(stamp))
	}
}
