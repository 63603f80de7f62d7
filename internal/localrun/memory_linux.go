//go:build linux

package localrun

import "golang.org/x/sys/unix"

// memoryBytes is this machine's RAM, for the page cache check; 0 unknown.
func memoryBytes() int64 {
	var info unix.Sysinfo_t
	if unix.Sysinfo(&info) != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}
