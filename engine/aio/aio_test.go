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

func TestWriteThenReadBack(t *testing.T) {
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
	c, err := New(depth, []int{fd})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Skipf("the kernel refuses native AIO here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
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

func TestStructsHaveTheKernelsSizes(t *testing.T) {
	if got := unsafe.Sizeof(iocb{}); got != 64 {
		t.Errorf("iocb is %d bytes, struct iocb is 64", got)
	}
	if got := unsafe.Sizeof(event{}); got != 32 {
		t.Errorf("event is %d bytes, struct io_event is 32", got)
	}
}
