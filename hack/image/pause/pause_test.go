package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func buildPause(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pause")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestExitsZeroOnSIGTERM(t *testing.T) {
	bin := buildPause(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(bin)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // let it install its handlers
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%v: exit %v, want 0", sig, err)
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: pause did not exit", sig)
		}
	}
}

func TestVersion(t *testing.T) {
	out, err := exec.Command(buildPause(t), "-v").Output()
	if err != nil || !strings.Contains(string(out), version) {
		t.Errorf("-v = %q %v", out, err)
	}
}

// TestReapsChildren checks that an exited child does not stay a zombie: the
// SIGCHLD path of the main loop.
func TestReapsChildren(t *testing.T) {
	if os.Getenv("PAUSE_REAP_HELPER") == "1" {
		// In the helper process: start a child that exits after the pause loop
		// runs, then run the loop, which must reap it.
		child := exec.Command("/bin/sleep", "0.3")
		if err := child.Start(); err != nil {
			os.Exit(3)
		}
		os.Args = []string{"pause"}
		main()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=TestReapsChildren")
	cmd.Env = append(os.Environ(), "PAUSE_REAP_HELPER=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	time.Sleep(100 * time.Millisecond)
	if n := len(childrenOf(cmd.Process.Pid)); n != 1 {
		t.Fatalf("helper has %d children, want the sleeping one", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(childrenOf(cmd.Process.Pid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("child of pause not reaped after 5s: %v", childrenOf(cmd.Process.Pid))
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("pause exit: %v", err)
	}
}

// childrenOf lists "pid state" of the processes whose parent is pid.
func childrenOf(pid int) []string {
	var out []string
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, strings.Fields(s)[0]+" "+fields[0])
		}
	}
	return out
}
