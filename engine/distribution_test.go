package engine

import (
	"math"
	"strings"
	"testing"
)

func TestParseDistributionReadsFiosForms(t *testing.T) {
	for in, want := range map[string]Distribution{
		"random":                         {Kind: "random", Center: -1},
		"zipf:1.2":                       {Kind: "zipf", Param: 1.2, Center: -1},
		"zipf:0.8:0.25":                  {Kind: "zipf", Param: 0.8, Center: 0.25},
		"pareto:0.9":                     {Kind: "pareto", Param: 0.9, Center: -1},
		"normal":                         {Kind: "normal", Center: -1},
		"normal:5:0.2":                   {Kind: "normal", Param: 5, Center: 0.2},
		"zoned:60/10:30/20:8/30:2/40":    {Kind: "zoned", Center: -1, Zones: []DistributionZone{{60, 10, 0}, {30, 20, 0}, {8, 30, 0}, {2, 40, 0}}},
		"zoned_abs:60/20m:30/100m:10/1g": {Kind: "zoned_abs", Center: -1, Zones: []DistributionZone{{60, 0, 20 << 20}, {30, 0, 100 << 20}, {10, 0, 1 << 30}}},
	} {
		got, err := parseDistribution(in)
		if err != nil || got.Kind != want.Kind || got.Param != want.Param || got.Center != want.Center || len(got.Zones) != len(want.Zones) {
			t.Errorf("%s: %+v, %v; want %+v", in, got, err, want)
			continue
		}
		for i := range want.Zones {
			if got.Zones[i] != want.Zones[i] {
				t.Errorf("%s: zone %d is %+v, want %+v", in, i, got.Zones[i], want.Zones[i])
			}
		}
	}
	for in, want := range map[string]string{
		"zipf":                "zipf needs a number",
		"zipf:1":              "must be above 0 and not 1",
		"pareto:1.5":          "between 0 and 1",
		"zipf:1.2:2":          "center",
		"normal:100":          "must be a percentage from 0 up to 100",
		"normal:5:2":          "center",
		"gauss:10":            "unknown distribution",
		"zoned:60/10:30/20":   "the accesses add up to 90%",
		"zoned:60/10:40/20":   "the ranges add up to 30%",
		"zoned:60-10":         "want ACCESS%/RANGE",
		"zoned_abs:100/0":     "not a size above 0",
		"lognormal":           "unknown distribution",
		"zipf:1.2,pareto:0.5": "per-direction values",
	} {
		if _, err := parseDistribution(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", in, err, want)
		}
	}
}

// counts draws n blocks draws times.
func counts(t *testing.T, d Distribution, n uint64, draws int) []int {
	t.Helper()
	b, err := newBlockDraw(d, n, 4096, int64(n)*4096, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := newRNG(11)
	hits := make([]int, n)
	for range draws {
		k := b.draw(&r)
		if k >= n {
			t.Fatalf("block %d outside 0..%d", k, n-1)
		}
		hits[k]++
	}
	return hits
}

// Gray et al.'s zipf method, which fio uses, gives ranks 0 and 1 exactly
// the probabilities 1/zeta(n) and 2^-theta/zeta(n); with a center the most
// probable block is there.
func TestZipfGivesTheFirstRanksTheirProbabilities(t *testing.T) {
	const n, draws = 100_000, 2_000_000
	for _, theta := range []float64{0.8, 1.2} {
		hits := counts(t, Distribution{Kind: "zipf", Param: theta, Center: 0}, n, draws)
		var zeta float64
		for i := 1; i <= n; i++ {
			zeta += math.Pow(float64(i), -theta)
		}
		for rank, want := range []float64{1 / zeta, math.Pow(2, -theta) / zeta} {
			got := float64(hits[rank]) / draws
			if math.Abs(got-want) > 0.02*want+0.001 {
				t.Errorf("zipf:%g: rank %d drawn %.4f of the time, want %.4f", theta, rank, got, want)
			}
		}
	}
}

// pareto's value is (n-1) * u^(ln h / ln(1-h)), u uniform, truncated, and
// below k with probability (k/(n-1))^(ln(1-h)/ln h); the engine mirrors it
// (rank n-2-value) so that the most probable block comes first: below k
// is then from block n-1-k on.
func TestParetoFollowsItsPowerLaw(t *testing.T) {
	const n, draws, h = 10_000, 1_000_000, 0.9
	hits := counts(t, Distribution{Kind: "pareto", Param: h, Center: 0}, n, draws)
	k := 9_000
	beyond := 0
	for _, c := range hits[n-1-k:] {
		beyond += c
	}
	want := math.Pow(float64(k)/float64(n-1), math.Log(1-h)/math.Log(h))
	if got := float64(beyond) / draws; math.Abs(got-want) > 0.01 {
		t.Errorf("pareto:%g: %.4f of the draws in the last %d blocks, want %.4f", h, got, k+1, want)
	}
}

// With a center, the most probable block is the center's.
func TestACenterIsTheHottestBlock(t *testing.T) {
	const n = 1000
	for _, d := range []Distribution{{Kind: "zipf", Param: 1.2, Center: 0.25}, {Kind: "pareto", Param: 0.9, Center: 0.25}} {
		hits := counts(t, d, n, 200_000)
		hottest := 0
		for i, c := range hits {
			if c > hits[hottest] {
				hottest = i
			}
		}
		if want := int(d.Center * float64(n-1)); hottest != want {
			t.Errorf("%s:%g:0.25: the hottest block is %d, want %d", d.Kind, d.Param, hottest, want)
		}
	}
}

func TestZonedAbsFitsTheRegionInBytes(t *testing.T) {
	d, err := parseDistribution("zoned_abs:50/512m:50/512m")
	if err != nil {
		t.Fatal(err)
	}
	// A 1 GiB region with 64k blocks at most has fewer 4k start positions
	// than 1 GiB / 4k: the zones still fit.
	if _, err := newBlockDraw(d, (1<<30-65536)/4096+1, 4096, 1<<30, 1); err != nil {
		t.Errorf("zones of exactly the region refused: %v", err)
	}
	if _, err := newBlockDraw(d, (1<<29)/4096, 4096, 1<<29, 1); err == nil || !strings.Contains(err.Error(), "more than the region") {
		t.Errorf("zones beyond the region: error %v", err)
	}
}

func TestZonedSendsEachZoneItsShare(t *testing.T) {
	const n, draws = 1000, 1_000_000
	hits := counts(t, Distribution{Kind: "zoned", Zones: []DistributionZone{{60, 10, 0}, {30, 20, 0}, {8, 30, 0}, {2, 40, 0}}}, n, draws)
	zone := func(from, to int) float64 {
		s := 0
		for _, h := range hits[from:to] {
			s += h
		}
		return float64(s) / draws
	}
	for _, z := range []struct {
		from, to int
		want     float64
	}{{0, 100, 0.60}, {100, 300, 0.30}, {300, 600, 0.08}, {600, 1000, 0.02}} {
		if got := zone(z.from, z.to); math.Abs(got-z.want) > 0.005 {
			t.Errorf("blocks %d..%d got %.4f of the accesses, want %.2f", z.from, z.to, got, z.want)
		}
	}
}

// Without a center the hot blocks are spread by a permutation: every rank
// lands on a block of its own.
func TestTheScatterIsAPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 12, 1000, 4096, 999_983} {
		b, err := newBlockDraw(Distribution{Kind: "zipf", Param: 0.8, Center: -1}, n, 4096, int64(n)*4096, 3)
		if err != nil {
			t.Fatal(err)
		}
		seen := make(map[uint64]bool, n)
		for rank := range min(n, 5000) {
			k := b.place(rank)
			if k >= n || seen[k] {
				t.Fatalf("n=%d: rank %d lands on block %d, outside or taken", n, rank, k)
			}
			seen[k] = true
		}
	}
}

// normal is fio's: the mean of 12 uniform draws over the region, a bell
// whose deviation is a twelfth of the region, widened by a uniform spread
// of DEV percent of it; with a center the bell's middle is there (the
// tails wrap around the region's ends, as fio's modulo wraps them).
func TestNormalIsFiosBell(t *testing.T) {
	const n = 1200
	for _, c := range []struct {
		d      Distribution
		mean   float64
		stddev float64
	}{
		// Irwin-Hall: 12 draws over [0, n] average to n/2 with deviation n/12.
		{Distribution{Kind: "normal", Center: 0.5}, n / 2, n / 12.0},
		// plus a uniform spread of 50 % of n: deviation 600/sqrt(12).
		{Distribution{Kind: "normal", Param: 50, Center: 0.5}, n / 2, math.Sqrt(n*n/144.0 + 600*600/12.0)},
		{Distribution{Kind: "normal", Center: 0.4}, 0.4 * n, n / 12.0},
	} {
		hits := counts(t, c.d, n, 400_000)
		var sum, sumSq, total float64
		for i, h := range hits {
			x := float64(i)
			sum, sumSq, total = sum+x*float64(h), sumSq+x*x*float64(h), total+float64(h)
		}
		mean := sum / total
		sd := math.Sqrt(sumSq/total - mean*mean)
		if math.Abs(mean-c.mean) > 0.01*n || math.Abs(sd/c.stddev-1) > 0.03 {
			t.Errorf("normal:%g:%g: mean block %.1f, deviation %.1f; want %.1f and %.1f", c.d.Param, c.d.Center, mean, sd, c.mean, c.stddev)
		}
	}
}

// On a region of two blocks the bell's mean can be the region's size
// itself: the draw must stay in the region and end (fio's loop would spin
// there forever).
func TestNormalOnATinyRegionStaysInIt(t *testing.T) {
	b, err := newBlockDraw(Distribution{Kind: "normal", Param: 10, Center: -1}, 2, 4096, 8192, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := newRNG(1)
	for range 10_000 {
		if blk := b.draw(&r); blk >= 2 {
			t.Fatalf("block %d of a region of 2", blk)
		}
	}
}
