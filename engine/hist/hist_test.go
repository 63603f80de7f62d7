package hist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBucketIndexMatchesBucketBounds(t *testing.T) {
	// Every bucket's low edge maps to the bucket, the value just below it to
	// the previous one, and the reported value lies inside the bucket.
	for idx := 1; idx < NumBuckets; idx++ {
		lo := bucketLow(idx)
		if got := bucketIndex(lo); got != idx {
			t.Fatalf("bucketIndex(bucketLow(%d)=%d) = %d", idx, lo, got)
		}
		if got := bucketIndex(lo - 1); got != idx-1 {
			t.Fatalf("bucketIndex(%d) = %d, want %d", lo-1, got, idx-1)
		}
		if v := BucketValue(idx); bucketIndex(v) != idx {
			t.Fatalf("BucketValue(%d) = %d lies in bucket %d", idx, v, bucketIndex(v))
		}
	}
	if got := bucketIndex(math.MaxInt64); got != NumBuckets-1 {
		t.Fatalf("MaxInt64 maps to %d, want last bucket %d", got, NumBuckets-1)
	}
}

func TestBucketErrorBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		v := int64(rng.ExpFloat64() * 1e6)
		got := BucketValue(bucketIndex(v))
		if v == 0 {
			continue
		}
		if rel := math.Abs(float64(got-v)) / float64(v); rel > 1.0/128+1e-12 {
			t.Fatalf("value %d reported as %d: error %.4f%% > 0.78%%", v, got, rel*100)
		}
	}
}

// exactPercentile is fio's rule applied to the raw samples: the smallest
// sample whose rank reaches p/100 of the count.
func exactPercentile(sorted []int64, p float64) int64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

func TestPercentileWithinErrorBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	samples := make([]int64, 100000)
	h := New()
	for i := range samples {
		// A bimodal, long-tailed mix like real device latencies.
		v := int64(50000 + rng.NormFloat64()*5000)
		if rng.IntN(100) == 0 {
			v = int64(rng.ExpFloat64() * 5e6)
		}
		if v < 1 {
			v = 1
		}
		samples[i] = v
		h.Record(v)
	}
	slices.Sort(samples)
	for _, p := range []float64{1, 5, 10, 50, 90, 99, 99.9, 99.99} {
		want := exactPercentile(samples, p)
		got := h.Percentile(p)
		if rel := math.Abs(float64(got-want)) / float64(want); rel > 1.0/128 {
			t.Errorf("p%v = %d, exact %d: error %.3f%% > 0.78%%", p, got, want, rel*100)
		}
	}
	if h.Percentile(100) != samples[len(samples)-1] || h.Percentile(0) != samples[0] {
		t.Errorf("p0/p100 = %d/%d, want exact min/max %d/%d", h.Percentile(0), h.Percentile(100), samples[0], samples[len(samples)-1])
	}
}

func TestExactStats(t *testing.T) {
	h := New()
	vals := []int64{100, 200, 300, 400, 1000000}
	var sum int64
	for _, v := range vals {
		h.Record(v)
		sum += v
	}
	if h.Count() != 5 || h.Min() != 100 || h.Max() != 1000000 || h.Sum() != uint64(sum) {
		t.Fatalf("count/min/max/sum = %d/%d/%d/%d", h.Count(), h.Min(), h.Max(), h.Sum())
	}
	mean := float64(sum) / 5
	var ss float64
	for _, v := range vals {
		ss += (float64(v) - mean) * (float64(v) - mean)
	}
	if want := math.Sqrt(ss / 5); math.Abs(h.Stddev()-want) > want*1e-9 {
		t.Fatalf("stddev %v, want %v", h.Stddev(), want)
	}
	h.Reset()
	if h.Count() != 0 || h.Percentile(50) != 0 || h.Mean() != 0 {
		t.Fatal("Reset left samples behind")
	}
}

func TestMergeOfPartsEqualsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	whole := New()
	parts := make([]*Histogram, 7)
	for i := range parts {
		parts[i] = New()
	}
	for range 50000 {
		v := int64(rng.ExpFloat64() * 2e5)
		whole.Record(v)
		parts[rng.IntN(len(parts))].Record(v)
	}
	merged := New()
	for _, p := range parts {
		// Through the encoding too, as the controller merges decoded ones.
		d, err := Decode(p.Encode())
		if err != nil {
			t.Fatal(err)
		}
		merged.Merge(d)
	}
	if merged.count != whole.count || merged.min != whole.min || merged.max != whole.max || merged.sum != whole.sum || merged.buckets != whole.buckets {
		t.Fatal("merged histogram differs from the histogram of all samples")
	}
	if math.Abs(merged.sumSq-whole.sumSq) > whole.sumSq*1e-12 {
		t.Fatalf("sum of squares %v vs %v", merged.sumSq, whole.sumSq)
	}
	for _, p := range []float64{50, 99, 99.9} {
		if merged.Percentile(p) != whole.Percentile(p) {
			t.Fatalf("p%v differs after merge", p)
		}
	}
}

func TestEncodeRoundTripAndSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	h := New()
	for range 500000 {
		h.Record(int64(80000 + rng.NormFloat64()*20000 + rng.ExpFloat64()*30000))
	}
	s := h.Encode()
	if len(s) > 4096 {
		t.Errorf("encoding is %d bytes, want a few KB at most", len(s))
	}
	d, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if d.buckets != h.buckets || d.count != h.count || d.sum != h.sum || d.sumSq != h.sumSq || d.min != h.min || d.max != h.max {
		t.Fatal("round trip changed the histogram")
	}
	empty, err := Decode(New().Encode())
	if err != nil || empty.Count() != 0 {
		t.Fatalf("empty round trip: %v", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	good := New()
	good.Record(1000)
	good.Record(2000)
	enc := good.Encode()
	for name, in := range map[string]string{
		"empty":          "",
		"no prefix":      enc[3:],
		"bad base64":     "v1.!!!",
		"truncated":      enc[:len(enc)-2],
		"trailing":       enc + "AA",
		"too long":       "v1." + string(make([]byte, MaxEncodedLen)),
		"count mismatch": New().Encode()[:3] + "Ag", // count 2, nothing else
	} {
		if _, err := Decode(in); err == nil {
			t.Errorf("%s: Decode accepted %q", name, in)
		}
	}
}

func BenchmarkRecord(b *testing.B) {
	h := New()
	v := int64(12345)
	for i := 0; i < b.N; i++ {
		h.Record(v + int64(i&1023)*97)
	}
}

func TestDecodeIntoReusesTheHistogramAndAllocatesNothing(t *testing.T) {
	a, b := New(), New()
	for i := int64(1); i < 5000; i++ {
		a.Record(i * 997)
		b.Record(i * 13)
	}
	encA, encB := a.Encode(), b.Encode()
	var d Decoder
	into := New()
	for _, tc := range []struct {
		enc  string
		want *Histogram
	}{{encA, a}, {encB, b}, {encA, a}} {
		if err := d.DecodeInto(into, tc.enc); err != nil {
			t.Fatal(err)
		}
		if *into != *tc.want {
			t.Fatalf("decoding into a used histogram differs from the original")
		}
	}
	if err := d.DecodeInto(into, "v1.garbage!"); err == nil || into.Count() != 0 {
		t.Fatalf("a bad encoding must fail and leave the histogram empty: err %v, count %d", err, into.Count())
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = d.DecodeInto(into, encA) }); allocs != 0 {
		t.Fatalf("DecodeInto allocates %.0f times per call once its buffer has grown", allocs)
	}
}

func TestResetAndMergeWorkOnTheBucketsInUse(t *testing.T) {
	var h, o Histogram
	for _, v := range []int64{5, 900, 1_000_000, 7_000_000_000} {
		o.Record(v)
	}
	h.Record(12)
	h.Merge(&o)
	want := Histogram{}
	for _, v := range []int64{12, 5, 900, 1_000_000, 7_000_000_000} {
		want.Record(v)
	}
	if h != want {
		t.Fatal("merging differs from recording the same samples")
	}
	h.Reset()
	if h != (Histogram{}) {
		t.Fatal("Reset left samples behind")
	}
	// A bad encoding that fills buckets before it is found bad leaves the
	// histogram empty, every bucket included.
	var d Decoder
	bad := o.Encode()
	if err := d.DecodeInto(&h, bad[:len(bad)-2]); err == nil {
		t.Fatal("a cut encoding decoded")
	}
	if h != (Histogram{}) {
		t.Fatal("a failed decode left buckets behind")
	}
}
