// Package report renders a benchmark's results for people: a terminal
// table (with one column per read/write mix, as published storage tables
// are laid out), JSON, and a self-contained HTML page with SVG charts. It
// works on results.RunResult, whether it came from `storagebench run`, from
// a file or from a cluster's status and results ConfigMaps.
package report

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// section is one table: the cells of a workload group that differ only in
// their read percentage, one column per percentage; or, for a Metadata
// group, its operations for one job count, one column per operation (as
// bonnie++ lays out its file phases).
type section struct {
	title    string
	metadata bool
	group    *sbv1.WorkloadGroup // nil when the spec has no such group
	columns  []sbv1.Cell         // ordered as in the spec
}

// runsOn reports whether the section's group ran on a target: the others
// have no rows in it.
func (s *section) runsOn(target string) bool {
	return s.group == nil || s.group.RunsOn(target)
}

// sections groups the spec's cells for display.
func sections(spec *sbv1.StorageBenchmarkSpec) []section {
	var out []section
	index := map[string]int{}
	for _, c := range spec.Cells() {
		key := fmt.Sprintf("%s|%d|%d|%d|%d|%d", c.Workload, c.BlockSizeBytes, c.BlockSizeMinBytes, c.BlockSizeMaxBytes, c.QueueDepth, c.NumJobs)
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			title := sectionTitle(spec, c)
			if c.IsMetadata() {
				title = metadataTitle(spec, c)
			}
			group := spec.Workload(c.Workload)
			if group != nil && len(group.Targets) > 0 {
				title += ", on " + strings.Join(group.Targets, ", ") + " only"
			}
			out = append(out, section{title: title, metadata: c.IsMetadata(), group: group})
		}
		out[i].columns = append(out[i].columns, c)
	}
	return out
}

// columnLabel heads a cell's column: its read mix, or its operation.
func columnLabel(c sbv1.Cell) string {
	if c.IsMetadata() {
		return string(c.Metadata.Operation)
	}
	return fmt.Sprintf("%d%% read", c.ReadPercent)
}

func metadataTitle(spec *sbv1.StorageBenchmarkSpec, c sbv1.Cell) string {
	m := c.Metadata
	title := fmt.Sprintf("%s: metadata, %d names per job", c.Workload, m.FilesPerJob)
	if m.FileSizeBytes > 0 {
		title += ", files of " + sbv1.FormatBlockSize(m.FileSizeBytes)
	}
	if m.FilesPerDirectory > 0 {
		title += fmt.Sprintf(", %d per directory", m.FilesPerDirectory)
	}
	if m.RandomOrder {
		title += ", random order"
	}
	where := "a directory per client"
	if m.SharedDirectory {
		where = "one directory for all clients"
	}
	return title + fmt.Sprintf(", %s, %d job(s) x %d client(s), up to %d s per operation", where, c.NumJobs, spec.Clients.Count, c.DurationSeconds)
}

func sectionTitle(spec *sbv1.StorageBenchmarkSpec, c sbv1.Cell) string {
	bs := sbv1.FormatBlockSize(c.BlockSizeBytes)
	if c.BlockSizeBytes == 0 {
		bs = sbv1.FormatBlockSize(c.BlockSizeMinBytes) + "-" + sbv1.FormatBlockSize(c.BlockSizeMaxBytes)
	}
	access := "random"
	if c.Access == sbv1.AccessSequential {
		access = "sequential"
	}
	title := fmt.Sprintf("%s: %s %s, queue depth %d, %d job(s) x %d client(s), %d s", c.Workload, access, bs, c.QueueDepth, c.NumJobs, spec.Clients.Count, c.DurationSeconds)
	if c.RateIOPS > 0 {
		title += fmt.Sprintf(", %d IOPS per job", c.RateIOPS)
	}
	if c.SyncWrites {
		title += ", O_DSYNC"
	}
	if !c.Direct {
		title += ", buffered"
	}
	return title
}

// lookup finds results by target and cell.
type lookup struct {
	targets map[string]*results.TargetResult
	deltas  map[string]map[string]sbv1.BaselineDelta // cell -> target -> delta
	order   []string
}

// newLookup indexes a run's results. Results read from files and
// ConfigMaps have passed results' Check; the nil checks here are a second
// line, for results built some other way.
func newLookup(rr *results.RunResult) *lookup {
	l := &lookup{targets: map[string]*results.TargetResult{}, deltas: map[string]map[string]sbv1.BaselineDelta{}}
	for _, tr := range rr.Targets {
		if tr != nil && l.targets[tr.Target] == nil {
			l.targets[tr.Target] = tr
		}
	}
	listed := map[string]bool{}
	for _, t := range rr.Spec.Targets {
		if l.targets[t.Name] != nil && !listed[t.Name] {
			listed[t.Name] = true
			l.order = append(l.order, t.Name)
		}
	}
	if rr.Comparison != nil {
		for _, c := range rr.Comparison.Cells {
			m := map[string]sbv1.BaselineDelta{}
			for _, d := range c.VsBaseline {
				m[d.Target] = d
			}
			l.deltas[c.Cell] = m
		}
	}
	return l
}

func (l *lookup) rep(target, cell string) *results.RepetitionResult {
	return results.FindCell(l.targets[target], cell)
}

func (l *lookup) delta(target, cell string) (sbv1.BaselineDelta, bool) {
	d, ok := l.deltas[cell][target]
	return d, ok
}

// sortedWarnings orders warnings by target, then reason.
func sortedWarnings(w []sbv1.Warning) []sbv1.Warning {
	out := append([]sbv1.Warning(nil), w...)
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Target != out[b].Target {
			return out[a].Target < out[b].Target
		}
		return out[a].Reason < out[b].Reason
	})
	return out
}

// errNoResults is what the renderers say to a nil run result.
var errNoResults = errors.New("no results to render")
