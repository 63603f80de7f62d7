package engine

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/storagebench/storagebench/engine/result"
)

// writeNormal prints a summary in the spirit of fio's normal output: per
// entry IOPS and bandwidth, latency in a readable unit, clat percentiles,
// CPU, queue depths, and the backend that ran.
func writeNormal(w io.Writer, doc *result.Document) error {
	var b strings.Builder
	if doc.Storagebench.Partial {
		fmt.Fprintf(&b, "PARTIAL RESULT: %s\n", doc.Storagebench.Error)
	}
	for i, j := range doc.Jobs {
		var ext result.JobExtension
		if i < len(doc.Storagebench.Jobs) {
			ext = doc.Storagebench.Jobs[i]
		}
		fmt.Fprintf(&b, "%s: (groupid=%d): err=%2d: backend=%s\n", j.JobName, j.GroupID, j.Error, ext.Backend)
		if ext.BackendReason != "" {
			fmt.Fprintf(&b, "  backend: %s\n", ext.BackendReason)
		}
		for _, d := range []struct {
			name string
			dir  result.Direction
		}{{"read", j.Read}, {"write", j.Write}} {
			if d.dir.TotalIOs == 0 {
				continue
			}
			writeDirection(&b, d.name, d.dir)
		}
		if j.Sync.TotalIOs > 0 {
			writeSync(&b, j.Sync)
		}
		if ext.RateTargetIOPS > 0 && ext.RateMet != nil {
			fmt.Fprintf(&b, "  rate: target=%d IOPS, met=%v\n", ext.RateTargetIOPS, *ext.RateMet)
		}
		fmt.Fprintf(&b, "  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%d, majf=%d, minf=%d\n", j.UsrCPU, j.SysCPU, j.Ctx, j.MajF, j.MinF)
		fmt.Fprintf(&b, "  IO depths    : %s\n", depthLine(j.IODepth))
		if lt := j.LatencyTarget; lt != nil {
			fmt.Fprintf(&b, "     latency   : target=%d, window=%d, percentile=%.2f%%, depth=%d\n", lt.TargetNs, lt.WindowUs, lt.Percentile, lt.Depth)
		}
		if ss := j.SteadyState; ss != nil {
			writeSteadyState(&b, ss)
		}
		fmt.Fprintf(&b, "  run          : %d msec\n", max(j.Read.Runtime, j.Write.Runtime))
	}
	env := doc.Storagebench.Environment
	fmt.Fprintf(&b, "\nenvironment: kernel %s, %d CPUs, %s memory, fs %s, O_DIRECT alignment %d; %s\n",
		env.Kernel, env.CPUs, bytesIEC(float64(env.MemoryBytes)), env.FilesystemType, env.DirectIOAlignmentBytes, doc.Storagebench.EngineVersion)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeDirection(b *strings.Builder, name string, d result.Direction) {
	fmt.Fprintf(b, "  %s: IOPS=%s, BW=%s/s (%s/s)(%s/%dmsec)\n", name, countSI(d.IOPS), bytesIEC(float64(d.BwBytes)),
		bytesSI(float64(d.BwBytes)), bytesIEC(float64(d.IOBytes)), d.Runtime)
	for _, l := range []struct {
		name string
		s    result.LatencyStats
	}{{"clat", d.ClatNs}, {" lat", d.LatNs}} {
		unit, div := latUnit(l.s.Max)
		fmt.Fprintf(b, "    %s (%s): min=%s, max=%s, avg=%s, stdev=%s\n", l.name, unit,
			num(float64(l.s.Min)/div), num(float64(l.s.Max)/div), num(l.s.Mean/div), num(l.s.Stddev/div))
	}
	writePercentiles(b, "    clat percentiles", d.ClatNs)
	if d.IOPSSamples > 0 {
		fmt.Fprintf(b, "   bw (  KiB/s): min=%d, max=%d, avg=%.2f, stdev=%.2f, samples=%d\n", d.BwMin, d.BwMax, d.BwMean, d.BwDev, d.BwSamples)
		fmt.Fprintf(b, "   iops        : min=%d, max=%d, avg=%.2f, stdev=%.2f, samples=%d\n", d.IOPSMin, d.IOPSMax, d.IOPSMean, d.IOPSStddev, d.IOPSSamples)
	}
}

// writeSync is fio's section on a job's fsyncs and fdatasyncs: their
// latency and its percentiles.
func writeSync(b *strings.Builder, s result.SyncStats) {
	b.WriteString("  fsync/fdatasync/sync_file_range:\n")
	unit, div := latUnit(s.LatNs.Max)
	fmt.Fprintf(b, "    sync (%s): min=%s, max=%s, avg=%s, stdev=%s\n", unit,
		num(float64(s.LatNs.Min)/div), num(float64(s.LatNs.Max)/div), num(s.LatNs.Mean/div), num(s.LatNs.Stddev/div))
	writePercentiles(b, "    sync percentiles", s.LatNs)
}

// writePercentiles prints a latency's percentiles four to a line, in the
// unit fio picks for its maximum.
func writePercentiles(b *strings.Builder, title string, l result.LatencyStats) {
	if len(l.Percentile) == 0 {
		return
	}
	unit, div := latUnit(l.Max)
	fmt.Fprintf(b, "%s (%s):\n", title, unit)
	keys := make([]string, 0, len(l.Percentile))
	for k := range l.Percentile {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return parseF(keys[i]) < parseF(keys[j]) })
	for i := 0; i < len(keys); i += 4 {
		var parts []string
		for _, k := range keys[i:min(i+4, len(keys))] {
			parts = append(parts, fmt.Sprintf("%6.2fth=[%6s]", parseF(k), num(float64(l.Percentile[k])/div)))
		}
		fmt.Fprintf(b, "     | %s\n", strings.Join(parts, ", "))
	}
}

func parseF(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

// latUnit picks fio's display unit for a latency range by its maximum.
func latUnit(maxNs int64) (string, float64) {
	switch {
	case maxNs >= 10_000_000:
		return "msec", 1e6
	case maxNs >= 10_000:
		return "usec", 1e3
	}
	return "nsec", 1
}

func num(v float64) string {
	if v == math.Trunc(v) || v >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func countSI(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func bytesIEC(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + units[i]
}

func bytesSI(v float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	i := 0
	for v >= 1000 && i < len(units)-1 {
		v /= 1000
		i++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + units[i]
}

func depthLine(m map[string]float64) string {
	var parts []string
	for _, k := range []string{"1", "2", "4", "8", "16", "32", ">=64"} {
		parts = append(parts, fmt.Sprintf("%s=%.1f%%", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// writeSteadyState prints fio's steadystate line: whether it was attained,
// the window's mean bandwidth and IOPS, and the last judgement.
func writeSteadyState(b *strings.Builder, ss *result.SteadyState) {
	crit, _, _ := strings.Cut(ss.SS, ":")
	metric, slope := strings.CutSuffix(crit, "_slope")
	judged := " mean dev"
	if slope {
		judged = " slope"
	}
	value, pct := strings.CutSuffix(ss.Criterion, "%")
	unit := ""
	if pct {
		unit = "%"
	}
	attained := "no"
	if ss.Attained == 1 {
		attained = "yes"
	}
	fmt.Fprintf(b, "  steadystate  : attained=%s, bw=%s/s (%s/s), iops=%s, %s%s=%.3f%s\n", attained, bytesIEC(float64(ss.Data.BwMean)),
		bytesSI(float64(ss.Data.BwMean)), countSI(float64(ss.Data.IOPSMean)), metric, judged, parseF(value), unit)
}
