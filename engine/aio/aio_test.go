//go:build linux

package aio

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// newTestContext opens a fresh O_DIRECT file and a context on it, with an
// arena of n aligned blocks of bs bytes.
func newTestContext(t *testing.T, depth, n, bs int) (*Context, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data")
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_DIRECT, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	arena, err := unix.Mmap(-1, 0, n*bs, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(arena) })
	c, err := New(depth, []int{fd})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Skipf("the kernel refuses native AIO here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, arena
}

func TestWriteThenReadBack(t *testing.T) {
	const bs, depth = 4096, 8
	c, arena := newTestContext(t, depth, 2*depth, bs)
	for i := 0; i < depth; i++ {
		buf := arena[i*bs : (i+1)*bs]
		for j := range buf {
			buf[j] = byte(i*7 + j*3)
		}
		c.PrepWrite(0, buf, int64(i*bs), uint64(i))
	}
	waitAll(t, c, depth, bs)
	for i := 0; i < depth; i++ {
		c.PrepRead(0, arena[(depth+i)*bs:(depth+i+1)*bs], int64(i*bs), uint64(100+i))
	}
	waitAll(t, c, depth, bs)
	for i := 0; i < depth; i++ {
		if !bytes.Equal(arena[i*bs:(i+1)*bs], arena[(depth+i)*bs:(depth+i+1)*bs]) {
			t.Fatalf("block %d read back differs from what was written", i)
		}
	}
}

func waitAll(t *testing.T, c *Context, n int, wantRes int32) {
	t.Helper()
	var got []Completion
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < n {
		if err := c.Submit(); err != nil {
			t.Fatal(err)
		}
		var err error
		if got, err = c.Wait(1, 64, time.Second, got); err != nil {
			t.Fatal(err)
		}
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

// The ring is read in user space on Linux's layout, and each completion
// comes back once, through the ring's wrap and with io_getevents mixed in
// (an IO not yet complete at the first look is waited for by the system
// call, which reads the same ring).
func TestEveryCompletionOnceFromTheRingOrTheSystemCall(t *testing.T) {
	const bs, depth, rounds = 4096, 8, 100
	for _, userSpace := range []bool{true, false} {
		t.Run(map[bool]string{true: "ring read in user space", false: "io_getevents only"}[userSpace], func(t *testing.T) {
			c, arena := newTestContext(t, depth, depth, bs)
			if c.ring == nil {
				t.Fatal("the completion ring's layout is not the one this package reads")
			}
			if !userSpace {
				c.ring = nil
			}
			for round := 0; round < rounds; round++ {
				for i := 0; i < depth; i++ {
					c.PrepWrite(0, arena[i*bs:(i+1)*bs], int64(i*bs), uint64(round*depth+i))
				}
				seen := map[uint64]int{}
				for len(seen) < depth {
					if err := c.Submit(); err != nil {
						t.Fatal(err)
					}
					got, err := c.Wait(1, depth, time.Second, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range got {
						if e.UserData/depth != uint64(round) || e.Res != bs {
							t.Fatalf("round %d: completion %d with res %d", round, e.UserData, e.Res)
						}
						if seen[e.UserData]++; seen[e.UserData] > 1 {
							t.Fatalf("round %d: completion %d twice", round, e.UserData)
						}
					}
				}
				// The kernel's own read (io_getevents) must find nothing
				// left: it sees the head stored in user space.
				ring := c.ring
				c.ring = nil
				got, err := c.Wait(0, depth, time.Nanosecond, nil)
				if err != nil || len(got) != 0 {
					t.Fatalf("round %d: io_getevents after all completed returned %v, %v", round, got, err)
				}
				c.ring = ring
			}
			if ring := *(**ringHeader)(unsafe.Pointer(&c.ctx)); rounds*depth <= int(ring.nr) {
				t.Fatalf("%d completions do not wrap the ring of %d", rounds*depth, ring.nr)
			}
		})
	}
}

func TestStructsHaveTheKernelsSizes(t *testing.T) {
	if got := unsafe.Sizeof(iocb{}); got != 64 {
		t.Errorf("iocb is %d bytes, struct iocb is 64", got)
	}
	if got := unsafe.Sizeof(ringHeader{}); got != 32 {
		t.Errorf("ringHeader is %d bytes, struct aio_ring's header is 32", got)
	}
	if got := unsafe.Sizeof(event{}); got != 32 {
		t.Errorf("event is %d bytes, struct io_event is 32", got)
	}
}

// Ready tells a finished IO from the completion ring without a system call,
// and not once it was reaped.
func TestReadyReadsTheRing(t *testing.T) {
	const bs, rounds = 4096, 50
	c, arena := newTestContext(t, 1, 1, bs)
	if !c.CanTellReady() {
		t.Fatal("the completion ring's layout is not the one this package reads")
	}
	if c.Ready() {
		t.Fatal("Ready on a context with nothing submitted")
	}
	for i := 0; i < rounds; i++ {
		c.PrepWrite(0, arena, int64(i*bs), uint64(i))
		if err := c.Submit(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for !c.Ready() {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the write never showed as ready", i)
			}
		}
		got, err := c.Wait(1, 1, 0, nil)
		if err != nil || len(got) != 1 || got[0].UserData != uint64(i) || got[0].Res != bs {
			t.Fatalf("round %d: reaped %+v, %v; want the write", i, got, err)
		}
		if c.Ready() {
			t.Fatalf("round %d: Ready with nothing in flight", i)
		}
	}
}
