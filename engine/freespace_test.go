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

// withFreeSpace makes statfs report a file system of 1 GiB with free bytes
// available (f_blocks 0 when free < 0: a file system that reports no
// capacity).
func withFreeSpace(t *testing.T, free int64) {
	t.Helper()
	statfs = func(path string, sf *unix.Statfs_t) error {
		if err := unix.Statfs(path, sf); err != nil {
			return err
		}
		sf.Frsize, sf.Bsize = 4096, 4096
		sf.Blocks, sf.Bavail = 1<<30/4096, uint64(max(free, 0))/4096
		if free < 0 {
			sf.Blocks, sf.Bavail = 0, 0
		}
		return nil
	}
	t.Cleanup(func() { statfs = unix.Statfs })
}

func TestLayoutChecksFreeSpaceFirst(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name    string
		free    int64
		args    []string
		existed int64 // bytes of data already in the first file
		refuse  []string
	}{
		{"files sharing a file system are summed and refused together when they do not fit", mib + mib/2,
			[]string{"--numjobs=2", "--size=1m"}, 0,
			[]string{"not enough free space in DIR (file system ", "to lay out DIR/s.0.0 and 1 more file(s)",
				"2097152 bytes (2.0MiB) more are needed and 1572864 bytes (1.5MiB) are free, 524288 bytes (512.0KiB) short",
				"lower size, nrfiles or numjobs"}},
		{"a data set that fits exactly is laid out", 2 * mib, []string{"--numjobs=2", "--size=1m"}, 0, nil},
		{"blocks a file already has count as written", mib / 2, []string{"--size=1m"}, mib / 2, nil},
		{"a file system that reports no capacity is not checked", -1, []string{"--size=1m"}, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withFreeSpace(t, tc.free)
			dir := t.TempDir()
			if tc.existed > 0 {
				if err := os.WriteFile(filepath.Join(dir, "s.0.0"), make([]byte, tc.existed), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			jobs, _ := job(t, append([]string{"--name=s", "--directory=" + dir, "--rw=randread"}, tc.args...)...)
			err := Prepare(context.Background(), jobs)
			if tc.refuse == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, unix.ENOSPC) {
				t.Fatalf("error %v, want one wrapping ENOSPC", err)
			}
			for _, w := range tc.refuse {
				if w = strings.ReplaceAll(w, "DIR", dir); !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the refused layout wrote %d file(s)", len(entries))
			}
		})
	}
}

func TestFreeSpaceCheckExemptsBlockDevices(t *testing.T) {
	withFreeSpace(t, 0)
	dev := &target{path: "/dev/sbench-test-none", device: true, todo: true, end: 1 << 40}
	if err := checkFreeSpace([]*target{dev}); err != nil {
		t.Fatalf("a block device was checked for free space: %v", err)
	}
}

// failWritesAfter makes the layout's writes fail with ENOSPC after n
// successful ones.
func failWritesAfter(t *testing.T, n int) {
	t.Helper()
	layoutWrite = func(fd int, p []byte, off int64) (int, error) {
		if n == 0 {
			return 0, unix.ENOSPC
		}
		n--
		return unix.Pwrite(fd, p, off)
	}
	t.Cleanup(func() { layoutWrite = unix.Pwrite })
}

func TestFailedLayoutRemovesOnlyTheFileItCreated(t *testing.T) {
	t.Run("a file the layout created is removed and the error says so", func(t *testing.T) {
		failWritesAfter(t, 1)
		dir := t.TempDir()
		path := filepath.Join(dir, "p.0.0")
		jobs, _ := job(t, "--name=p", "--directory="+dir, "--size=4m", "--rw=randread")
		err := Prepare(context.Background(), jobs)
		if !errors.Is(err, unix.ENOSPC) || !strings.Contains(err.Error(), "wrote 1048576 of 4194304 bytes") ||
			!strings.Contains(err.Error(), "removed "+path+", which this layout had created, so no partial file is left") {
			t.Fatalf("error %v, want ENOSPC saying the partial file was removed", err)
		}
		if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
			t.Fatalf("the partial file is still there: %v", statErr)
		}
	})
	t.Run("a file that existed before is kept and the error says so", func(t *testing.T) {
		failWritesAfter(t, 0)
		dir := t.TempDir()
		path := filepath.Join(dir, "p.0.0")
		if err := os.WriteFile(path, make([]byte, 8192), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs, _ := job(t, "--name=p", "--directory="+dir, "--size=4m", "--rw=randread")
		err := Prepare(context.Background(), jobs)
		if !errors.Is(err, unix.ENOSPC) || !strings.Contains(err.Error(), path+" existed before this layout and is left as it is") {
			t.Fatalf("error %v, want ENOSPC saying the existing file was kept", err)
		}
		if st, statErr := os.Stat(path); statErr != nil || st.Size() < 8192 {
			t.Fatalf("the existing file was removed or cut: %v %v", st, statErr)
		}
	})
}
