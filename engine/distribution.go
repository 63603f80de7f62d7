package engine

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"
)

// Distribution is fio's random_distribution: how a random job's offsets
// are spread over its region. The zero value is uniform.
type Distribution struct {
	// Kind is "" or "random" (uniform), "zipf", "pareto", "normal",
	// "zoned" or "zoned_abs".
	Kind string
	// Param is zipf's theta, pareto's power or normal's deviation (a
	// percentage of the region).
	Param float64
	// Center, in [0, 1], puts the most probable block there and the
	// next most probable after it, a contiguous hot band (fio's second
	// value; fio still spreads them with its hash); negative: none, the
	// hot blocks are spread over the region (fio with a hash, the engine
	// with a permutation: which blocks are hot differs from fio's, how hot
	// does not).
	Center float64
	// Zones are zoned's (percent of the region) or zoned_abs's (bytes)
	// ranges, each with its percentage of the accesses, from the start.
	Zones []DistributionZone
}

// DistributionZone is one range of a zoned distribution.
type DistributionZone struct {
	AccessPercent float64
	RangePercent  float64 // zoned
	RangeBytes    int64   // zoned_abs
}

func (d Distribution) uniform() bool { return d.Kind == "" || d.Kind == "random" }

// parseDistribution reads random_distribution's value as fio writes it:
// random, zipf:THETA[:CENTER], pareto:POWER[:CENTER],
// zoned:ACCESS/RANGE%:..., zoned_abs:ACCESS/SIZE:....
func parseDistribution(s string) (Distribution, error) {
	if err := rejectList(s); err != nil {
		return Distribution{}, err
	}
	kind, rest, _ := strings.Cut(s, ":")
	d := Distribution{Kind: kind, Center: -1}
	switch kind {
	case "random":
		if rest != "" {
			return d, fmt.Errorf("random takes no value (%s)", excerpt(rest))
		}
		return d, nil
	case "zipf", "pareto":
		param, center, hasCenter := strings.Cut(rest, ":")
		v, err := strconv.ParseFloat(param, 64)
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			return d, fmt.Errorf("%s needs a number, as in %s:1.2 (got %s)", kind, kind, excerpt(param))
		case kind == "zipf" && (v <= 0 || v == 1):
			return d, fmt.Errorf("zipf's theta %s must be above 0 and not 1", excerpt(param))
		case kind == "pareto" && (v <= 0 || v >= 1):
			return d, fmt.Errorf("pareto's power %s must be between 0 and 1", excerpt(param))
		}
		d.Param = v
		return d, d.parseCenter(center, hasCenter)
	case "zoned", "zoned_abs":
		return parseZones(d, rest)
	case "normal":
		return parseNormal(d, rest)
	}
	return d, fmt.Errorf("unknown distribution %s (random, zipf, pareto, normal, zoned, zoned_abs)", excerpt(kind))
}

func parseZones(d Distribution, s string) (Distribution, error) {
	var access, ranges float64
	for _, z := range strings.Split(s, ":") {
		a, r, ok := strings.Cut(z, "/")
		pct, err := strconv.ParseFloat(a, 64)
		if !ok || err != nil || !(pct >= 0 && pct <= 100) {
			return d, fmt.Errorf("%s zone %s: want ACCESS%%/RANGE, such as 60/10", d.Kind, excerpt(z))
		}
		zone := DistributionZone{AccessPercent: pct}
		if d.Kind == "zoned" {
			rp, err := strconv.ParseFloat(r, 64)
			if err != nil || !(rp > 0 && rp <= 100) {
				return d, fmt.Errorf("zoned zone %s: the range %s is not a percentage above 0", excerpt(z), excerpt(r))
			}
			zone.RangePercent = rp
			ranges += rp
		} else {
			size, err := sizeKind.value(r)
			if err != nil || size == 0 {
				return d, fmt.Errorf("zoned_abs zone %s: the range is not a size above 0", excerpt(z))
			}
			zone.RangeBytes = size
		}
		access += pct
		d.Zones = append(d.Zones, zone)
	}
	if math.Abs(access-100) > 1e-9 {
		return d, fmt.Errorf("%s: the accesses add up to %g%%, want 100%%", d.Kind, access)
	}
	if d.Kind == "zoned" && math.Abs(ranges-100) > 1e-9 {
		return d, fmt.Errorf("zoned: the ranges add up to %g%%, want 100%%", ranges)
	}
	return d, nil
}

// blockDraw draws block numbers in [0, n) by a distribution: one per file
// region of a worker, since n is the region's.
type blockDraw struct {
	kind string
	n    uint64
	// zipf (Gray et al.'s method, as fio's), pareto.
	theta, zetan, zeta2, alpha, eta float64
	paretoPow                       float64
	// normal: the width of fio's extra deviation, in blocks.
	normalDev uint64
	// ranks become blocks by rank*mult+off mod n (a permutation: mult is
	// prime to n), or, with a center, by rank+off.
	mult, off uint64
	scatter   bool
	// zoned: cumulative access fractions and each zone's first block.
	upTo  []float64
	first []uint64
	last  []uint64 // one past each zone's last block
}

// zetaTerms bounds the terms of zipf's normalization, as fio bounds them
// (it sums at most 10 million and leaves the rest out), so that a region of
// more blocks is as hot as in fio. The sums are cached: every worker and
// file of one size shares one.
const zetaTerms = 10_000_000

var zetaCache sync.Map // zetaKey -> float64

type zetaKey struct {
	n     uint64
	theta float64
}

func zeta(n uint64, theta float64) float64 {
	key := zetaKey{min(n, zetaTerms), theta}
	if v, ok := zetaCache.Load(key); ok {
		return v.(float64)
	}
	var sum float64
	for i := uint64(1); i <= key.n; i++ {
		sum += math.Pow(float64(i), -theta)
	}
	zetaCache.Store(key, sum)
	return sum
}

func newBlockDraw(d Distribution, n uint64, alignBytes, regionBytes int64, seed uint64) (*blockDraw, error) {
	if d.uniform() || n == 0 {
		return nil, nil
	}
	b := &blockDraw{kind: d.Kind, n: n, scatter: d.Center < 0}
	r := newRNG(seed)
	switch {
	case d.Center >= 0:
		b.off = uint64(d.Center * float64(n-1))
	default:
		b.off = r.below(n)
		b.mult = permutationMultiplier(n, r.next())
	}
	switch d.Kind {
	case "zipf":
		b.theta = d.Param
		b.zetan = zeta(n, b.theta)
		b.zeta2 = 1 + math.Pow(0.5, b.theta)
		b.alpha = 1 / (1 - b.theta)
		b.eta = (1 - math.Pow(2/float64(n), 1-b.theta)) / (1 - b.zeta2/b.zetan)
	case "pareto":
		b.paretoPow = math.Log(d.Param) / math.Log(1-d.Param)
	case "normal":
		b.normalDev = min(uint64(math.Ceil(float64(n)*d.Param/100)), n/2)
		if d.Center >= 0 {
			// fio's rand_off: the bell's middle, block n/2, moves to
			// the center.
			b.off = uint64(int64(n)+int64(float64(n)*(d.Center-0.5))) % n
		}
	case "zoned", "zoned_abs":
		b.scatter, b.off = false, 0
		var cumAccess, cumRange float64
		var start uint64
		var zoneBytes int64
		for _, z := range d.Zones {
			cumAccess += z.AccessPercent / 100
			var end uint64
			if d.Kind == "zoned" {
				cumRange += z.RangePercent / 100
				end = min(n, uint64(math.Round(cumRange*float64(n))))
			} else {
				if zoneBytes += z.RangeBytes; zoneBytes > regionBytes || zoneBytes < 0 {
					return nil, fmt.Errorf("zoned_abs: the zones add up to more than the region's %d bytes", regionBytes)
				}
				end = min(n, uint64(zoneBytes/max(alignBytes, 1)))
			}
			// A zone rounded to nothing still gets one block, inside
			// the region.
			first := min(start, n-1)
			b.upTo = append(b.upTo, cumAccess)
			b.first = append(b.first, first)
			b.last = append(b.last, max(min(end, n), first+1))
			start = end
		}
	}
	return b, nil
}

// permutationMultiplier is an odd multiplier prime to n near a random one,
// so that rank*mult mod n visits every block once.
func permutationMultiplier(n, random uint64) uint64 {
	m := random%n | 1
	for gcd(m, n) != 1 {
		m += 2
	}
	return m
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// unit is a uniform float in [0, 1).
func unit(r *rng) float64 { return float64(r.next()>>11) / (1 << 53) }

// draw returns the next block.
func (b *blockDraw) draw(r *rng) uint64 {
	var rank uint64
	switch b.kind {
	case "zipf":
		u := unit(r)
		switch uz := u * b.zetan; {
		case uz < 1:
			rank = 0
		case uz < b.zeta2:
			rank = 1
		default:
			rank = uint64(float64(b.n) * math.Pow(b.eta*u-b.eta+1, b.alpha))
		}
	case "pareto":
		// fio's formula, (n-1) * u^power, truncated, makes n-2 the most
		// probable value (n-1 needs u = 1); mirrored around it, rank 0
		// is, so that a center means the hottest block.
		if b.n < 2 {
			return b.place(0)
		}
		v := uint64(float64(b.n-1) * math.Pow(unit(r), b.paretoPow))
		rank = b.n - 2 - min(v, b.n-2)
	case "normal":
		rank = b.normalRank(r)
	default: // zoned
		u := unit(r)
		z := len(b.upTo) - 1
		for i, up := range b.upTo {
			if u < up {
				z = i
				break
			}
		}
		return b.first[z] + r.below(b.last[z]-b.first[z])
	}
	return b.place(min(rank, b.n-1))
}

// place turns a rank into its block: spread by the permutation, or counted
// from the center.
func (b *blockDraw) place(rank uint64) uint64 {
	if b.scatter {
		hi, lo := bits.Mul64(rank, b.mult)
		_, rem := bits.Div64(hi%b.n, lo, b.n)
		return (rem + b.off) % b.n
	}
	return (rank + b.off) % b.n
}

// normalRank is fio's gauss_next before its hash: the mean of 12 uniform
// draws over [0, n] (a bell around n/2 whose deviation is n/12), plus a
// uniform deviation of normalDev blocks around it, halved until it stays in
// the region.
func (b *blockDraw) normalRank(r *rng) uint64 {
	var sum uint64
	for range 12 {
		sum += r.below(b.n + 1)
	}
	// The mean can be n itself; fio's modulo then makes it block 0, a
	// fold that matters only on tiny regions. Kept in the region here, so
	// that halving the deviation always ends.
	v := min(int64((sum+11)/12), int64(b.n)-1)
	if b.normalDev > 0 {
		dev := int64(float64(b.normalDev)*unit(r)) - int64(b.normalDev/2)
		for dev != 0 && (v+dev < 0 || v+dev >= int64(b.n)) {
			dev /= 2
		}
		v += dev
	}
	return uint64(v)
}

// parseNormal reads normal[:DEV[:CENTER]]: DEV is fio's deviation, a
// percentage of the region from 0 up to 100.
func parseNormal(d Distribution, rest string) (Distribution, error) {
	d.Kind = "normal"
	if rest == "" {
		return d, nil
	}
	dev, center, hasCenter := strings.Cut(rest, ":")
	v, err := strconv.ParseFloat(dev, 64)
	if err != nil || !(v >= 0 && v < 100) {
		return d, fmt.Errorf("normal's deviation %s must be a percentage from 0 up to 100", excerpt(dev))
	}
	d.Param = v
	return d, d.parseCenter(center, hasCenter)
}

// parseCenter reads a distribution's CENTER, when it has one.
func (d *Distribution) parseCenter(center string, hasCenter bool) error {
	if !hasCenter {
		return nil
	}
	c, err := strconv.ParseFloat(center, 64)
	if err != nil || !(c >= 0 && c <= 1) {
		return fmt.Errorf("the center %s must be a number from 0 to 1", excerpt(center))
	}
	d.Center = c
	return nil
}
