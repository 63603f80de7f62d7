// Command bench-controller-scale measures what the StorageBenchmark
// controller costs as benchmarks grow (targets x clients x cells, up to the
// documented maxima 16 x 64 x 64) and when many run at once. It runs the
// real reconciler in a manager against a real etcd and kube-apiserver
// (envtest) and plays the cluster's other parts itself (internal/fakecluster:
// bound claims, ready pods, client logs with real engine reports and
// histograms), with a clock that leaps over timetables, which take no
// time. It prints one row per measurement; see docs/controller-scale.md for how to read it.
//
//	hack/bench-controller-scale.sh [-shapes 1x1x1,2x8x8,...] [-many 50]
//
// It is a benchmark to compare changes, not a test: nothing is asserted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

func main() {
	shapes := flag.String("shapes", "1x1x1,2x8x8,4x16x16,8x32x32,16x64x64", "benchmark shapes to run, targets x clients x cells, comma-separated")
	many := flag.Int("many", 50, "small (1x1x1) benchmarks to create at once; 0 skips this measurement")
	workers := flag.Int("max-concurrent-reconciles", 0, "the manager's --max-concurrent-reconciles (0: its default)")
	timeout := flag.Duration("timeout", 20*time.Minute, "longest any single wait may take")
	profiles := flag.String("profiles", "", "write each measurement's manager CPU and allocation profiles as DIR/<measurement>.{cpu,allocs}.pprof")
	managerMode := flag.Bool("manager-mode", false, "internal: run the manager (the harness starts this program so)")
	kubeconfig := flag.String("api-kubeconfig", "", "internal, with -manager-mode: the API server")
	logDir := flag.String("logs", "", "internal, with -manager-mode: where the harness writes client logs")
	profile := flag.String("profile", "", "internal, with -manager-mode: write the CPU and allocation profiles as PREFIX.{cpu,allocs}.pprof")
	flag.Parse()
	var err error
	if *managerMode {
		err = runManagerProcess(*kubeconfig, *logDir, *workers, *profile)
	} else {
		err = run(*shapes, *many, *workers, *timeout, *profiles)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-controller-scale:", err)
		os.Exit(1)
	}
}

func run(shapeList string, many, workers int, timeout time.Duration, profiles string) error {
	var list []shape
	for _, s := range strings.Split(shapeList, ",") {
		sh, err := parseShape(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		list = append(list, sh)
	}
	if profiles != "" {
		if err := os.MkdirAll(profiles, 0o755); err != nil {
			return fmt.Errorf("-profiles: %w", err)
		}
	}
	b, err := startBench(workers, timeout)
	if err != nil {
		return err
	}
	defer b.stop()
	b.profiles = profiles
	printHeader()
	for _, s := range list {
		row, err := b.measureShape(context.Background(), s)
		if err != nil {
			return fmt.Errorf("shape %s: %w", s, err)
		}
		printRow(row)
	}
	if many > 0 {
		row, err := b.measureMany(context.Background(), many)
		if err != nil {
			return fmt.Errorf("%d benchmarks at once: %w", many, err)
		}
		printRow(row)
	}
	return nil
}

// startProfiles starts a CPU profile (PREFIX.cpu.pprof) and returns what
// writes it and the allocation profile (PREFIX.allocs.pprof).
func startProfiles(prefix string) (stop func(), err error) {
	cpu, err := os.Create(prefix + ".cpu.pprof")
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		cpu.Close()
		if f, err := os.Create(prefix + ".allocs.pprof"); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}, nil
}

func parseShape(s string) (shape, error) {
	parts := strings.Split(s, "x")
	if len(parts) != 3 {
		return shape{}, fmt.Errorf("shape %q: want TARGETSxCLIENTSxCELLS, e.g. 4x16x16", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 1 {
			return shape{}, fmt.Errorf("shape %q: %q is not a positive count", s, p)
		}
		n[i] = v
	}
	return shape{targets: n[0], clients: n[1], cells: n[2]}, nil
}
