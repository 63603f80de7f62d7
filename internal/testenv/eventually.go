package testenv

import (
	"testing"
	"time"
)

// Eventually polls check every interval until it returns nil, or fails the
// test with the last error once timeout has passed.
func Eventually(t testing.TB, timeout, interval time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return
		}
		time.Sleep(interval)
	}
	t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
}
