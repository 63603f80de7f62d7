package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/storagebench/storagebench/internal/clientrun"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/results"
)

// Plan mode is how client pods run: `storagebench engine --plan FILE`. The
// controller mounts the target's plan; the client lays out its data, becomes
// ready (its startup probe checks --ready-file), waits for the start the
// controller publishes, runs its cells and prints its framed report on
// stdout, where the controller reads it from the pod log.

// planFlagGiven reports whether the engine's arguments ask for plan mode.
func planFlagGiven(args []string) bool {
	for _, a := range args {
		if a == "--plan" || strings.HasPrefix(a, "--plan=") {
			return true
		}
	}
	return false
}

type planOptions struct {
	planFile        string
	clientIndexBase int
	readyFile       string
	terminationLog  string
}

func parsePlanFlags(args []string) (*planOptions, error) {
	o := &planOptions{}
	fs := flag.NewFlagSet("engine --plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.planFile, "plan", "", "the target's plan (JSON)")
	fs.IntVar(&o.clientIndexBase, "client-index-base", 0, "added to $JOB_COMPLETION_INDEX to give this client's index")
	fs.StringVar(&o.readyFile, "ready-file", "/tmp/storagebench/ready", "created once the data set is laid out (the startup probe checks it)")
	fs.StringVar(&o.terminationLog, "termination-log", "/dev/termination-log", "where to write the one-line summary Kubernetes shows as the termination message")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("plan mode: %w (plan mode takes --plan, --client-index-base, --ready-file, --termination-log; fio options are not mixed with it)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("plan mode: unexpected argument %q", fs.Arg(0))
	}
	if o.planFile == "" {
		return nil, errors.New("plan mode: --plan needs a file")
	}
	return o, nil
}

// runPlanMode runs one client of a target in a pod.
func runPlanMode(stdout io.Writer, args []string) error {
	o, err := parsePlanFlags(args)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: err}
	}
	data, err := os.ReadFile(o.planFile)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("reading the plan: %w", err)}
	}
	p, err := plan.Parse(data)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: err}
	}
	index, err := clientIndex(o.clientIndexBase, p.Clients)
	if err != nil {
		return &ExitError{Code: exitUsage, Err: err}
	}
	signalSource, err := startSignal(p)
	if err != nil {
		return finishPlan(stdout, o, failedReport(p, index, err))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := &clientrun.Client{
		Plan:   p,
		Index:  index,
		Node:   os.Getenv("NODE_NAME"),
		Pod:    os.Getenv("POD_NAME"),
		Signal: signalSource,
		Ready:  func() error { return touch(o.readyFile) },
		Log:    os.Stderr,
		Emit:   func(r *results.ClientReport) error { return results.WriteClientReport(stdout, r) },
	}
	return finishPlan(stdout, o, c.Run(ctx))
}

// finishPlan prints the report and the termination message and turns a
// failed client into a failed pod.
func finishPlan(stdout io.Writer, o *planOptions, r *results.ClientReport) error {
	if err := results.WriteClientReport(stdout, r); err != nil {
		return &ExitError{Code: exitRunFailed, Err: err}
	}
	summary := fmt.Sprintf("client %d of target %s: %d cell runs", r.Client, r.Target, len(r.Runs))
	if r.Error != "" {
		summary = fmt.Sprintf("client %d of target %s failed: %s", r.Client, r.Target, r.Error)
	}
	// The kubelet keeps at most 4 KiB of the termination message.
	_ = os.WriteFile(o.terminationLog, []byte(truncateText(summary, 4000)), 0o644)
	if r.Error != "" {
		return &ExitError{Code: exitRunFailed, Err: errors.New(r.Error)}
	}
	return nil
}

func failedReport(p *plan.Plan, index int32, err error) *results.ClientReport {
	return &results.ClientReport{
		SchemaVersion: results.ClientReportSchema, Benchmark: p.Benchmark, Generation: p.Generation,
		Target: p.Target, Client: index, Node: os.Getenv("NODE_NAME"), Pod: os.Getenv("POD_NAME"), Error: err.Error(),
	}
}

// clientIndex is the base plus the Indexed Job's completion index.
func clientIndex(base int, clients int32) (int32, error) {
	index := base
	if v := os.Getenv("JOB_COMPLETION_INDEX"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("JOB_COMPLETION_INDEX=%q is not a number", v)
		}
		index += n
	}
	if index < 0 || index >= int(clients) {
		return 0, fmt.Errorf("client index %d is outside 0..%d", index, clients-1)
	}
	return int32(index), nil
}

// startSignal reads the start from the ConfigMap the plan names, with the
// pod's own service account (allowed to get that one object).
func startSignal(p *plan.Plan) (clientrun.StartSignal, error) {
	if p.StartSignal.ConfigMap == "" {
		return nil, errors.New("the plan names no start ConfigMap")
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("reading the start signal needs the in-cluster API: %w", err)
	}
	cfg.Timeout = 10 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	namespace := p.Namespace
	if namespace == "" {
		namespace = os.Getenv("POD_NAMESPACE")
	}
	return &clientrun.ConfigMapSignal{
		Client: cs, Namespace: namespace, Name: p.StartSignal.ConfigMap, Key: p.StartSignal.Key,
		Generation: p.Generation, MaxClockOffset: p.MaxClockOffset(),
		Log: os.Stderr,
	}, nil
}

func touch(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(time.Now().Format(time.RFC3339Nano)), 0o644)
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
