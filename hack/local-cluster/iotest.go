package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// iotest is a deliberately small IO probe for the local cluster's smoke test:
// QD goroutines doing 4 KiB O_DIRECT random reads or writes against a file
// (prefilled, so reads really hit the device) or a block device, reporting
// IOPS after a ramp. It also reports whether io_uring is usable in the pod.
// The project's engine is the real tool; this only checks the caps.

type ioResult struct {
	Target   string  `json:"target"`
	RW       string  `json:"rw"`
	BS       int     `json:"bs"`
	QD       int     `json:"qd"`
	Seconds  float64 `json:"seconds"`
	IOs      uint64  `json:"ios"`
	IOPS     float64 `json:"iops"`
	BPS      float64 `json:"bytesPerSecond"`
	Errors   uint64  `json:"errors"`
	IOUring  string  `json:"ioUring"`
	UID      int     `json:"uid"`
	Prefill  float64 `json:"prefillSeconds,omitempty"`
	FirstErr string  `json:"firstError,omitempty"`
}

func cmdIOTest(args []string) error {
	fs := flag.NewFlagSet("iotest", flag.ContinueOnError)
	target := fs.String("file", "", "file (created and prefilled) or block device")
	sizeS := fs.String("size", "256Mi", "working set")
	rw := fs.String("rw", "randread", "randread, randwrite, or a comma-separated sequence of them")
	bs := fs.Int("bs", 4096, "block size")
	qd := fs.Int("qd", 16, "outstanding IOs (one goroutine each)")
	secs := fs.Float64("seconds", 10, "measured time")
	ramp := fs.Float64("ramp", 2, "ramp time excluded from the result")
	startAt := fs.Int64("start-at", 0, "Unix time (seconds) to start the first phase at, after the prefill: lines up several clients")
	termLog := fs.String("termination-log", "/dev/termination-log", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	size, err := ParseBytes(*sizeS)
	if err != nil {
		return err
	}
	uring := probeIOUring()
	if *target == "" {
		return printResults([]ioResult{{RW: "none", IOUring: uring, UID: os.Getuid()}}, *termLog)
	}
	phases := strings.Split(*rw, ",")
	for _, p := range phases {
		if p != "randread" && p != "randwrite" {
			return fmt.Errorf("--rw %q: want randread or randwrite", p)
		}
	}
	f, blocks, prefill, err := openTarget(*target, size, *bs)
	if err != nil {
		return err
	}
	defer f.Close()
	if *startAt > 0 {
		wait := time.Until(time.Unix(*startAt, 0))
		if wait < 0 {
			return fmt.Errorf("--start-at is %v in the past (prefill took %v)", -wait, prefill)
		}
		time.Sleep(wait)
	}
	var results []ioResult
	for _, p := range phases {
		res := ioResult{Target: *target, RW: p, BS: *bs, QD: *qd, IOUring: uring, UID: os.Getuid(), Prefill: prefill.Seconds()}
		prefill = 0
		if err := runPhase(f, blocks, &res, *ramp, *secs); err != nil {
			return err
		}
		results = append(results, res)
		b, _ := json.Marshal(res)
		fmt.Println(string(b))
		if res.Errors > 0 {
			return fmt.Errorf("%d IO errors, first: %s", res.Errors, res.FirstErr)
		}
	}
	return printResults(results, *termLog)
}

func runPhase(f *os.File, blocks uint64, res *ioResult, ramp, secs float64) error {
	bs := res.BS
	var ios, errs atomic.Uint64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < res.QD; w++ {
		buf, err := alignedBuf(bs)
		if err != nil {
			return err
		}
		for i := range buf {
			buf[i] = byte(rand.Uint32())
		}
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, seed*7+1))
			fd := int(f.Fd())
			for {
				select {
				case <-stop:
					return
				default:
				}
				off := int64(r.Uint64N(blocks)) * int64(bs)
				var err error
				if res.RW == "randread" {
					_, err = syscall.Pread(fd, buf, off)
				} else {
					_, err = syscall.Pwrite(fd, buf, off)
				}
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ios.Add(1)
			}
		}(uint64(w+1) + uint64(time.Now().UnixNano()))
	}
	time.Sleep(time.Duration(ramp * float64(time.Second)))
	start, n0 := time.Now(), ios.Load()
	time.Sleep(time.Duration(secs * float64(time.Second)))
	el, n1 := time.Since(start), ios.Load()
	close(stop)
	wg.Wait()
	res.Seconds = el.Seconds()
	res.IOs = n1 - n0
	res.IOPS = float64(res.IOs) / el.Seconds()
	res.BPS = res.IOPS * float64(bs)
	res.Errors = errs.Load()
	if v, ok := firstErr.Load().(string); ok {
		res.FirstErr = v
	}
	return nil
}

// printResults writes the short summary as the termination message (the
// file only exists in a pod); the JSON lines went to stdout already.
func printResults(rs []ioResult, termLog string) error {
	var parts []string
	for _, r := range rs {
		if r.RW == "none" {
			b, _ := json.Marshal(r)
			fmt.Println(string(b))
		}
		parts = append(parts, fmt.Sprintf("%s=%.0f", r.RW, r.IOPS))
	}
	summary := fmt.Sprintf("iops %s io_uring=%s", strings.Join(parts, " "), rs[0].IOUring)
	if termLog != "" {
		_ = os.WriteFile(termLog, []byte(summary), 0)
	}
	return nil
}

// openTarget opens with O_DIRECT. A regular file is created and written once
// in full (1 MiB O_DIRECT writes) so that reads hit allocated blocks.
func openTarget(p string, size uint64, bs int) (*os.File, uint64, time.Duration, error) {
	st, err := os.Stat(p)
	isBlock := err == nil && st.Mode()&os.ModeDevice != 0
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_DIRECT, 0o600)
	if err != nil {
		return nil, 0, 0, err
	}
	if isBlock {
		end, err := f.Seek(0, 2)
		if err != nil {
			f.Close()
			return nil, 0, 0, err
		}
		if uint64(end) < size {
			size = uint64(end)
		}
		return f, size / uint64(bs), 0, nil
	}
	t0 := time.Now()
	fi, _ := f.Stat()
	if uint64(fi.Size()) < size {
		chunk, err := alignedBuf(1 << 20)
		if err != nil {
			return nil, 0, 0, err
		}
		for i := range chunk {
			chunk[i] = byte(i*31 + 7)
		}
		for off := uint64(0); off < size; off += uint64(len(chunk)) {
			n := uint64(len(chunk))
			if size-off < n {
				n = size - off
			}
			if _, err := f.WriteAt(chunk[:n], int64(off)); err != nil {
				f.Close()
				return nil, 0, 0, fmt.Errorf("prefill: %w", err)
			}
		}
		if err := f.Sync(); err != nil {
			return nil, 0, 0, err
		}
	}
	return f, size / uint64(bs), time.Since(t0), nil
}

func alignedBuf(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}

// probeIOUring calls io_uring_setup and io_uring_enter (no submission) and
// says whether both are allowed: seccomp profiles differ on this.
func probeIOUring() string {
	const sysSetup, sysEnter = 425, 426
	var params [120]byte
	fd, _, errno := syscall.Syscall(sysSetup, 4, uintptr(unsafe.Pointer(&params[0])), 0)
	if errno != 0 {
		return "refused: io_uring_setup: " + describeErrno(errno)
	}
	defer syscall.Close(int(fd))
	if _, _, errno := syscall.Syscall6(sysEnter, fd, 0, 0, 0, 0, 0); errno != 0 {
		return "refused: io_uring_enter: " + describeErrno(errno)
	}
	return "available"
}

func describeErrno(e syscall.Errno) string {
	switch {
	case errors.Is(e, syscall.EPERM):
		return "EPERM (seccomp or kernel.io_uring_disabled)"
	case errors.Is(e, syscall.ENOSYS):
		return "ENOSYS (seccomp or kernel without io_uring)"
	}
	return e.Error()
}
