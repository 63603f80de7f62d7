package controllers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
)

// Labels on everything a benchmark creates. The manager's cache only holds
// objects carrying labelBenchmark, so its memory does not grow with the
// cluster's pods and claims.
const (
	labelBenchmark  = "storagebench.io/benchmark"
	labelTarget     = "storagebench.io/target"
	labelGeneration = "storagebench.io/generation"
	labelClient     = "storagebench.io/client"
	labelComponent  = "app.kubernetes.io/component"
	labelManagedBy  = "app.kubernetes.io/managed-by"
	// benchmarkAnnotation holds the exact benchmark name on client pods
	// (label values are cut at 63 characters).
	benchmarkAnnotation = "storagebench.io/benchmark"
	managedBy           = "storagebench"
)

// Components, the values of labelComponent.
const (
	componentClient  = "client"
	componentVolume  = "volume"
	componentPlan    = "plan"
	componentStart   = "start"
	componentResults = "results"
	componentSearch  = "search"
	componentAccess  = "client-access"
	// componentComparison is the run's whole outcome.
	componentComparison = "comparison"
)

// maxNameLength keeps child names valid as label values (63) and leaves
// room for the suffix Kubernetes adds to Indexed Job pod hostnames.
const (
	maxNameLength    = 63
	maxJobNameLength = 52
)

// childName joins parts into a DNS-1123 name. Names that would be too long
// are cut and end with a hash of the whole, so they stay deterministic and
// distinct: a restarted controller finds the objects it created.
func childName(limit int, parts ...string) string {
	name := strings.Join(parts, "-")
	if len(name) <= limit {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := hex.EncodeToString(sum[:])[:8]
	cut := strings.TrimRight(name[:limit-len(suffix)-1], "-.")
	return cut + "-" + suffix
}

// labelValue fits a name into a label value.
func labelValue(name string) string { return childName(maxNameLength, name) }

func generationLabel(g int64) string { return strconv.FormatInt(g, 10) }

// volumeHash identifies the volume a target asks for: claims of a target
// whose class, size or modes change get new names instead of being reused.
func volumeHash(t *sbv1.Target) string {
	size := ""
	if t.Size != nil {
		size = t.Size.String()
	}
	class := ""
	if t.StorageClassName != nil {
		class = *t.StorageClassName
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%s|%s", class, size, t.AccessMode, t.VolumeMode)))
	return hex.EncodeToString(sum[:])[:6]
}

func claimName(b *sbv1.StorageBenchmark, t *sbv1.Target, client int32) string {
	return claimNameOf(b, t, volumeHash(t), strconv.Itoa(int(client)))
}

// claimNameOf names a claim of a target whose volumeHash is known (it is
// computed once for all of a target's claims).
func claimNameOf(b *sbv1.StorageBenchmark, t *sbv1.Target, hash, suffix string) string {
	return childName(maxNameLength, b.Name, t.Name, hash, suffix)
}

func sharedClaimName(b *sbv1.StorageBenchmark, t *sbv1.Target) string {
	return claimNameOf(b, t, volumeHash(t), "shared")
}

// jobName is the target's Indexed Job (client < 0) or one client's Job.
func jobName(b *sbv1.StorageBenchmark, t *sbv1.Target, client int32) string {
	parts := []string{b.Name, t.Name, "g" + generationLabel(b.Generation)}
	if client >= 0 {
		parts = append(parts, "c"+strconv.Itoa(int(client)))
	}
	return childName(maxJobNameLength, parts...)
}

func planConfigMapName(b *sbv1.StorageBenchmark) string {
	return childName(maxNameLength, b.Name, "plan", "g"+generationLabel(b.Generation))
}

func startConfigMapName(b *sbv1.StorageBenchmark) string {
	return childName(maxNameLength, b.Name, "start")
}

// searchConfigMapName holds a target's search between rounds; a name per
// generation, so that a new generation never reads an old one's steps.
func searchConfigMapName(b *sbv1.StorageBenchmark, t *sbv1.Target) string {
	return childName(maxNameLength, b.Name, t.Name, "search", "g"+generationLabel(b.Generation))
}

func resultsConfigMapName(b *sbv1.StorageBenchmark, t *sbv1.Target) string {
	return childName(maxNameLength, b.Name, t.Name, "results")
}

// comparisonConfigMapName holds the generation's outcome; a name per
// generation, so that a new run never meets the previous run's outcome
// (being deleted) under its own name.
func comparisonConfigMapName(b *sbv1.StorageBenchmark) string {
	return childName(maxNameLength, b.Name, "comparison", "g"+generationLabel(b.Generation))
}

func clientAccessName(b *sbv1.StorageBenchmark) string {
	return childName(maxNameLength, b.Name, "client")
}

// planKey is the target's key in the plan ConfigMap and the start ConfigMap.
func planKey(t *sbv1.Target) string { return t.Name + ".json" }

// benchmarkLabels mark an object as the benchmark's; component says which
// kind of child it is.
func benchmarkLabels(b *sbv1.StorageBenchmark, component string) map[string]string {
	return map[string]string{
		labelBenchmark: labelValue(b.Name),
		labelComponent: component,
		labelManagedBy: managedBy,
	}
}

// runLabels add the target and generation.
func runLabels(b *sbv1.StorageBenchmark, t *sbv1.Target, component string) map[string]string {
	l := benchmarkLabels(b, component)
	l[labelTarget] = t.Name
	l[labelGeneration] = generationLabel(b.Generation)
	return l
}
