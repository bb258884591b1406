package tensor

import (
	endian "encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// The generator behind Rand and RandN is math/rand/v2's PCG: a 128-bit
// linear congruential generator, state = state*pcgMul + pcgInc modulo
// 2^128, whose output scrambles the new state (DXSM). Its multiplier and
// increment are PCG's published 128-bit constants, which math/rand/v2
// uses; they are repeated here so that the state can be moved ahead by
// any count of steps in a few dozen multiplications (jump), and blocks of
// a tensor far apart can be generated at once, each from its own copy.
var (
	pcgMul = u128{hi: 2549297995355413924, lo: 4865540595714422341}
	pcgInc = u128{hi: 6364136223846793005, lo: 1442695040888963407}
)

// u128 is an unsigned 128-bit integer; arithmetic on it wraps modulo 2^128.
type u128 struct{ hi, lo uint64 }

func (a u128) mul(b u128) u128 {
	hi, lo := bits.Mul64(a.lo, b.lo)
	return u128{hi: hi + a.hi*b.lo + a.lo*b.hi, lo: lo}
}

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi: hi, lo: lo}
}

// pcgStep is the affine map state -> state*mul + inc of some number of
// the generator's steps.
type pcgStep struct{ mul, inc u128 }

// pcgSteps returns the map of k steps, composed by repeated squaring
// (Brown's method): a map of 2^j steps applied twice is the map of
// 2^(j+1), and the bits of k pick which of them to compose.
func pcgSteps(k uint64) pcgStep {
	acc := pcgStep{mul: u128{lo: 1}}
	cur := pcgStep{mul: pcgMul, inc: pcgInc}
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			acc = pcgStep{mul: acc.mul.mul(cur.mul), inc: acc.inc.mul(cur.mul).add(cur.inc)}
		}
		cur = pcgStep{mul: cur.mul.mul(cur.mul), inc: cur.inc.mul(cur.mul).add(cur.inc)}
	}
	return acc
}

// apply moves the state s by the map's steps.
func (m pcgStep) apply(s u128) u128 { return s.mul(m.mul).add(m.inc) }

// pcgState reads a generator's state through its binary form ("pcg:",
// then the high and low words, big-endian), which math/rand/v2 documents
// as stable.
func pcgState(p *rand.PCG) (u128, bool) {
	b, err := p.MarshalBinary()
	if err != nil || len(b) != 20 || string(b[:4]) != "pcg:" {
		return u128{}, false
	}
	return u128{hi: endian.BigEndian.Uint64(b[4:]), lo: endian.BigEndian.Uint64(b[12:])}, true
}

// setPCG makes p's state s, through the same binary form; it succeeds
// where pcgState has.
func setPCG(p *rand.PCG, s u128) {
	b := [20]byte{'p', 'c', 'g', ':'}
	endian.BigEndian.PutUint64(b[4:], s.hi)
	endian.BigEndian.PutUint64(b[12:], s.lo)
	_ = p.UnmarshalBinary(b[:])
}
