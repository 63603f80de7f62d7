package results

import (
	"fmt"
	"sort"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/engine/result"
)

// Bounds behind the validity warnings.
const (
	// MaxStartSkewMicroseconds is the start spread beyond which clients may
	// not have overlapped as the plan meant.
	MaxStartSkewMicroseconds = 100_000
	// stragglerShare: a client below this share of the median client's IOPS
	// held the others back or was held back.
	stragglerShare = 0.5
	// stragglerLateNanos: a client that ended this much after the median
	// client ran longer than the others.
	stragglerLateNanos = 2_000_000_000
)

// Warning reasons.
const (
	WarnDatasetFitsInMemory = "DatasetFitsInMemory"
	WarnBackendFallback     = "BackendFallback"
	WarnStartSkew           = "StartSkew"
	WarnStraggler           = "StragglerClient"
	WarnRateNotMet          = "RateNotMet"
	WarnMetadataCutShort    = "MetadataCutShort"
	WarnMetadataTooShort    = "MetadataTooShort"
	// WarnNoHistory: a threshold that compares with earlier runs had none
	// (or none with the cell) to compare with.
	WarnNoHistory = "NoHistory"
)

// hasIOCells reports whether the target ran any IO (not metadata) cell.
func hasIOCells(tr *TargetResult) bool {
	for i := range tr.Cells {
		if !tr.Cells[i].Cell.IsMetadata() {
			return true
		}
	}
	return false
}

// WarningInputs is what the caller knows beyond the results.
type WarningInputs struct {
	// NodeMemoryBytes is each client node's memory.
	NodeMemoryBytes    map[string]int64
	SizePerClientBytes int64
	// SteadyState is the spec's rule (spec.steadyState.Rule()).
	SteadyState sbv1.SteadyStateRule
}

// Warnings lists the reasons to doubt a target's results that the results
// themselves (and the nodes they ran on) show.
func Warnings(tr *TargetResult, in WarningInputs) []sbv1.Warning {
	var out []sbv1.Warning
	add := func(reason, cell, format string, args ...any) {
		out = append(out, sbv1.Warning{Reason: reason, Target: tr.Target, Cell: cell, Message: truncateMessage(fmt.Sprintf(format, args...))})
	}

	clientsOn := map[string]int64{}
	for _, c := range tr.ClientSummaries {
		clientsOn[c.Node]++
	}
	nodes := make([]string, 0, len(clientsOn))
	for n := range clientsOn {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, node := range nodes {
		if !hasIOCells(tr) {
			break // metadata cells make their own names: no data set
		}
		mem := in.NodeMemoryBytes[node]
		data := clientsOn[node] * in.SizePerClientBytes
		if mem > 0 && data < 2*mem {
			add(WarnDatasetFitsInMemory, "", "the %d client(s) on node %s work on %s in all, less than twice its %s of memory: reads without direct IO measure the page cache, and storage-side caches of that size flatter every cell",
				clientsOn[node], node, humanBytes(data), humanBytes(mem))
			break
		}
	}
	for _, b := range tr.Backends {
		if !strings.HasPrefix(b, "io_uring") && !result.IsFileEngine(b) {
			add(WarnBackendFallback, "", "clients used the engine backend %s: io_uring was not available to them, which costs CPU per IO and can lower IOPS on fast devices", b)
		}
	}
	if tr.StartSkewMicroseconds > MaxStartSkewMicroseconds {
		add(WarnStartSkew, "", "clients started a cell up to %.1f ms apart (bound %d ms): they did not fully overlap",
			float64(tr.StartSkewMicroseconds)/1000, MaxStartSkewMicroseconds/1000)
	}
	for _, cell := range tr.Cells {
		rep := cell.Result()
		if rep == nil {
			continue
		}
		if rep.RateMet != nil && !*rep.RateMet {
			add(WarnRateNotMet, cell.Cell.Name, "a client reached less than 98%% of its rate of %d IOPS per job: the storage could not keep up, and the cell measures saturation, not the rate asked for", cell.Cell.RateIOPS)
		}
		if s := straggler(rep); s != "" {
			add(WarnStraggler, cell.Cell.Name, "%s", s)
		}
		if m := cell.Cell.Metadata; m != nil {
			metadataWarnings(cell, tr.Clients, add)
		}
	}
	steadyStateWarnings(tr, in.SteadyState, add)
	return out
}

// minMetadataSpan is the shortest metadata cell whose rate is worth
// reading: bonnie++ prints "+++++" for a test done in under half a second,
// and clients' clocks agree only to within milliseconds.
const minMetadataSpan = 0.5 // seconds

// metadataWarnings: an operation cut short by its window, and one too short
// to be a rate.
func metadataWarnings(cell CellResult, clients int32, add func(reason, cell, format string, args ...any)) {
	m, rep := cell.Cell.Metadata, cell.Result()
	want := int64(m.FilesPerJob) * int64(cell.Cell.NumJobs) * int64(clients) * m.OperationsPerName()
	done := rep.Read.ios()
	if done < want {
		after := ""
		if !m.Last {
			after = ", and the operations after it met names laid out untimed"
		}
		add(WarnMetadataCutShort, cell.Cell.Name, "the clients did %d of %d operations within durationSeconds (%d s): the operation was cut short%s; raise durationSeconds or lower filesPerJob",
			done, want, cell.Cell.DurationSeconds, after)
	}
	if iops := rep.Read.iops(); done > 0 && iops > 0 && float64(done)/iops < minMetadataSpan {
		add(WarnMetadataTooShort, cell.Cell.Name, "the clients' %d operations took %.1f ms in all: too short to be read as a rate (bonnie++ prints +++++ under 500 ms); use timedBy: Duration or more filesPerJob",
			done, float64(done)/iops*1000)
	}
}

// straggler names the first client far slower, or far later, than the
// median client of a cell run.
func straggler(rep *RepetitionResult) string {
	if len(rep.Clients) < 2 {
		return ""
	}
	iops := make([]float64, len(rep.Clients))
	ends := make([]int64, len(rep.Clients))
	for i, c := range rep.Clients {
		iops[i] = c.Read.iops() + c.Write.iops()
		ends[i] = c.EndUnixNano
	}
	medianIOPS := medianFloat(iops)
	medianEnd := medianInt(ends)
	for i, c := range rep.Clients {
		if medianIOPS > 0 && iops[i] < stragglerShare*medianIOPS {
			return fmt.Sprintf("client %d reached %.0f IOPS, less than half the median client's %.0f", c.Client, iops[i], medianIOPS)
		}
		if ends[i]-medianEnd > stragglerLateNanos {
			return fmt.Sprintf("client %d finished %.1f s after the median client", c.Client, float64(ends[i]-medianEnd)/1e9)
		}
	}
	return ""
}

func medianFloat(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[(len(s)-1)/2]
}

func medianInt(v []int64) int64 {
	s := append([]int64(nil), v...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	return s[(len(s)-1)/2]
}

func truncateMessage(s string) string {
	if len(s) <= 512 {
		return s
	}
	return s[:509] + "..."
}

// humanBytes renders a size with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
