// Package clientrun runs one client's share of a target's plan: lay out the
// data set, say ready, wait for the shared start instant, then run every
// slot at its offset and report what the engine measured. The controller's
// client pods (`storagebench engine --plan`) and the local runner both use
// it, so a benchmark runs the same way with and without a cluster.
package clientrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/storagebench/storagebench/engine"
	"github.com/storagebench/storagebench/internal/plan"
	"github.com/storagebench/storagebench/internal/version"
	"github.com/storagebench/storagebench/results"
)

// StartSignal delivers the start instant every client of a target shares.
// A signal that must be reachable before the client reports ready (the
// cluster's ConfigMap) also implements Primer.
type StartSignal interface {
	// Wait blocks until the start instant is published. It also returns
	// the client's estimated clock offset from the publisher (positive:
	// the client is ahead); an error when it is beyond the plan's bound.
	Wait(ctx context.Context) (start time.Time, clockOffset time.Duration, err error)
}

// Primer is a start signal the client checks once before reporting ready.
type Primer interface {
	Prime(ctx context.Context) error
}

// Client is one client of a target.
type Client struct {
	Plan  *plan.Plan
	Index int32
	Node  string
	Pod   string
	// Signal delivers the shared start.
	Signal StartSignal
	// Ready is called once the data set is laid out (the cluster client
	// writes its readiness file; the local runner counts clients).
	Ready func() error
	// Log receives progress lines (stderr in a pod).
	Log io.Writer
	// Emit hands over the report of a search round before the client waits
	// for the next (a pod writes it to its log); only plans with searches
	// use it. Run returns the last report, as without rounds.
	Emit func(*results.ClientReport) error
}

// Run executes the plan and always returns a report: on failure its Error
// says why, and its Runs hold what completed.
func (c *Client) Run(ctx context.Context) *results.ClientReport {
	report := &results.ClientReport{
		SchemaVersion: results.ClientReportSchema,
		Benchmark:     c.Plan.Benchmark,
		Generation:    c.Plan.Generation,
		Target:        c.Plan.Target,
		Client:        c.Index,
		Node:          c.Node,
		Pod:           c.Pod,
		EngineVersion: version.Version,
	}
	if err := c.run(ctx, report); err != nil {
		report.Error = err.Error()
	}
	return report
}

func (c *Client) run(ctx context.Context, report *results.ClientReport) error {
	if err := checkThreads(c.Plan); err != nil {
		return err
	}
	data, err := dataFor(c.Plan, c.Index)
	if err != nil {
		return err
	}
	began := time.Now()
	if hasIOCells(c.Plan) {
		c.logf("laying out %d bytes in %d file(s) under %s (fill %s)", c.Plan.Data.SizePerClientBytes, len(data.files), c.Plan.Data.Path, c.Plan.Data.Fill)
		if err := engine.Prepare(ctx, []engine.JobSpec{data.layoutJob(c.Plan)}); err != nil {
			return fmt.Errorf("laying out the data set: %w", err)
		}
	} else {
		c.logf("only metadata cells: no data set to lay out")
	}
	report.PrepareMilliseconds = time.Since(began).Milliseconds()
	if primer, ok := c.Signal.(Primer); ok {
		primeCtx, cancel := context.WithTimeout(ctx, time.Duration(max(c.Plan.WaitForStartSeconds, 1))*time.Second)
		err := primer.Prime(primeCtx)
		cancel()
		if err != nil {
			return fmt.Errorf("reaching the start signal: %w", err)
		}
	}
	if c.Ready != nil {
		if err := c.Ready(); err != nil {
			return fmt.Errorf("reporting ready: %w", err)
		}
	}
	c.logf("ready after %d ms; waiting for the start", report.PrepareMilliseconds)

	waitCtx, cancel := context.WithTimeout(ctx, time.Duration(max(c.Plan.WaitForStartSeconds, 1))*time.Second)
	start, offset, err := c.Signal.Wait(waitCtx)
	cancel()
	report.ClockOffsetMilliseconds = offset.Milliseconds()
	if err != nil {
		return fmt.Errorf("waiting for the start: %w", err)
	}
	report.StartUnixNano = start.UnixNano()
	c.logf("start at %s (clock offset %d ms)", start.Format(time.RFC3339Nano), report.ClockOffsetMilliseconds)

	for i, slot := range c.Plan.Slots {
		due := start.Add(time.Duration(slot.OffsetMilliseconds) * time.Millisecond)
		if err := sleepUntil(ctx, due); err != nil {
			return err
		}
		runs := c.runSlot(ctx, i, &slot, data, due)
		report.Runs = append(report.Runs, runs...)
		for _, r := range runs {
			if r.Error != "" {
				return fmt.Errorf("cell %s: %s", r.Cell, r.Error)
			}
		}
	}
	if c.Plan.HasRounds() {
		return c.runRounds(ctx, report, data)
	}
	return nil
}

// hasIOCells reports whether any cell of the plan reads or writes the data
// set (metadata cells make their own names).
func hasIOCells(p *plan.Plan) bool {
	if p.HasRounds() {
		return true // search steps read and write the data set
	}
	for _, s := range p.Slots {
		for _, c := range s.Cells {
			if !c.IsMetadata() {
				return true
			}
		}
	}
	return false
}

// runSlot runs the slot's cells at once, each as its own engine run; a
// metadata cell's names are made fresh before its group's first operation
// and removed after its last.
func (c *Client) runSlot(ctx context.Context, index int, slot *plan.Slot, data *dataSet, due time.Time) []results.CellRun {
	runs := make([]results.CellRun, len(slot.Cells))
	var wg sync.WaitGroup
	for k := range slot.Cells {
		cell := slot.Cells[k]
		wg.Add(1)
		go func() {
			defer wg.Done()
			job := data.cellJob(c.Plan, &cell, seedFor(c.Index, index, k))
			runs[k] = results.CellRun{Cell: cell.Name, Repetition: slot.Repetition, ScheduledUnixNano: due.UnixNano()}
			err := data.beforeMetadataCell(&job, &cell)
			if err == nil {
				runs[k].Document, err = engine.Run(ctx, []engine.JobSpec{job}, engine.RunOptions{GroupReporting: true, OutputFormat: "json"})
			}
			if err == nil {
				err = data.afterMetadataCell(&job, &cell)
			}
			if err != nil {
				runs[k].Error = err.Error()
			}
		}()
	}
	wg.Wait()
	for _, r := range runs {
		c.logf("cell %s repetition %d done%s", r.Cell, r.Repetition, errorSuffix(r.Error))
	}
	return runs
}

func errorSuffix(e string) string {
	if e == "" {
		return ""
	}
	return ": " + e
}

// seedFor gives every client, slot and cell its own random sequence:
// reproducible across runs, but clients never walk the same offsets.
func seedFor(client int32, slot, cell int) uint64 {
	return uint64(client)<<40 | uint64(slot)<<8 | uint64(cell) | 1<<63
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-timer.C:
		return nil
	}
}

func (c *Client) logf(format string, args ...any) {
	if c.Log == nil {
		return
	}
	fmt.Fprintf(c.Log, "%s client %d target %s: %s\n", time.Now().Format(time.RFC3339), c.Index, c.Plan.Target, fmt.Sprintf(format, args...))
}

// ensureDir creates a client's directory; shared volumes hold one per client.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		var pathErr *os.PathError
		if errors.As(err, &pathErr) {
			return fmt.Errorf("creating %s: %w", dir, pathErr.Err)
		}
		return err
	}
	return nil
}
