//go:build linux

package engine

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// recordOpens replaces openFile with one that records each call's flags
// and answers with refuse(flags) when that is an error, else opens path
// for real.
func recordOpens(t *testing.T, refuse func(flags int) error) *[]int {
	t.Helper()
	var calls []int
	openFile = func(path string, flags int, mode uint32) (int, error) {
		calls = append(calls, flags)
		if err := refuse(flags); err != nil {
			return -1, err
		}
		return unix.Open(path, flags&^unix.O_NOATIME, mode)
	}
	t.Cleanup(func() { openFile = unix.Open })
	return &calls
}

func TestDataFilesOfDevicesAreOpenedWithoutAccessTimesAsFioDoes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	never := func(int) error { return nil }
	for _, c := range []struct {
		name   string
		device bool
		refuse func(flags int) error
		want   []int // O_NOATIME in each open, in order
	}{
		{"device", true, never, []int{unix.O_NOATIME}},
		// Only the node's owner may ask for O_NOATIME: a non-root
		// client on a raw block volume opens it without.
		{"device of another owner", true, func(flags int) error {
			if flags&unix.O_NOATIME != 0 {
				return unix.EPERM
			}
			return nil
		}, []int{unix.O_NOATIME, 0}},
		// A regular file keeps its access times, as in fio.
		{"regular file", false, never, []int{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := recordOpens(t, c.refuse)
			fd, err := openDataFile(fileSpec{path: path, device: c.device}, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			unix.Close(fd)
			if len(*calls) != len(c.want) {
				t.Fatalf("%d opens, want %d", len(*calls), len(c.want))
			}
			for i, flags := range *calls {
				if got := flags & unix.O_NOATIME; got != c.want[i] {
					t.Errorf("open %d: O_NOATIME %#x, want %#x", i, got, c.want[i])
				}
				if flags&(unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC) != unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC {
					t.Errorf("open %d lost the job's flags: %#x", i, flags)
				}
			}
		})
	}
}

func TestOtherOpenErrorsOfADeviceAreNotRetried(t *testing.T) {
	calls := recordOpens(t, func(int) error { return unix.EACCES })
	_, err := openDataFile(fileSpec{path: "/nonexistent", device: true}, unix.O_RDONLY, 0)
	if err != unix.EACCES || len(*calls) != 1 {
		t.Fatalf("error %v after %d opens, want EACCES after 1", err, len(*calls))
	}
}
