package hist

import "testing"

// FuzzDecode feeds arbitrary text to Decode, as the controller does with
// documents from pods: it must never panic, and whatever it accepts must be a
// consistent histogram that survives another round trip.
func FuzzDecode(f *testing.F) {
	h := New()
	for _, v := range []int64{0, 1, 63, 64, 1000, 123456, 9876543210} {
		h.Record(v)
	}
	f.Add(h.Encode())
	f.Add(New().Encode())
	f.Add("v1.")
	f.Add("v1.AQEBAQEBAQE")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Decode(s)
		if err != nil {
			return
		}
		var n int64
		d.Bins(func(b Bin) bool { n += b.Count; return true })
		if n != d.Count() {
			t.Fatalf("accepted histogram has %d samples in buckets, count %d", n, d.Count())
		}
		_ = d.Percentile(99)
		// Varints and base64 have non-canonical spellings, so compare the
		// decoded re-encoding rather than the text.
		again, err := Decode(d.Encode())
		if err != nil {
			t.Fatalf("re-encoding of an accepted histogram is refused: %v", err)
		}
		if again.buckets != d.buckets || again.count != d.count || again.sum != d.sum || again.min != d.min || again.max != d.max {
			t.Fatal("re-encoding changed the histogram")
		}
	})
}
