//go:build linux

package engine

import (
	"errors"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// fsNames maps statfs magic numbers (linux/magic.h and the file systems'
// own headers) to the names users know from mount(8).
var fsNames = map[uint32]string{
	0xEF53:     "ext4", // ext2 and ext3 share the magic; ext4's driver mounts them today
	0x58465342: "xfs",
	0x9123683E: "btrfs",
	0x01021994: "tmpfs",
	0x858458f6: "ramfs",
	0x958458f6: "hugetlbfs",
	0x6969:     "nfs",
	0xFF534D42: "cifs",
	0xFE534D42: "smb2",
	0x517B:     "smb",
	0x794c7630: "overlayfs",
	0x61756673: "aufs",
	0x65735546: "fuse",
	0x00C36400: "ceph",
	0x2FC12FC1: "zfs",
	0x01021997: "9p",
	0x786f4256: "vboxsf",
	0x5346544E: "ntfs",
	0x4d44:     "vfat",
	0x2011BAB0: "exfat",
	0x62656572: "sysfs",
	0x9fa0:     "proc",
	0x47504653: "gpfs",
	0x0BD00BD0: "lustre",
	0x01161970: "gfs2",
	0x7461636f: "ocfs2",
	0x73717368: "squashfs",
	0xE0F5E1E2: "erofs",
	0xF2F52010: "f2fs",
	0xca451a4e: "bcachefs",
	0xf15f:     "ecryptfs",
}

// statfs is the seam tests use to simulate a file system with little free
// space.
var statfs = unix.Statfs

// fsTypeName names the file system holding path (its directory when path
// does not exist yet): a name from fsNames, else the magic in hex, else
// "unknown" when statfs fails.
func fsTypeName(path string) string {
	var sf unix.Statfs_t
	err := statfs(path, &sf)
	if errors.Is(err, unix.ENOENT) {
		err = statfs(filepath.Dir(path), &sf)
	}
	if err != nil {
		return "unknown"
	}
	return fsMagicName(uint32(sf.Type))
}

// fsMagicName is the name of a statfs magic, or the magic in hex. Magics
// are 32 bits; f_type is signed on 32-bit systems, hence uint32.
func fsMagicName(magic uint32) string {
	if name, ok := fsNames[magic]; ok {
		return name
	}
	return "0x" + strconv.FormatUint(uint64(magic), 16)
}
