// Package hist is a log-linear latency histogram in nanoseconds, laid out
// like fio's: values below 64 ns have one bucket each, and every power of two
// above is split into 64 equal sub-buckets. A value is reported as its
// bucket's midpoint, so the relative error is at most 1/128 (0.78 %).
//
// Bucket boundaries are fixed, so merging histograms from several jobs or
// clients is exact: bucket counts add. Exact count, sum, sum of squares, min
// and max are kept beside the buckets, so mean, stddev and the extremes do not
// suffer the bucket error at all.
package hist

import (
	"math"
	"math/bits"
)

const (
	// subBucketBits is log2 of the sub-buckets per power of two (fio's
	// FIO_IO_U_PLAT_BITS).
	subBucketBits = 6
	subBuckets    = 1 << subBucketBits
	// NumBuckets covers every non-negative int64: group g >= 1 holds values
	// with most significant bit g+5, so the last group holds bit 62.
	NumBuckets = (63 - subBucketBits + 1) * subBuckets
)

// Histogram records latencies in nanoseconds. The zero value is ready to use.
// It is not safe for concurrent use: each worker owns its own and they are
// merged afterwards.
type Histogram struct {
	count   int64
	sum     uint64
	sumSq   float64
	min     int64
	max     int64
	buckets [NumBuckets]int64
}

// New returns an empty histogram.
func New() *Histogram { return &Histogram{} }

// bucketIndex maps a value to its bucket, exactly as fio's plat_val_to_idx
// does for the range fio covers and continued to the whole int64 range.
func bucketIndex(v int64) int {
	if v < subBuckets {
		if v < 0 {
			return 0
		}
		return int(v)
	}
	msb := bits.Len64(uint64(v)) - 1
	errorBits := msb - subBucketBits
	return (errorBits+1)<<subBucketBits + int(uint64(v)>>uint(errorBits))&(subBuckets-1)
}

// BucketValue is the value reported for bucket idx: the value itself below
// 64 ns, else the bucket's midpoint.
func BucketValue(idx int) int64 {
	if idx < subBuckets {
		return int64(idx)
	}
	errorBits := idx>>subBucketBits - 1
	base := int64(1) << uint(errorBits+subBucketBits)
	k := int64(idx & (subBuckets - 1))
	width := int64(1) << uint(errorBits)
	return base + k*width + width/2
}

// bucketLow is the smallest value that falls into bucket idx.
func bucketLow(idx int) int64 {
	if idx < subBuckets {
		return int64(idx)
	}
	errorBits := idx>>subBucketBits - 1
	return int64(1)<<uint(errorBits+subBucketBits) + int64(idx&(subBuckets-1))<<uint(errorBits)
}

// Record adds one value in nanoseconds. Negative values (a clock that went
// backwards) count as 0. It does not allocate.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		v = 0
	}
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.count++
	h.sum += uint64(v)
	f := float64(v)
	h.sumSq += f * f
	h.buckets[bucketIndex(v)]++
}

// Reset empties the histogram. Only buckets between min and max can hold
// samples, so only those are cleared: merging many clients' reports resets
// a scratch histogram per client, cell and direction.
func (h *Histogram) Reset() {
	if h.count > 0 {
		clear(h.buckets[bucketIndex(h.min) : bucketIndex(h.max)+1])
	}
	h.count, h.sum, h.sumSq, h.min, h.max = 0, 0, 0, 0, 0
}

// Merge adds o's samples to h. The result equals the histogram of all
// samples of both, bucket for bucket.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.count == 0 {
		return
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.count += o.count
	h.sum += o.sum
	h.sumSq += o.sumSq
	// o's samples all lie in the buckets from its min's to its max's.
	lo, hi := bucketIndex(o.min), bucketIndex(o.max)
	for i, c := range o.buckets[lo : hi+1] {
		h.buckets[lo+i] += c
	}
}

// Count is the number of samples.
func (h *Histogram) Count() int64 { return h.count }

// Sum is the exact sum of all samples in nanoseconds.
func (h *Histogram) Sum() uint64 { return h.sum }

// Min is the exact smallest sample (0 when empty).
func (h *Histogram) Min() int64 { return h.min }

// Max is the exact largest sample (0 when empty).
func (h *Histogram) Max() int64 { return h.max }

// Mean is the exact mean (0 when empty).
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.count)
}

// Stddev is the population standard deviation (fio reports the same).
func (h *Histogram) Stddev() float64 {
	if h.count < 2 {
		return 0
	}
	mean := h.Mean()
	v := h.sumSq/float64(h.count) - mean*mean
	if v <= 0 {
		return 0
	}
	return math.Sqrt(v)
}

// Percentile returns the value below which p percent of the samples fall,
// using fio's rule: the first bucket whose cumulative count reaches p/100 of
// all samples, reported as its midpoint and clamped to the exact min and max.
// p outside (0, 100] is clamped; an empty histogram gives 0.
func (h *Histogram) Percentile(p float64) int64 {
	if h.count == 0 {
		return 0
	}
	if !(p > 0) { // also catches NaN
		return h.min
	}
	if p >= 100 {
		return h.max
	}
	target := p / 100 * float64(h.count)
	var cum int64
	for i := bucketIndex(h.min); i < NumBuckets; i++ {
		cum += h.buckets[i]
		if float64(cum) >= target {
			v := BucketValue(i)
			if v < h.min {
				v = h.min
			}
			if v > h.max {
				v = h.max
			}
			return v
		}
	}
	return h.max
}

// Bin is one non-empty bucket.
type Bin struct {
	// Index is the bucket's position (0..NumBuckets-1).
	Index int
	// Value is the value the bucket reports (its midpoint), in ns.
	Value int64
	// Count is the number of samples in it.
	Count int64
}

// Bins calls fn for every non-empty bucket in increasing order of value and
// stops early when fn returns false.
func (h *Histogram) Bins(fn func(Bin) bool) {
	if h.count == 0 {
		return
	}
	for i := bucketIndex(h.min); i <= bucketIndex(h.max); i++ {
		if c := h.buckets[i]; c != 0 {
			if !fn(Bin{Index: i, Value: BucketValue(i), Count: c}) {
				return
			}
		}
	}
}

// CountBetween returns how many samples fall into buckets whose values lie in
// [lo, hi). It is used for fio's latency_ns/us/ms distribution, which counts
// by bucket value as fio does.
func (h *Histogram) CountBetween(lo, hi int64) int64 {
	var n int64
	h.Bins(func(b Bin) bool {
		if b.Value >= hi {
			return false
		}
		if b.Value >= lo {
			n += b.Count
		}
		return true
	})
	return n
}
