// Package localrun runs a StorageBenchmark without a cluster: each target is
// a local directory (or block device), clients are concurrent engine
// instances in this process with the same plans, the same synchronized start
// and the same merge as client pods, and the outcome is judged by the same
// code as the controller's.
package localrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/clientrun"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/internal/version"
	"github.com/storagebench/storagebench/results"
)

// startLead is how far ahead of the last client's readiness the start lies:
// in one process, clients see it at once.
const startLead = 500 * time.Millisecond

// Options configure a local run.
type Options struct {
	// Targets map target names to a directory (or block device).
	Targets map[string]string
	// Workdir holds a directory per unmapped target. Empty: a temporary
	// directory, removed afterwards.
	Workdir string
	// Progress receives the progress display (stderr); nil for none.
	Progress io.Writer
	// Interactive redraws one progress line in place (a terminal) instead
	// of printing a line now and then.
	Interactive bool
	// Log receives the clients' log lines; nil discards them.
	Log io.Writer
	// History are earlier runs of the same benchmark (their `run -o json`
	// results, oldest first) for thresholds with maxRegression against
	// Previous or MedianOfLast, as a schedule's earlier runs in a cluster.
	History []results.EarlierRun
}

// Run runs the benchmark and returns its results. A failure of a target
// ends the run; the result then carries the error and the targets measured
// before it.
func Run(ctx context.Context, b *sbv1.StorageBenchmark, opts Options) (*results.RunResult, error) {
	if err := checkThreads(b); err != nil {
		return nil, err
	}
	paths, cleanup, err := targetPaths(b, opts)
	if err != nil {
		return nil, err
	}
	defer cleanup()

	rr := &results.RunResult{
		SchemaVersion: results.RunResultSchema, Benchmark: b.Name, Namespace: b.Namespace,
		Generation: b.Generation, Spec: b.Spec, StartTime: time.Now(),
	}
	plans := map[string]*plan.Plan{}
	for i := range b.Spec.Targets {
		t := &b.Spec.Targets[i]
		plans[t.Name] = plan.Build(b, t, paths[t.Name])
	}
	progress := newProgress(b, plans, opts.Progress, opts.Interactive)
	stop := progress.run()
	defer stop()

	measured := map[string]*results.TargetResult{}
	var mu sync.Mutex
	ctx, matrixStart, cancelLinked := linkTargets(ctx, b, plans)
	defer cancelLinked()
	runOne := func(t *sbv1.Target) error {
		tr, err := runTarget(ctx, b, t, plans[t.Name], matrixStart, progress, opts.Log)
		if err != nil {
			cancelLinked() // linked targets' clients would wait for it
			return fmt.Errorf("target %s: %w", t.Name, err)
		}
		mu.Lock()
		measured[t.Name] = tr
		mu.Unlock()
		return nil
	}
	if b.Spec.TargetExecution == sbv1.TargetsParallel {
		err = runParallel(b, runOne)
	} else {
		for i := range b.Spec.Targets {
			if err = runOne(&b.Spec.Targets[i]); err != nil {
				break
			}
		}
	}
	stop()

	rr.CompletionTime = time.Now()
	for _, t := range b.Spec.Targets {
		if tr := measured[t.Name]; tr != nil {
			rr.Targets = append(rr.Targets, tr)
		}
	}
	if err != nil {
		rr.Error = err.Error()
		return rr, err
	}
	rr.Outcome = results.ConcludeWithHistory(&b.Spec, measured, opts.History)
	return rr, nil
}

// linkTargets gives targets that the benchmark links (LinksTargets) one
// start for their matrices, as the controller publishes one: a barrier
// for the clients of every target with matrix cells, and a context that a
// failing target cancels, so that the others' clients stop waiting for
// it. Unlinked: no barrier (each round has its own) and ctx as it is.
func linkTargets(ctx context.Context, b *sbv1.StorageBenchmark, plans map[string]*plan.Plan) (context.Context, *clientrun.Barrier, context.CancelFunc) {
	if !b.Spec.LinksTargets() {
		return ctx, nil, func() {}
	}
	clients := 0
	for _, p := range plans {
		if len(p.Slots) > 0 {
			clients += int(p.Clients)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	return ctx, clientrun.NewBarrier(clients, startLead), cancel
}

func runParallel(b *sbv1.StorageBenchmark, runOne func(*sbv1.Target) error) error {
	errs := make([]error, len(b.Spec.Targets))
	var wg sync.WaitGroup
	for i := range b.Spec.Targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = runOne(&b.Spec.Targets[i])
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// runTarget runs a target's matrix and then its searches, round by round,
// and merges the clients' reports of each round, as the controller does
// with client pods.
func runTarget(ctx context.Context, b *sbv1.StorageBenchmark, t *sbv1.Target, p *plan.Plan, matrixStart *clientrun.Barrier, progress *progress, log io.Writer) (*results.TargetResult, error) {
	began := time.Now()
	progress.targetStarted(t.Name)
	hostname, _ := os.Hostname()
	var tr *results.TargetResult
	if len(p.Slots) > 0 {
		// In process, each round is a plan of its own (Round); the matrix
		// is the first, and its clients end with it.
		matrix := *p
		matrix.Searches = nil
		merged, err := runRound(ctx, t.Name, &matrix, matrixStart, hostname, progress, log)
		if err != nil {
			return nil, err
		}
		tr = merged
	}
	searches := results.NewSearchProgress(p.Searches)
	for first := tr == nil; ; first = false {
		steps := results.NextSearchRound(searches, p.Clients)
		if len(steps) == 0 {
			break
		}
		round := p.Round(steps, first)
		progress.nextRound(t.Name, round)
		merged, err := runRound(ctx, t.Name, round, nil, hostname, progress, log)
		if err != nil {
			return nil, err
		}
		if err := results.FoldSearchRound(searches, p.Clients, steps, merged); err != nil {
			return nil, err
		}
		if tr == nil {
			tr = merged
			tr.Cells = nil // search steps live in their searches' curves
		} else {
			tr.AddRound(merged)
		}
	}
	if tr == nil {
		return nil, fmt.Errorf("target %s runs no cell and no search", t.Name)
	}
	tr.Searches = results.SearchResults(searches)
	tr.Timings.ClientsReadyMilliseconds = tr.Timings.PrepareMilliseconds
	tr.Environment = localEnvironment(t, p, hostname)
	tr.Warnings = results.Warnings(tr, results.WarningInputs{
		NodeMemoryBytes: map[string]int64{hostname: memoryBytes()}, SizePerClientBytes: p.Data.SizePerClientBytes,
		SteadyState: b.Spec.SteadyState.Rule(),
	})
	progress.targetDone(t.Name, time.Since(began))
	return tr, nil
}

// runRound runs one plan on all clients of a target in this process, with
// a shared start (barrier; nil: one of the round's own), and merges their
// reports.
func runRound(ctx context.Context, target string, p *plan.Plan, barrier *clientrun.Barrier, hostname string, progress *progress, log io.Writer) (*results.TargetResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if barrier == nil {
		barrier = clientrun.NewBarrier(int(p.Clients), startLead)
	}
	reports := make([]*results.ClientReport, p.Clients)
	var wg sync.WaitGroup
	for i := int32(0); i < p.Clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &clientrun.Client{Plan: p, Index: i, Node: hostname, Signal: barrier, Log: log,
				Ready: func() error {
					err := barrier.Ready()
					if start, _, werr := barrier.Wait(ctx); werr == nil {
						progress.measurementStarts(target, start)
					}
					return err
				},
			}
			reports[i] = c.Run(ctx)
			if reports[i].Error != "" {
				cancel() // the others would wait for the start in vain
			}
		}()
	}
	wg.Wait()
	for _, r := range reports {
		if r.Error != "" {
			return nil, fmt.Errorf("client %d: %s", r.Client, r.Error)
		}
	}
	return results.Merge(p, reports)
}

// targetPaths gives every target its directory: the mapped one, or one
// under the work directory.
func targetPaths(b *sbv1.StorageBenchmark, opts Options) (map[string]string, func(), error) {
	for name := range opts.Targets {
		if !hasTarget(b, name) {
			return nil, nil, fmt.Errorf("--target %s: the benchmark has no target %q", name, name)
		}
	}
	cleanup := func() {}
	workdir := opts.Workdir
	paths := map[string]string{}
	for _, t := range b.Spec.Targets {
		if p, ok := opts.Targets[t.Name]; ok {
			if err := checkTargetPath(&t, p); err != nil {
				return nil, nil, err
			}
			paths[t.Name] = p
			continue
		}
		if t.VolumeMode == corev1.PersistentVolumeBlock {
			return nil, nil, fmt.Errorf("target %s has volumeMode Block: map it to a block device with --target %s=/dev/DEVICE", t.Name, t.Name)
		}
		if workdir == "" {
			dir, err := os.MkdirTemp("", "storagebench-")
			if err != nil {
				return nil, nil, err
			}
			workdir = dir
			cleanup = func() { _ = os.RemoveAll(dir) }
		}
		dir := filepath.Join(workdir, t.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("target %s: %w", t.Name, err)
		}
		paths[t.Name] = dir
	}
	return paths, cleanup, nil
}

func hasTarget(b *sbv1.StorageBenchmark, name string) bool {
	for _, t := range b.Spec.Targets {
		if t.Name == name {
			return true
		}
	}
	return false
}

func checkTargetPath(t *sbv1.Target, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("--target %s=%s: %w", t.Name, path, err)
	}
	block := st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0
	switch {
	case t.VolumeMode == corev1.PersistentVolumeBlock && !block:
		return fmt.Errorf("--target %s=%s: target %s has volumeMode Block, but %s is not a block device", t.Name, path, t.Name, path)
	case t.VolumeMode != corev1.PersistentVolumeBlock && !st.IsDir():
		return fmt.Errorf("--target %s=%s: not a directory", t.Name, path)
	}
	return nil
}

// localEnvironment fingerprints a local target: the machine and the
// filesystem the directory is on.
func localEnvironment(t *sbv1.Target, p *plan.Plan, hostname string) *sbv1.Environment {
	env := &sbv1.Environment{Driver: "local-" + string(p.Data.Mode), VolumeAttributes: map[string]string{"path": p.Data.Path}, EngineVersion: version.Version}
	if t.StorageClassName != nil {
		env.StorageClassName = *t.StorageClassName
	}
	var uts unix.Utsname
	kernel := ""
	if unix.Uname(&uts) == nil {
		kernel = unix.ByteSliceToString(uts.Release[:])
	}
	env.Nodes = []sbv1.NodeFingerprint{{Name: hostname, KernelVersion: kernel, Clients: p.Clients}}
	return env
}
