package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

func init() { register(newReportCommand) }

func newReportCommand() *cobra.Command {
	var k kubeFlags
	var file, output, compare string
	cmd := &cobra.Command{
		Use:   "report [NAME]",
		Short: "Render a benchmark's results as a table, JSON or an HTML page with charts",
		Long: `Render a finished (or running) benchmark: from the cluster (NAME, reading its
status and results ConfigMaps) or from a file written by 'storagebench run
-o json' (-f FILE). Output: a terminal table with one column per read/write
mix, the full results as JSON, or a self-contained HTML page with SVG charts.`,
		Example: `  storagebench report quickstart -n default -o html > report.html
  storagebench report -f result.json
  storagebench report -f today.json --compare last-quarter.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "table" && output != "json" && output != "html" {
				return &ExitError{Code: exitUsage, Err: fmt.Errorf("-o %q: use table, json or html", output)}
			}
			var rr *results.RunResult
			var err error
			switch {
			case file != "" && len(args) == 0:
				rr, err = readRunResult(file)
			case file == "" && len(args) == 1:
				rr, err = clusterRunResult(cmd.Context(), &k, args[0])
			default:
				return &ExitError{Code: exitUsage, Err: errors.New("give a benchmark NAME or -f FILE (one of them)")}
			}
			if err != nil {
				return &ExitError{Code: exitUsage, Err: err}
			}
			if compare != "" {
				other, err := readRunResult(compare)
				if err != nil {
					return &ExitError{Code: exitUsage, Err: fmt.Errorf("--compare: %w", err)}
				}
				compareRuns(rr, other, compare)
			}
			return writeRunResult(cmd.OutOrStdout(), rr, output)
		},
	}
	k.add(cmd)
	cmd.Flags().StringVarP(&file, "file", "f", "", "results written by 'storagebench run -o json'")
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or html")
	cmd.Flags().StringVar(&compare, "compare", "", "another run's results (`run -o json`, `report -o json`) to compare with, cell by cell: the same target and cell names; the others are listed")
	return cmd
}

// readRunResult reads a file written by 'storagebench run -o json'. The
// file is untrusted (hand-edited, truncated, from anywhere):
// results.DecodeRunResult checks all of it, so that what it returns
// renders, and its errors name the file, line, column and JSON path.
// maxResultsFileBytes bounds what report -f reads into memory: far above a
// run at the documented maxima (16 targets, each within a results
// ConfigMap's 64 MiB unpacked limit, is at most a few hundred MB of JSON
// only with per-client detail a ConfigMap could not hold).
const maxResultsFileBytes = 256 << 20

func readRunResult(file string) (*results.RunResult, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxResultsFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > maxResultsFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes (256 MiB), more than any results file 'storagebench run -o json' writes", file, maxResultsFileBytes)
	}
	return results.DecodeRunResult(file, data)
}

// clusterRunResult rebuilds a run's results from the benchmark's status and
// its results ConfigMaps.
func clusterRunResult(ctx context.Context, k *kubeFlags, name string) (*results.RunResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c, namespace, err := k.client()
	if err != nil {
		return nil, err
	}
	b := &sbv1.StorageBenchmark{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, b); err != nil {
		return nil, fmt.Errorf("reading StorageBenchmark %s/%s: %w", namespace, name, err)
	}
	return runResultFromCluster(ctx, c, b)
}

func runResultFromCluster(ctx context.Context, c client.Reader, b *sbv1.StorageBenchmark) (*results.RunResult, error) {
	rr := &results.RunResult{
		SchemaVersion: results.RunResultSchema, Benchmark: b.Name, Namespace: b.Namespace, Generation: b.Generation, Spec: b.Spec,
		Outcome: results.Outcome{
			Verdict: b.Status.Verdict, Violations: b.Status.Violations,
			Warnings: b.Status.Warnings, Recommendation: b.Status.Recommendation,
		},
	}
	// A finished run's whole outcome (status keeps bounded summaries).
	if name := b.Status.ComparisonConfigMap; name != "" {
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: b.Namespace, Name: name}, cm); err != nil {
			return nil, fmt.Errorf("reading the comparison (configmap %s): %w", name, err)
		}
		stored, err := results.DecodeOutcome(cm.Data, cm.BinaryData)
		if err != nil {
			return nil, fmt.Errorf("configmap %s: %w", name, err)
		}
		if stored.Benchmark != b.Name || stored.Generation != b.Status.ObservedGeneration {
			return nil, fmt.Errorf("configmap %s holds the outcome of %s generation %d, not of %s generation %d",
				name, stored.Benchmark, stored.Generation, b.Name, b.Status.ObservedGeneration)
		}
		rr.Outcome = stored.Outcome
	}
	if b.Status.StartTime != nil {
		rr.StartTime = b.Status.StartTime.Time
	}
	if b.Status.CompletionTime != nil {
		rr.CompletionTime = b.Status.CompletionTime.Time
	} else {
		rr.CompletionTime = time.Now()
	}
	for _, ts := range b.Status.Targets {
		if ts.State == sbv1.TargetFailed && ts.Message != "" && rr.Error == "" {
			rr.Error = fmt.Sprintf("target %s: %s", ts.Name, ts.Message)
		}
		if ts.ResultsConfigMap == "" {
			continue
		}
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: b.Namespace, Name: ts.ResultsConfigMap}, cm); err != nil {
			return nil, fmt.Errorf("reading the results of target %s (configmap %s): %w", ts.Name, ts.ResultsConfigMap, err)
		}
		tr, err := results.DecodeStored(cm.Data, cm.BinaryData)
		if err != nil {
			return nil, fmt.Errorf("configmap %s: %w", ts.ResultsConfigMap, err)
		}
		rr.Targets = append(rr.Targets, tr)
	}
	// Each ConfigMap was checked; the run as a whole (a target twice, cells
	// the spec does not have) is checked as a results file is.
	if err := rr.Check(); err != nil {
		return nil, fmt.Errorf("the results of %s/%s: %w", b.Namespace, b.Name, err)
	}
	return rr, nil
}
