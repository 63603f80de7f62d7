//go:build linux

package engine

import (
	"path/filepath"
	"runtime"

	"github.com/storagebench/storagebench/engine/result"
	"golang.org/x/sys/unix"
)

// fsNames maps statfs magic numbers to the names users know.
var fsNames = map[int64]string{
	0xEF53:     "ext4",
	0x58465342: "xfs",
	0x9123683E: "btrfs",
	0x01021994: "tmpfs",
	0x6969:     "nfs",
	0xFF534D42: "cifs",
	0xFE534D42: "smb2",
	0x794c7630: "overlayfs",
	0x65735546: "fuse",
	0x00C36400: "ceph",
	0x2FC12FC1: "zfs",
	0x5346544E: "ntfs",
	0x4d44:     "vfat",
	0x62656572: "sysfs",
	0x858458f6: "ramfs",
	0x47504653: "gpfs",
	0x0BD00BD0: "lustre",
	0x73717368: "squashfs",
	0x01021997: "v9fs",
	0xF2F52010: "f2fs",
}

// environment records what the engine can see of where it ran: host,
// kernel, CPUs, memory, and the filesystem and O_DIRECT alignment of the
// first target.
func environment(targets []*target) result.Environment {
	env := result.Environment{
		Hostname:   hostname(),
		CPUs:       runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		env.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		env.MemoryBytes = int64(si.Totalram) * int64(si.Unit)
	}
	if len(targets) > 0 {
		t := targets[0]
		if t.device {
			env.FilesystemType = "block-device"
		} else {
			var sf unix.Statfs_t
			if unix.Statfs(filepath.Dir(t.path), &sf) == nil {
				if name, ok := fsNames[int64(sf.Type)]; ok {
					env.FilesystemType = name
				} else {
					env.FilesystemType = "0x" + hex(uint64(sf.Type))
				}
			}
		}
		if t.align > 0 {
			env.DirectIOAlignmentBytes = t.align
		} else if a, err := dioAlignment(t.path, t.device); err == nil {
			env.DirectIOAlignmentBytes = a
		}
	}
	return env
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{digits[v&15]}, b...)
	}
	return string(b)
}
