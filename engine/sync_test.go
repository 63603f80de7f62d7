//go:build linux

package engine

import "testing"

// Syncs come where fio's get_rw_ddir puts them: after every fsync-th write
// an fsync, else after every fdatasync-th write an fdatasync, never two in
// a row; a read between them clears that, so a mixed job syncs again at the
// same write count (fio 3.33 issued 196 fdatasyncs for 101 writes and 99
// reads of a randrw job with fdatasync=1).
func TestSyncsComeWhereFioPutsThem(t *testing.T) {
	w := &worker{job: &JobSpec{Fsync: 3, Fdatasync: 2}}
	name := map[uint8]string{opRead: "R", opWrite: "W", opFsync: "F", opFdatasync: "D"}
	var got string
	for _, op := range []uint8{opWrite, opRead, opWrite, opRead, opRead, opWrite, opWrite, opWrite} {
		if sync, due := w.syncDue(); due {
			got += name[sync]
			w.countIssued(sync)
		}
		got += name[op]
		w.countIssued(op)
	}
	if want := "WRWDRDRDWFWDW"; got != want {
		t.Errorf("issued %s, want %s", got, want)
	}
}
