//go:build linux

package engine

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// spaceNeed is what the layout still has to allocate on one file system.
type spaceNeed struct {
	dir   string // a directory on it, for statfs and the message
	bytes int64
	files []string
}

// checkFreeSpace refuses a layout whose regular files would not fit in the
// free space of their file systems (several files may share one, so the
// needs are summed per file system), before anything is written. Block
// devices are exempt: their size was checked against the regions. A file
// system that reports no capacity (f_blocks 0) is not checked; the writes
// will tell.
func checkFreeSpace(targets []*target) error {
	byFS := map[uint64]*spaceNeed{}
	var order []uint64
	for _, t := range targets {
		if !t.todo || t.device {
			continue
		}
		n := t.newBytes()
		if n <= 0 {
			continue
		}
		dir := filepath.Dir(t.path)
		var st unix.Stat_t
		if err := unix.Stat(dir, &st); err != nil {
			return fmt.Errorf("laying out %s: directory: %w", t.path, pathErr(err))
		}
		dev := uint64(st.Dev)
		need := byFS[dev]
		if need == nil {
			need = &spaceNeed{dir: dir}
			byFS[dev] = need
			order = append(order, dev)
		}
		need.bytes += n
		need.files = append(need.files, t.path)
	}
	for _, dev := range order {
		need := byFS[dev]
		var sf unix.Statfs_t
		if err := statfs(need.dir, &sf); err != nil || sf.Blocks == 0 {
			continue
		}
		unit := int64(sf.Frsize) // the unit of the block counts
		if unit <= 0 {
			unit = int64(sf.Bsize)
		}
		free := int64(sf.Bavail) * unit // what an unprivileged writer may use
		if need.bytes <= free {
			continue
		}
		what := need.files[0]
		if more := len(need.files) - 1; more > 0 {
			what += fmt.Sprintf(" and %d more file(s)", more)
		}
		short := need.bytes - free
		return fmt.Errorf("not enough free space in %s (file system %s) to lay out %s: %d bytes (%s) more are needed and %d bytes (%s) are free, %d bytes (%s) short; free space there, or lower size, nrfiles or numjobs: %w",
			need.dir, fsMagicName(uint32(sf.Type)), what, need.bytes, bytesIEC(float64(need.bytes)), free, bytesIEC(float64(free)),
			short, bytesIEC(float64(short)), unix.ENOSPC)
	}
	return nil
}

// newBytes estimates what the layout of a regular file allocates: up to
// its end, less the blocks the file already has (rewriting them in place
// needs none). Copy-on-write file systems may need more; a write that
// still runs out of space fails the layout and removes what it created.
func (t *target) newBytes() int64 {
	var st unix.Stat_t
	if err := unix.Stat(t.path, &st); err != nil {
		return t.end
	}
	return max(t.end-int64(st.Blocks)*512, 0)
}
