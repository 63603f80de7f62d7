//go:build linux

package engine

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A mapped file truncated under the job faults on access (SIGBUS): the IO
// fails with EIO instead of crashing the process.
func TestAMappedFileTruncatedUnderTheJobFailsTheIO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m")
	if err := os.WriteFile(path, make([]byte, 8192), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(path, unix.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	b, err := newMmapBackend([]int{fd})
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	buf := make([]byte, 4096)
	b.prepWrite(0, buf, 4096, 0)
	if out, err := b.wait(1, 1, 0, nil); err != nil || len(out) != 1 || out[0].res != 4096 {
		t.Fatalf("a write through the mapping: %v %+v", err, out)
	}
	if err := unix.Ftruncate(fd, 0); err != nil {
		t.Fatal(err)
	}
	b.prepRead(0, buf, 4096, 1)
	out, err := b.wait(1, 1, 0, nil)
	if err != nil || len(out) != 1 || out[0].res != -int32(unix.EIO) {
		t.Fatalf("a read past the truncated end: %v %+v, want EIO", err, out)
	}
}
