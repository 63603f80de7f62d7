package localrun

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/internal/plan"
)

// progress shows cells done out of all, the current target and an ETA, on
// one redrawn line for a terminal or a line every few seconds otherwise.
type progress struct {
	out         io.Writer
	interactive bool
	order       []string
	plans       map[string]*plan.Plan // the round each target runs (or ran last)

	mu        sync.Mutex
	current   string
	measuring time.Time // the current target's measurement start; zero while preparing
	done      map[string]bool
	earlier   map[string]int // cell runs of a target's rounds before its current one
	began     time.Time
	stopped   chan struct{}
	once      sync.Once
}

func newProgress(b *sbv1.StorageBenchmark, plans map[string]*plan.Plan, out io.Writer, interactive bool) *progress {
	p := &progress{out: out, interactive: interactive, plans: plans, done: map[string]bool{}, earlier: map[string]int{}, began: time.Now(), stopped: make(chan struct{})}
	for _, t := range b.Spec.Targets {
		p.order = append(p.order, t.Name)
	}
	return p
}

// start begins drawing; the returned function stops (idempotently).
func (p *progress) run() func() {
	if p.out == nil {
		return func() {}
	}
	every := 10 * time.Second
	if p.interactive {
		every = time.Second
	}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		ticker := time.NewTicker(every)
		defer ticker.Stop()
		for {
			select {
			case <-p.stopped:
				return
			case <-ticker.C:
				p.draw(false)
			}
		}
	}()
	return func() {
		p.once.Do(func() {
			close(p.stopped)
			<-finished
			p.draw(true)
		})
	}
}

func (p *progress) targetStarted(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current, p.measuring = name, time.Time{}
}

func (p *progress) measurementStarts(name string, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == name && p.measuring.IsZero() {
		p.measuring = at
	}
}

// nextRound switches a target to its next round of search steps: the cells
// of the rounds before count as done, the ETA is the new round's.
func (p *progress) nextRound(name string, round *plan.Plan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if previous := p.plans[name]; previous != nil {
		p.earlier[name] += previous.CellRuns() // rounds run one after another: the last is over
	}
	p.plans[name] = round
	p.measuring = time.Time{}
}

func (p *progress) targetDone(name string, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[name] = true
	if p.out != nil && !p.interactive {
		fmt.Fprintf(p.out, "target %s done in %s\n", name, took.Round(time.Second))
	}
}

// snapshot counts cell runs done and estimates the time left: the rest of
// the current timetable and the full timetables of the targets to come
// (data layout time is not known in advance and not included).
func (p *progress) snapshot(now time.Time) (done, total int, current string, eta time.Duration, preparing bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range p.order {
		pl := p.plans[name]
		total += pl.CellRuns() + p.earlier[name]
		done += p.earlier[name]
		switch {
		case p.done[name]:
			done += pl.CellRuns()
		case name == p.current && !p.measuring.IsZero():
			elapsed := now.Sub(p.measuring)
			done += pl.CellRunsDoneAt(elapsed)
			eta += max(pl.Duration()-elapsed, 0)
		default:
			eta += pl.Duration()
		}
	}
	return done, total, p.current, eta, p.current != "" && p.measuring.IsZero() && !p.done[p.current]
}

func (p *progress) draw(final bool) {
	done, total, current, eta, preparing := p.snapshot(time.Now())
	const width = 24
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	state := "target " + current
	if preparing {
		state += " (laying out data)"
	}
	line := fmt.Sprintf("[%s] %d/%d cells  %s  ETA %s", bar, done, total, state, eta.Round(time.Second))
	if final {
		line = fmt.Sprintf("[%s] %d/%d cells in %s", bar, done, total, time.Since(p.began).Round(time.Second))
	}
	if p.interactive {
		end := ""
		if final {
			end = "\n"
		}
		fmt.Fprintf(p.out, "\r\033[K%s%s", line, end)
		return
	}
	fmt.Fprintln(p.out, line)
}
