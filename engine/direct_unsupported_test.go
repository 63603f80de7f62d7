//go:build linux

package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// refuseODirect makes every open with O_DIRECT fail with EINVAL, as on a
// file system without direct IO.
func refuseODirect(t *testing.T) {
	t.Helper()
	openFile = func(path string, flags int, mode uint32) (int, error) {
		if flags&unix.O_DIRECT != 0 {
			return -1, unix.EINVAL
		}
		return unix.Open(path, flags, mode)
	}
	t.Cleanup(func() { openFile = unix.Open })
}

// checkDirectUnsupported asserts err is the O_DIRECT refusal for path.
func checkDirectUnsupported(t *testing.T, err error, path string, cause error) {
	t.Helper()
	var de *DirectIOUnsupportedError
	if !errors.As(err, &de) || !errors.Is(err, ErrUsage) || !errors.Is(err, cause) {
		t.Fatalf("error %v, want a DirectIOUnsupportedError wrapping ErrUsage and %v", err, cause)
	}
	msg := err.Error()
	for _, w := range []string{"O_DIRECT is not supported on " + path, "(file system " + fsTypeName(path) + ":",
		"direct=0 (engine option)", "direct: false (StorageBenchmark workloads)"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	if de.FSType == "" || de.FSType == "unknown" {
		t.Errorf("file system type %q, want a name or magic", de.FSType)
	}
}

func TestLayoutRefusesODirectJobsWhereTheFileSystemCannot(t *testing.T) {
	refuseODirect(t)
	dir := t.TempDir()
	jobs, _ := job(t, "--name=d", "--directory="+dir, "--size=1m", "--rw=randread", "--direct=1")
	err := Prepare(context.Background(), jobs)
	path := filepath.Join(dir, "d.0.0")
	checkDirectUnsupported(t, err, path, unix.EINVAL)
	if !strings.HasPrefix(err.Error(), "laying out for a job with direct=1: O_DIRECT is not supported on "+path) {
		t.Errorf("error %q does not say the layout found it", err)
	}
	if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("the layout left the file it created: %v", statErr)
	}
}

func TestLayoutOfBufferedJobsFallsBackWhereODirectIsRefused(t *testing.T) {
	refuseODirect(t)
	dir := t.TempDir()
	jobs, _ := job(t, "--name=b", "--directory="+dir, "--size=1m", "--rw=randread")
	if err := Prepare(context.Background(), jobs); err != nil {
		t.Fatal(err)
	}
	assertNoHoles(t, filepath.Join(dir, "b.0.0"), 1<<20)
}

func TestWorkerOpenNamesTheFileSystemThatRefusesODirect(t *testing.T) {
	dir := t.TempDir()
	jobs, opts := job(t, "--name=w", "--directory="+dir, "--size=1m", "--rw=randread", "--direct=1", "--runtime=1", "--time_based")
	if err := Prepare(context.Background(), jobs); err != nil {
		t.Fatal(err)
	}
	refuseODirect(t) // the data set is laid out; now only the worker opens
	_, err := Run(context.Background(), jobs, opts)
	path := filepath.Join(dir, "w.0.0")
	checkDirectUnsupported(t, err, path, unix.EINVAL)
	if !strings.HasPrefix(err.Error(), `job "w": O_DIRECT is not supported`) {
		t.Errorf("error %q does not start with the job", err)
	}
}

func TestStatxWithoutDirectIOAlignmentIsReportedAsNoODirect(t *testing.T) {
	statx = func(dirfd int, path string, flags int, mask int, stx *unix.Statx_t) error {
		err := unix.Statx(dirfd, path, flags, mask, stx)
		stx.Mask |= unix.STATX_DIOALIGN
		stx.Dio_offset_align = 0
		return err
	}
	t.Cleanup(func() { statx = unix.Statx })
	dir := t.TempDir()
	jobs, _ := job(t, "--name=s", "--directory="+dir, "--size=1m", "--rw=randread", "--direct=1")
	checkDirectUnsupported(t, Prepare(context.Background(), jobs), filepath.Join(dir, "s.0.0"), errNoDIOAlignment)
}

func TestFileSystemMagicNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		magic uint32
		want  string
	}{
		{"ext2, ext3 and ext4 share one magic", 0xEF53, "ext4"},
		{"xfs", 0x58465342, "xfs"},
		{"tmpfs", 0x01021994, "tmpfs"},
		{"9p", 0x01021997, "9p"},
		{"a magic above 2^31 (negative f_type on 32-bit systems) is still found", 0xFE534D42, "smb2"},
		{"an unknown magic is shown in hex", 0x12345678, "0x12345678"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fsMagicName(tc.magic); got != tc.want {
				t.Errorf("fsMagicName(%#x) = %q, want %q", tc.magic, got, tc.want)
			}
		})
	}
}
