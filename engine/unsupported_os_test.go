//go:build !linux

package engine

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestRunAndPrepareSayTheEngineIsLinuxOnly(t *testing.T) {
	jobs, opts, err := ParseArgs([]string{"--name=a", "--size=1m"})
	if err != nil {
		t.Fatal(err)
	}
	_, runErr := Run(context.Background(), jobs, opts)
	for _, err := range []error{runErr, Prepare(context.Background(), jobs)} {
		if err == nil || !errors.Is(err, errors.ErrUnsupported) ||
			!strings.Contains(err.Error(), "runs on Linux only") || !strings.HasSuffix(err.Error(), "this is "+runtime.GOOS) {
			t.Errorf("error %v, want the Linux-only error naming %s", err, runtime.GOOS)
		}
	}
}
