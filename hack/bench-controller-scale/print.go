package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"
)

func printHeader() {
	fmt.Printf("controller scale: %d CPUs, GOMAXPROCS %d, %s, envtest (etcd + kube-apiserver), leaping clock; started %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), time.Now().Format(time.RFC3339))
	fmt.Printf("%-12s %8s %8s %7s %7s %7s %8s %6s %8s %6s %6s %9s %5s %9s %9s %9s %9s %8s %8s  %s\n",
		"shape", "wall", "ctrl", "jobsMs", "startMs", "doneMs", "ctrlCPU", "recon", "queue", "api", "spatch", "spatchKB", "409s", "objectKB", "statusKB", "managedKB", "cmKB", "allocMB", "heapMB", "top requests")
}

func printRow(r *row) {
	ctrl, jobs, start, done := "-", "-", "-", "-"
	if r.ctrlTime > 0 {
		ctrl = secs(r.ctrlTime)
	}
	if r.turns != nil {
		jobs, start, done = millis(median(r.turns.jobs)), millis(median(r.turns.start)), millis(median(r.turns.completed))
	}
	fmt.Printf("%-12s %8s %8s %7s %7s %7s %8s %6.0f %8s %6d %6d %9.1f %5d %9.1f %9.1f %9.1f %9.1f %8.1f %8.1f  %s\n",
		r.what, secs(r.wall), ctrl, jobs, start, done, secs(r.cpu), r.reconciles, secs(r.queueWait), r.api.total, r.api.statusPatches, kb(r.api.statusPatchBytes),
		r.api.statusConflicts, kb(int64(r.objectBytes)), kb(int64(r.statusBytes)), kb(int64(r.managedBytes)), kb(int64(r.configMapBytes)),
		float64(r.allocatedBytes)/(1<<20), float64(r.peakHeapBytes)/(1<<20), r.api.top(6))
	_ = os.Stdout.Sync()
}

func secs(d time.Duration) string   { return fmt.Sprintf("%.1fs", d.Seconds()) }
func millis(d time.Duration) string { return fmt.Sprint(d.Milliseconds()) }
func kb(n int64) float64            { return float64(n) / 1024 }
func itoa(n int) string             { return fmt.Sprint(n) }

// median of the durations (the upper one of the middle two); 0 for none.
func median(list []time.Duration) time.Duration {
	if len(list) == 0 {
		return 0
	}
	sorted := slices.Clone(list)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}
