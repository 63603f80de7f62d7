// Package benchmetrics exports the results of the latest completed run of
// every StorageBenchmark and StorageBenchmarkSchedule the manager watches
// as Prometheus metrics, so that dashboards and alert rules follow storage
// over time. Values are read at scrape time from the manager's cache (the
// benchmarks' status and their results ConfigMaps' metadata), so a deleted
// benchmark's series disappear with it and nothing is kept in memory but
// decoded results, keyed by ConfigMap version; a results ConfigMap's data
// is read from the API server once per version (the manager's cache keeps
// none of it).
package benchmetrics

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/storagebench/storagebench/api/v1alpha1"
	"github.com/storagebench/storagebench/results"
)

// Label values of kind: where a run's series come from.
const (
	kindBenchmark = "StorageBenchmark"
	kindSchedule  = "StorageBenchmarkSchedule"
)

// scrapeTimeout bounds one scrape's reads from the cache.
const scrapeTimeout = 10 * time.Second

// Collector is a prometheus.Collector over the cluster's benchmarks.
type Collector struct {
	reader client.Reader
	// dataReader reads a results ConfigMap's data (the cache has none).
	dataReader client.Reader
	// now is the clock schedules are read against (tests set it).
	now func() time.Time
	mu  sync.Mutex
	// decoded keeps each results ConfigMap's decoded results by UID, with
	// the resourceVersion they were decoded at.
	decoded map[types.UID]decodedResults
}

type decodedResults struct {
	version string
	result  *results.TargetResult
}

// New reads benchmarks, schedules and results ConfigMaps through reader
// (the manager's cached client), and the data of a results ConfigMap not
// decoded yet at its version through dataReader (the API server).
func New(reader, dataReader client.Reader) *Collector {
	return &Collector{reader: reader, dataReader: dataReader, now: time.Now, decoded: map[types.UID]decodedResults{}}
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect sends the series of the latest completed runs. A read that fails
// is reported to Prometheus as a failed scrape of that metric family rather
// than as missing series.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	var benchmarks sbv1.StorageBenchmarkList
	if err := c.reader.List(ctx, &benchmarks); err != nil {
		ch <- prometheus.NewInvalidMetric(cellIOPS, err)
		return
	}
	var schedules sbv1.StorageBenchmarkScheduleList
	if err := c.reader.List(ctx, &schedules); err != nil {
		ch <- prometheus.NewInvalidMetric(scheduleLastRun, err)
		return
	}
	seen := map[types.UID]bool{}
	for _, run := range latestRuns(benchmarks.Items, schedules.Items) {
		c.collectRun(ctx, ch, run, seen)
	}
	for i := range schedules.Items {
		collectSchedule(ch, &schedules.Items[i], c.now())
	}
	c.forgetExcept(seen)
}

// run is a completed benchmark and the series identity it is exported as.
type run struct {
	bench *sbv1.StorageBenchmark
	// owner is the benchmark's own name, or its schedule's.
	owner string
	kind  string
}

// latestRuns are the completed benchmarks no schedule created, and the
// newest completed run of each schedule.
func latestRuns(benchmarks []sbv1.StorageBenchmark, schedules []sbv1.StorageBenchmarkSchedule) []run {
	schedulesByUID := map[types.UID]*sbv1.StorageBenchmarkSchedule{}
	for i := range schedules {
		schedulesByUID[schedules[i].UID] = &schedules[i]
	}
	var out []run
	newest := map[types.UID]*sbv1.StorageBenchmark{}
	for i := range benchmarks {
		b := &benchmarks[i]
		if !completed(b) {
			continue
		}
		owner := metav1.GetControllerOf(b)
		if owner == nil || owner.Kind != kindSchedule {
			out = append(out, run{bench: b, owner: b.Name, kind: kindBenchmark})
			continue
		}
		if schedulesByUID[owner.UID] == nil {
			continue // its schedule is being deleted, and it with it
		}
		if cur := newest[owner.UID]; cur == nil || b.ScheduledTime().After(cur.ScheduledTime()) {
			newest[owner.UID] = b
		}
	}
	for uid, b := range newest {
		out = append(out, run{bench: b, owner: schedulesByUID[uid].Name, kind: kindSchedule})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].bench.Namespace != out[j].bench.Namespace {
			return out[i].bench.Namespace < out[j].bench.Namespace
		}
		return out[i].owner < out[j].owner
	})
	return out
}

// completed: the run for the benchmark's current generation ended.
func completed(b *sbv1.StorageBenchmark) bool {
	return b.RunCompleted() && b.Status.CompletionTime != nil
}

// targetResults reads (or recalls) a target's full results and marks
// their ConfigMap seen; nil when it is missing or unreadable, an error
// when it cannot be read now. The cache tells the ConfigMap's version; its
// data (which the cache does not hold) is read from the API server once
// per version, outside the lock, so that scrapes do not wait on each other.
func (c *Collector) targetResults(ctx context.Context, ns, name string, seen map[types.UID]bool) (*results.TargetResult, error) {
	if name == "" {
		return nil, nil
	}
	key := types.NamespacedName{Namespace: ns, Name: name}
	cm := &corev1.ConfigMap{}
	if err := c.reader.Get(ctx, key, cm); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	seen[cm.UID] = true
	c.mu.Lock()
	d, ok := c.decoded[cm.UID]
	c.mu.Unlock()
	if ok && d.version == cm.ResourceVersion {
		return d.result, nil
	}
	full := &corev1.ConfigMap{}
	if err := c.dataReader.Get(ctx, key, full); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if full.UID != cm.UID {
		return nil, nil // replaced since the cache saw it: a later scrape reads the new one
	}
	tr, err := results.DecodeStored(full.Data, full.BinaryData)
	if err != nil {
		tr = nil
	}
	c.mu.Lock()
	c.decoded[cm.UID] = decodedResults{version: full.ResourceVersion, result: tr}
	c.mu.Unlock()
	return tr, nil
}

// forgetExcept drops decoded results no exported run refers to any more.
func (c *Collector) forgetExcept(seen map[types.UID]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for uid := range c.decoded {
		if !seen[uid] {
			delete(c.decoded, uid)
		}
	}
}
