//go:build linux

package engine

import (
	"runtime"
	"strings"

	"github.com/storagebench/storagebench/engine/aio"
	"github.com/storagebench/storagebench/engine/uring"
)

// probe asks the kernel which backend it allows, best first.
func probe() backendChoice {
	var tried []string
	done := make(chan error)
	// Probe on a locked thread, as the workers will run.
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r, err := uring.New(uring.Config{Entries: 2})
		if err == nil {
			r.Close()
		}
		done <- err
	}()
	if err := <-done; err == nil {
		return backendChoice{name: EngineIOUring, reason: "auto: io_uring available"}
	} else {
		tried = append(tried, "io_uring refused ("+err.Error()+")")
	}
	c, err := aio.New(1, nil)
	if err == nil {
		c.Close()
		return backendChoice{name: EngineLibaio, reason: "auto: " + strings.Join(tried, "; ") + "; libaio available"}
	}
	tried = append(tried, "libaio refused ("+err.Error()+")")
	return backendChoice{name: EnginePsync, reason: "auto: " + strings.Join(tried, "; ") + "; using psync"}
}
