// Command bench-cache-memory measures what results ConfigMaps left in a
// cluster cost the manager's cache: it stores runs x targets results
// ConfigMaps of a given size (random, so incompressible, as the gzipped
// results of a large run are) in envtest, then fills a cache with the
// manager's options ("metadata": results data dropped, as the manager
// runs) or with their data kept ("whole", as before), one after the other,
// and prints the heap each leaves after its initial list and its peak
// during it. A benchmark to compare with, not a test.
//
//	KUBEBUILDER_ASSETS=$(hack/k8s-binaries.sh envtest) go run ./hack/bench-cache-memory whole metadata whole metadata
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/storagebench/storagebench/controllers"
	"github.com/storagebench/storagebench/internal/testenv"
)

func main() {
	runs := flag.Int("runs", 10, "benchmarks whose results are left in the cluster")
	targets := flag.Int("targets", 16, "results ConfigMaps per benchmark (one per target)")
	sizeKiB := flag.Int("size-kib", 680, "bytes of data per results ConfigMap, in KiB (680: a 16x64x64 run's)")
	flag.Parse()
	if err := run(*runs, *targets, *sizeKiB<<10, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "bench-cache-memory:", err)
		os.Exit(1)
	}
}

func run(runs, targets, size int, variants []string) error {
	env, err := testenv.Start()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}); err != nil {
		return err
	}
	for r := range runs {
		for t := range targets {
			data := make([]byte, size)
			_, _ = rand.Read(data)
			cm := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("run%d-t%d-results", r, t), Labels: map[string]string{
					"storagebench.io/benchmark": fmt.Sprintf("run%d", r), "app.kubernetes.io/component": "results"}},
				BinaryData: map[string][]byte{"result.json.gz": data},
			}
			if err := env.Client.Create(ctx, cm); err != nil {
				return err
			}
		}
	}
	fmt.Printf("%d results ConfigMaps of %d KiB (%d MiB)\n", runs*targets, size>>10, runs*targets*size>>20)
	for _, variant := range variants {
		opts := controllers.CacheOptions(cache.Options{Scheme: env.Scheme})
		switch variant {
		case "metadata":
		case "whole":
			for obj, by := range opts.ByObject {
				if _, ok := obj.(*corev1.ConfigMap); ok {
					by.Transform = nil
					opts.ByObject[obj] = by
				}
			}
		default:
			return fmt.Errorf("variant %q: want whole or metadata", variant)
		}
		if err := measure(ctx, env, variant, opts); err != nil {
			return err
		}
	}
	return nil
}

// measure fills a cache of ConfigMaps and prints its heap after the
// initial list (after a collection) and its peak during it.
func measure(ctx context.Context, env *testenv.Env, variant string, opts cache.Options) error {
	base := heapAfterGC()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopSampling := sync.OnceFunc(func() { close(done) })
	defer stopSampling()
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
		}
	}()
	c, err := cache.New(env.Config, opts)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	defer func() {
		// The next measurement's baseline must not hold this cache.
		cancel()
		<-stopped
	}()
	go func() {
		_ = c.Start(cctx)
		close(stopped)
	}()
	start := time.Now()
	if _, err := c.GetInformer(cctx, &corev1.ConfigMap{}); err != nil {
		return err
	}
	c.WaitForCacheSync(cctx)
	var list corev1.ConfigMapList
	if err := c.List(cctx, &list); err != nil {
		return err
	}
	synced := time.Since(start)
	stopSampling()
	after := heapAfterGC()
	fmt.Printf("%-9s %d ConfigMaps in the cache after %v: heap +%.1f MiB, peak during the list +%.1f MiB\n",
		variant, len(list.Items), synced.Round(time.Millisecond), mib(after, base), mib(peak.Load(), base))
	return nil
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func mib(v, base uint64) float64 {
	if v < base {
		return 0
	}
	return float64(v-base) / (1 << 20)
}
