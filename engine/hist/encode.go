package hist

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// encodingPrefix names the encoding's version so that a reader can refuse a
// layout it does not know instead of misreading it.
const encodingPrefix = "v1."

// MaxEncodedLen bounds what Decode accepts. A histogram with every bucket
// used and huge counts encodes to well under this; anything longer is not
// ours and is refused before it is decoded.
const MaxEncodedLen = 128 << 10

// Encode returns a compact, URL-safe text form of the histogram:
// "v1." followed by base64 (no padding) of unsigned varints: count, min, max,
// sum, the IEEE bits of the sum of squares, the number of non-empty buckets,
// then (index delta, count) per non-empty bucket. Typical latency histograms
// encode to a few hundred bytes to a few KB.
func (h *Histogram) Encode() string {
	buf := make([]byte, 0, 64)
	buf = binary.AppendUvarint(buf, uint64(h.count))
	buf = binary.AppendUvarint(buf, uint64(h.min))
	buf = binary.AppendUvarint(buf, uint64(h.max))
	buf = binary.AppendUvarint(buf, h.sum)
	buf = binary.AppendUvarint(buf, math.Float64bits(h.sumSq))
	var nonEmpty uint64
	h.Bins(func(Bin) bool { nonEmpty++; return true })
	buf = binary.AppendUvarint(buf, nonEmpty)
	prev := -1
	h.Bins(func(b Bin) bool {
		buf = binary.AppendUvarint(buf, uint64(b.Index-prev))
		buf = binary.AppendUvarint(buf, uint64(b.Count))
		prev = b.Index
		return true
	})
	return encodingPrefix + base64.RawURLEncoding.EncodeToString(buf)
}

// ErrEncoding is wrapped by every Decode error.
var ErrEncoding = errors.New("invalid histogram encoding")

// Decode parses the output of Encode into a new histogram (see
// Decoder.DecodeInto for the checks).
func Decode(s string) (*Histogram, error) {
	h := &Histogram{}
	var d Decoder
	if err := d.DecodeInto(h, s); err != nil {
		return nil, err
	}
	return h, nil
}

// Decoder decodes histograms reusing its buffer, and DecodeInto reuses the
// histogram it decodes into: merging the reports of many clients decodes
// one histogram per client, cell and direction, and a histogram is 15 KB.
// The zero value is ready to use; it is not safe for concurrent use.
type Decoder struct {
	raw []byte
}

// DecodeInto parses the output of Encode into h, replacing what h held;
// on error h is left empty. The input is untrusted (it comes from client
// pods' logs): its size is bounded, every field is checked for consistency
// (bucket counts add up to the count, min and max match the first and last
// bucket, indexes increase and stay in range) and it never panics.
func (d *Decoder) DecodeInto(h *Histogram, s string) error {
	h.Reset()
	if err := d.decode(h, s); err != nil {
		// A bad encoding may have filled buckets outside min..max, which
		// Reset does not look at: clear them all.
		*h = Histogram{}
		return err
	}
	return nil
}

func (d *Decoder) decode(h *Histogram, s string) error {
	if len(s) > MaxEncodedLen {
		return fmt.Errorf("%w: %d bytes, more than the limit of %d", ErrEncoding, len(s), MaxEncodedLen)
	}
	rest, ok := strings.CutPrefix(s, encodingPrefix)
	if !ok {
		return fmt.Errorf("%w: missing %q prefix", ErrEncoding, encodingPrefix)
	}
	if need := base64.RawURLEncoding.DecodedLen(len(rest)); cap(d.raw) < need {
		d.raw = make([]byte, need)
	}
	// The encoded text is read in place: Decode does not write to its
	// source, and a []byte(rest) copy would allocate on every call.
	n, err := base64.RawURLEncoding.Decode(d.raw[:cap(d.raw)], unsafe.Slice(unsafe.StringData(rest), len(rest)))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrEncoding, err)
	}
	r := reader{buf: d.raw[:n]}
	count := r.next("count")
	minV := r.next("min")
	maxV := r.next("max")
	sum := r.next("sum")
	sumSqBits := r.next("sum of squares")
	nBins := r.next("bucket count")
	if r.err != nil {
		return r.err
	}
	const maxInt = uint64(math.MaxInt64)
	switch {
	case count > maxInt || minV > maxInt || maxV > maxInt:
		return fmt.Errorf("%w: count, min or max out of range", ErrEncoding)
	case nBins > NumBuckets:
		return fmt.Errorf("%w: %d buckets, at most %d exist", ErrEncoding, nBins, NumBuckets)
	case count == 0 && (minV != 0 || maxV != 0 || sum != 0 || sumSqBits != 0 || nBins != 0):
		return fmt.Errorf("%w: empty histogram with non-zero fields", ErrEncoding)
	case count > 0 && (minV > maxV || nBins == 0):
		return fmt.Errorf("%w: min %d > max %d or no buckets", ErrEncoding, minV, maxV)
	}
	h.count, h.min, h.max, h.sum, h.sumSq = int64(count), int64(minV), int64(maxV), sum, math.Float64frombits(sumSqBits)
	if math.IsNaN(h.sumSq) || math.IsInf(h.sumSq, 0) || h.sumSq < 0 {
		return fmt.Errorf("%w: sum of squares %v", ErrEncoding, h.sumSq)
	}
	// The exact sum must lie between count*min and count*max; checked in
	// floating point with slack for rounding, as the products may overflow.
	if count > 0 {
		fs, fc := float64(sum), float64(count)
		if fs < fc*float64(minV)*(1-1e-9)-1 || fs > fc*float64(maxV)*(1+1e-9)+1 {
			return fmt.Errorf("%w: sum %d outside count*[min, max]", ErrEncoding, sum)
		}
	}
	idx := -1
	var total uint64
	for i := uint64(0); i < nBins; i++ {
		delta := r.next("bucket index")
		c := r.next("bucket count")
		if r.err != nil {
			return r.err
		}
		if delta == 0 || delta > NumBuckets || idx+int(delta) >= NumBuckets {
			return fmt.Errorf("%w: bucket index out of range", ErrEncoding)
		}
		idx += int(delta)
		if c == 0 || c > maxInt || total+c < total || total+c > count {
			return fmt.Errorf("%w: bucket %d count %d inconsistent with total %d", ErrEncoding, idx, c, count)
		}
		total += c
		if i == 0 && idx != bucketIndex(h.min) {
			return fmt.Errorf("%w: first bucket %d does not hold min %d", ErrEncoding, idx, h.min)
		}
		h.buckets[idx] = int64(c)
	}
	if count > 0 && idx != bucketIndex(h.max) {
		return fmt.Errorf("%w: last bucket %d does not hold max %d", ErrEncoding, idx, h.max)
	}
	if total != count {
		return fmt.Errorf("%w: buckets hold %d samples, count says %d", ErrEncoding, total, count)
	}
	if len(r.buf) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrEncoding, len(r.buf))
	}
	return nil
}

// reader decodes varints and remembers the first error.
type reader struct {
	buf []byte
	err error
}

func (r *reader) next(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf)
	if n <= 0 {
		r.err = fmt.Errorf("%w: truncated or overlong varint at %s", ErrEncoding, what)
		return 0
	}
	r.buf = r.buf[n:]
	return v
}
