//go:build linux

package uring

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// newRingOrSkip creates a ring, skipping the test where the kernel (or a
// seccomp profile) refuses io_uring altogether.
func newRingOrSkip(t *testing.T, cfg Config) *Ring {
	t.Helper()
	r, err := New(cfg)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Skipf("the kernel refuses io_uring here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestWriteThenReadBack(t *testing.T) {
	for _, noFixed := range []bool{false, true} {
		t.Run(map[bool]string{false: "fixed", true: "plain"}[noFixed], func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			const bs, depth = 4096, 8
			path := filepath.Join(t.TempDir(), "data")
			fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_DIRECT, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			arena, err := unix.Mmap(-1, 0, 2*bs*depth, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Munmap(arena)
			r := newRingOrSkip(t, Config{Entries: depth, Files: []int{fd}, Arena: arena, NoFixed: noFixed})
			t.Logf("features: %q", r.Features())
			for i := 0; i < depth; i++ {
				buf := arena[i*bs : (i+1)*bs]
				for j := range buf {
					buf[j] = byte(i*31 + j)
				}
				r.PrepWrite(0, buf, int64(i*bs), uint64(i))
			}
			waitAll(t, r, depth, bs)
			r.PrepFsync(0, true, 99)
			waitAll(t, r, 1, 0)
			for i := 0; i < depth; i++ {
				r.PrepRead(0, arena[(depth+i)*bs:(depth+i+1)*bs], int64(i*bs), uint64(i))
			}
			waitAll(t, r, depth, bs)
			for i := 0; i < depth; i++ {
				if !bytes.Equal(arena[i*bs:(i+1)*bs], arena[(depth+i)*bs:(depth+i+1)*bs]) {
					t.Fatalf("block %d read back differs from what was written", i)
				}
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != bs*depth {
				t.Fatalf("file size %v, %v", fi.Size(), err)
			}
		})
	}
}

func waitAll(t *testing.T, r *Ring, n int, wantRes int32) {
	t.Helper()
	var got []Completion
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < n {
		if err := r.SubmitAndWait(1, time.Second); err != nil {
			t.Fatal(err)
		}
		got = r.Reap(got, 64)
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d completions", len(got), n)
		}
	}
	for _, c := range got {
		if c.Res != wantRes {
			t.Fatalf("completion %d: res %d, want %d", c.UserData, c.Res, wantRes)
		}
	}
}

func TestTimedWaitReturnsWithoutCompletions(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newRingOrSkip(t, Config{Entries: 4})
	start := time.Now()
	if err := r.SubmitAndWait(1, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 15*time.Millisecond || el > 2*time.Second {
		t.Fatalf("timed wait took %v, want about 20ms", el)
	}
	if got := r.Reap(nil, 64); len(got) != 0 {
		t.Fatalf("reaped %d completions from an idle ring", len(got))
	}
}

// Ready tells a finished IO from user space while it still waits as task
// work (DEFER_TASKRUN and COOP_TASKRUN post it only when the ring's thread
// enters the kernel), and a wait after it returns that IO without sleeping.
// A read of an empty pipe is armed and then completed by the write into
// the pipe as task work, every time.
func TestReadySeesACompletionBeforeItIsPosted(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rounds = 50
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	buf := make([]byte, 8)
	r := newRingOrSkip(t, Config{Entries: 1, Files: []int{p[0]}})
	if !r.CanTellReady() {
		t.Skipf("the kernel refuses IORING_SETUP_TASKRUN_FLAG (before 5.19): features %q", r.Features())
	}
	if r.Ready() {
		t.Fatal("Ready on a ring with nothing submitted")
	}
	deferred := strings.Contains(r.Features(), "defer_taskrun")
	for i := 0; i < rounds; i++ {
		r.PrepRead(0, buf, 0, uint64(i))
		if err := r.SubmitAndWait(0, 0); err != nil {
			t.Fatal(err)
		}
		if r.Ready() {
			t.Fatalf("round %d: Ready before the pipe has anything to read", i)
		}
		if _, err := unix.Write(p[1], []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		if !r.Ready() {
			t.Fatalf("round %d: the read is done but Ready does not tell", i)
		}
		// Under DEFER_TASKRUN the read waits as task work until this
		// thread enters the kernel with GETEVENTS; under COOP_TASKRUN the
		// write's own return to user space runs it, and it is posted.
		if posted := *r.cqHead != atomic.LoadUint32(r.cqTail); posted && deferred {
			t.Fatalf("round %d: the read was posted without entering the kernel: Ready was not tested on task work", i)
		}
		start := time.Now()
		if err := r.SubmitAndWait(1, 0); err != nil {
			t.Fatal(err)
		}
		got := r.Reap(nil, 4)
		if len(got) != 1 || got[0].UserData != uint64(i) || got[0].Res != 1 || buf[0] != byte(i) {
			t.Fatalf("round %d: reaped %+v (byte %d), want the one-byte read", i, got, buf[0])
		}
		if el := time.Since(start); el > time.Second {
			t.Fatalf("round %d: the wait after Ready took %v", i, el)
		}
		if r.Ready() {
			t.Fatalf("round %d: Ready with nothing in flight", i)
		}
	}
}
