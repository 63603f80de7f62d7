//go:build linux

package engine

import (
	"path/filepath"
	"runtime"

	"github.com/storagebench/storagebench/engine/result"
	"golang.org/x/sys/unix"
)

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
	env.MemoryBytes = memoryBytes()
	if len(targets) > 0 {
		t := targets[0]
		if t.device {
			env.FilesystemType = "block-device"
		} else {
			var sf unix.Statfs_t
			if unix.Statfs(filepath.Dir(t.path), &sf) == nil {
				env.FilesystemType = fsMagicName(uint32(sf.Type))
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

// memoryBytes is the machine's total memory, 0 when unknown.
func memoryBytes() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
