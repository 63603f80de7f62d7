package engine

import "math/bits"

// rng is xoshiro256**: fast (about 1 ns), statistically strong for picking
// offsets and filling buffers, and reproducible from a seed, which fio's
// randrepeat needs. Each worker owns one; nothing is shared.
type rng struct{ s [4]uint64 }

// newRNG seeds the state with splitmix64, as the algorithm's authors advise,
// so that nearby seeds (clone numbers) give unrelated streams.
func newRNG(seed uint64) rng {
	var r rng
	for i := range r.s {
		seed += 0x9e3779b97f4a7c15
		r.s[i] = mix64(seed)
	}
	return r
}

// mix64 is splitmix64's finalizer: every input bit moves every output bit.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rng) next() uint64 {
	s := &r.s
	result := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return result
}

// below returns a uniform value in [0, n) (Lemire's multiply-shift; the
// bias for n far below 2^64 is negligible).
func (r *rng) below(n uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}

// fill writes random bytes into b.
func (r *rng) fill(b []byte) {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		v := r.next()
		b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		b[i+4], b[i+5], b[i+6], b[i+7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
	}
	if i < len(b) {
		v := r.next()
		for ; i < len(b); i++ {
			b[i] = byte(v)
			v >>= 8
		}
	}
}
