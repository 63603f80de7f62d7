package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestClientReadyWaitsForTheFileWithinItsWait(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = os.WriteFile(ready, nil, 0o600)
	}()
	if err := waitForFile(ready, 5*time.Second); err != nil {
		t.Fatalf("the file appeared within the wait: %v", err)
	}

	began := time.Now()
	err := waitForFile(filepath.Join(dir, "never"), 200*time.Millisecond)
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 {
		t.Fatalf("a missing file must fail the probe with exit code 1, got %v", err)
	}
	if waited := time.Since(began); waited < 200*time.Millisecond {
		t.Errorf("gave up after %s, before the 200 ms wait", waited)
	}
	if err := waitForFile(filepath.Join(dir, "never"), 0); !errors.As(err, &exit) {
		t.Errorf("without a wait a missing file fails at once: %v", err)
	}
}
