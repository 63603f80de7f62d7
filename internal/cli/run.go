package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/admission"
	"github.com/storagebench/storagebench/internal/gate"
	"github.com/storagebench/storagebench/internal/localrun"
	"github.com/storagebench/storagebench/internal/report"
	"github.com/storagebench/storagebench/results"
)

func init() { register(newRunCommand) }

type runOptions struct {
	file    string
	targets []string
	workdir string
	output  string
	verbose bool
	history []string
	compare string
}

func newRunCommand() *cobra.Command {
	o := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run -f FILE",
		Short: "Run a StorageBenchmark without a cluster, on local directories",
		Long: `Run a StorageBenchmark YAML without a cluster. Every target is a local
directory (or block device): --target NAME=PATH maps one, the others get a
fresh directory under --workdir (default: a temporary directory, removed
afterwards). Clients run as concurrent engine instances with the same
synchronized start as client pods. The spec is defaulted and validated with
the CRD's own schema, so the YAML you apply to a cluster runs unchanged.

Prints the comparison table (or -o json / -o html) and exits like
'storagebench gate': 0 thresholds passed, 1 a threshold failed, 2 the run
failed or could not be judged, 3 usage error.`,
		Example: `  storagebench run -f config/samples/quickstart.yaml
  storagebench run -f bench.yaml --target fast=/mnt/nvme --target slow=/mnt/nfs -o html > report.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runLocal(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.file, "file", "f", "", "StorageBenchmark YAML to run (- for stdin)")
	f.StringArrayVar(&o.targets, "target", nil, "map a target to a directory or block device: NAME=PATH (repeatable)")
	f.StringVar(&o.workdir, "workdir", "", "folder for the targets not mapped with --target (default: a temporary folder, removed afterwards; a folder you name is kept, so data sets can be reused)")
	f.StringVarP(&o.output, "output", "o", "table", "output format: table, json or html")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also print the clients' log lines on stderr")
	f.StringVar(&o.compare, "compare", "", "another run's results (`run -o json` or `report -o json`) to compare this run with, cell by cell, as spec.compareTo does in a cluster")
	f.StringArrayVar(&o.history, "history", nil, "an earlier run's results (`run -o json`) that thresholds with maxRegression against Previous or MedianOfLast compare with, as a schedule's earlier runs in a cluster (repeatable; ordered by their completion time)")
	return cmd
}

func runLocal(cmd *cobra.Command, o *runOptions) error {
	if o.file == "" {
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("-f FILE is required")}
	}
	if o.output != "table" && o.output != "json" && o.output != "html" {
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("-o %q: use table, json or html", o.output)}
	}
	targets := map[string]string{}
	for _, t := range o.targets {
		name, path, ok := strings.Cut(t, "=")
		if !ok || name == "" || path == "" {
			return &ExitError{Code: exitUsage, Err: fmt.Errorf("--target %q: use NAME=PATH", t)}
		}
		targets[name] = path
	}
	manifest, err := readManifest(cmd.InOrStdin(), o.file)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: err}
	}
	bench, err := admission.Admit(manifest)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("%s: %w", o.file, err)}
	}

	history, err := readHistory(o.history)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: err}
	}
	var other *results.RunResult
	if o.compare != "" {
		if other, err = readRunResult(o.compare); err != nil {
			return &ExitError{Code: exitUsage, Err: fmt.Errorf("--compare: %w", err)}
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr := cmd.ErrOrStderr()
	opts := localrun.Options{Targets: targets, Workdir: o.workdir, Progress: stderr, Interactive: isTerminal(stderr), History: history}
	if o.verbose {
		opts.Log = stderr
	}
	rr, runErr := localrun.Run(ctx, bench, opts)
	if rr == nil {
		return &ExitError{Code: exitUsage, Err: runErr}
	}
	compareRuns(rr, other, o.compare)
	if err := writeRunResult(cmd.OutOrStdout(), rr, o.output); err != nil {
		return err
	}
	if runErr != nil {
		return &ExitError{Code: gate.NotRun, Err: runErr}
	}
	return verdictExit(rr.Verdict)
}

// readHistory reads the --history files, checked as `report` checks them,
// oldest first.
func readHistory(files []string) ([]results.EarlierRun, error) {
	var history []results.EarlierRun
	for _, file := range files {
		rr, err := readRunResult(file)
		if err != nil {
			return nil, fmt.Errorf("--history: %w", err)
		}
		history = append(history, results.EarlierRunOf(rr))
	}
	results.SortHistory(history)
	return history, nil
}

// compareRuns relates rr to other (--compare FILE) as spec.compareTo does
// in a cluster; without other, a spec.compareTo that only a cluster can
// resolve says so in a warning.
func compareRuns(rr, other *results.RunResult, file string) {
	switch {
	case other != nil:
		source := fmt.Sprintf("file %s (benchmark %s, completed %s)", file, other.Benchmark, other.CompletionTime.UTC().Format("2006-01-02T15:04:05Z"))
		rr.Outcome.CompareTo = results.CompareRuns(&rr.Spec, results.EarlierRunOf(rr).Targets, results.EarlierRunOf(other).Targets, source)
	case rr.Spec.CompareTo != nil && rr.Outcome.CompareTo == nil:
		rr.Outcome.Warnings = append(rr.Outcome.Warnings, sbv1.Warning{Reason: "CompareToUnavailable",
			Message: "spec.compareTo names a run in a cluster: without a cluster, give its results with --compare FILE"})
	}
}

// writeRunResult renders a run in the chosen format.
func writeRunResult(w io.Writer, rr *results.RunResult, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rr)
	case "html":
		return report.WriteHTML(w, rr)
	default:
		return report.WriteTable(w, rr)
	}
}

func readManifest(stdin io.Reader, file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(stdin)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the benchmark: %w", err)
	}
	return data, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
