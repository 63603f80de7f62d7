package engine

import "math/bits"

// blockWalk is the order in which a verifying worker visits one file's
// blocks: each of its blocks once per pass, in order (sequential jobs) or
// in a pseudo-random order (random jobs, as fio's random map does by
// default). Once per pass is what makes a read-back meaningful: no block
// is written twice, so none is written by two IOs in flight at once (which
// could tear it) and each read-back checks the write the pass made. The
// lanes of one clone take interleaved blocks (block b is lane b%lanes's),
// so no two threads ever write the same block either.
type blockWalk struct {
	first, bs   int64 // offset of block 0, the block size
	lane, lanes uint64
	n           uint64       // this lane's blocks
	perm        *permutation // nil: in order
	next        uint64       // the next index to visit
	checked     uint64       // the first index not yet read back
	wrote       []uint64     // which indices were written (mixed jobs); nil: all were
}

// newBlockWalk walks the whole blocks of a region of length bytes from
// first, lane's share of them; random with a seed for its order.
func newBlockWalk(first, length, bs int64, lane, lanes int, random bool, mixed bool, seed uint64) blockWalk {
	total := length / bs
	b := blockWalk{first: first, bs: bs, lane: uint64(lane), lanes: uint64(lanes), n: uint64(share(total, lane, lanes))}
	if random && b.n > 1 {
		b.perm = newPermutation(b.n, seed)
	}
	if mixed {
		b.wrote = make([]uint64, (b.n+63)/64)
	}
	return b
}

// offsetOf is the offset of the k-th block visited.
func (b *blockWalk) offsetOf(k uint64) int64 {
	i := k
	if b.perm != nil {
		i = b.perm.at(k)
	}
	return b.first + int64(i*b.lanes+b.lane)*b.bs
}

// take visits the next block, or says the pass is over.
func (b *blockWalk) take(write bool) (off int64, ok bool) {
	if b.next >= b.n {
		return 0, false
	}
	k := b.next
	b.next++
	if write && b.wrote != nil {
		b.wrote[k/64] |= 1 << (k % 64)
	}
	return b.offsetOf(k), true
}

// written reports whether the k-th visit was a write.
func (b *blockWalk) written(k uint64) bool {
	return b.wrote == nil || b.wrote[k/64]&(1<<(k%64)) != 0
}

// nextToCheck is the next block written and not yet read back, or false.
func (b *blockWalk) nextToCheck() (off int64, ok bool) {
	for b.checked < b.next {
		k := b.checked
		b.checked++
		if b.written(k) {
			return b.offsetOf(k), true
		}
	}
	return 0, false
}

// unchecked reports whether written blocks wait to be read back.
func (b *blockWalk) unchecked() bool {
	for k := b.checked; k < b.next; k++ {
		if b.written(k) {
			return true
		}
	}
	return false
}

// restart begins a new pass, in a new order for random walks.
func (b *blockWalk) restart(seed uint64) {
	b.next, b.checked = 0, 0
	if b.perm != nil {
		b.perm = newPermutation(b.n, seed)
	}
	clear(b.wrote)
}

// permutation is a pseudo-random bijection of [0, n): a four-round Feistel
// network over the smallest even number of bits covering n, walked again
// from any value that falls outside [0, n) (cycle walking). The domain is
// less than 4n, so a lookup takes fewer than four walks on average, and
// it needs no memory: a map of a terabyte's blocks would. Written here
// because no maintained Go module offers a keyed permutation of an
// arbitrary range.
type permutation struct {
	n    uint64
	half uint
	mask uint64
	keys [4]uint64
}

func newPermutation(n, seed uint64) *permutation {
	half := uint(max((bits.Len64(n-1)+1)/2, 1))
	return &permutation{n: n, half: half, mask: 1<<half - 1, keys: newRNG(seed).s}
}

// at is the i-th value of the permutation, i < n.
func (p *permutation) at(i uint64) uint64 {
	x := p.encrypt(i)
	for x >= p.n {
		x = p.encrypt(x)
	}
	return x
}

func (p *permutation) encrypt(x uint64) uint64 {
	l, r := x>>p.half, x&p.mask
	for _, k := range p.keys {
		l, r = r, l^(mix64(r^k)&p.mask)
	}
	return l<<p.half | r
}
