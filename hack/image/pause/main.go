// Command pause is the sandbox ("pause") container of the local cluster: PID 1
// of each pod sandbox. It holds the namespaces open, reaps zombie children
// (orphans are re-parented to it when the pod shares its PID namespace) and
// exits 0 on SIGTERM or SIGINT. Built static (CGO_ENABLED=0) by
// `go -C hack/image run . build-pause`.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const version = "3.10-local"

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "-v" || os.Args[1] == "--version") {
		fmt.Println("pause", version)
		return
	}
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "pause: warning: not running as PID 1")
	}
	// Reap orphans even when not PID 1 (e.g. in tests).
	_ = setSubreaper()

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	reap() // children that exited before the handler was installed
	for sig := range sigs {
		switch sig {
		case syscall.SIGCHLD:
			reap()
		default:
			fmt.Fprintf(os.Stderr, "pause: shutting down, got signal %v\n", sig)
			os.Exit(0)
		}
	}
}

// reap collects every exited child; SIGCHLD may stand for several.
func reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

func setSubreaper() error {
	const prSetChildSubreaper = 36
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
