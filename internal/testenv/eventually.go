package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Poll calls check every interval until it returns nil (Poll returns nil),
// timeout passes or ctx ends (Poll returns an error with check's last
// error). Test helpers and the benchmark harnesses share it.
func Poll(ctx context.Context, timeout, interval time.Duration, check func() error) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", context.Cause(ctx), err)
		case <-deadline.C:
			return fmt.Errorf("timed out after %s: %w", timeout, err)
		case <-tick.C:
		}
	}
}

// Eventually polls check every interval until it returns nil, or fails the
// test with the last error once timeout has passed.
func Eventually(t testing.TB, timeout, interval time.Duration, what string, check func() error) {
	t.Helper()
	if err := Poll(context.Background(), timeout, interval, check); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
