package tensor

import (
	"math/rand/v2"
	"testing"
)

// TestPCGJump checks that moving a generator's state ahead by k steps
// gives the state that k calls of Uint64 leave, read from math/rand/v2's
// PCG itself, for counts around the powers of two that the composition
// uses and for seeds with the high words set.
func TestPCGJump(t *testing.T) {
	seeds := [][2]uint64{{0, 0}, {42, 0x7e55e7a}, {^uint64(0), ^uint64(0) - 5}}
	counts := []uint64{0, 1, 2, 3, 7, 8, 63, 64, 65, 511, 512, 2048, 4099, 1<<16 + 3}
	for _, sd := range seeds {
		seq := rand.NewPCG(sd[0], sd[1])
		start, ok := pcgState(seq)
		if !ok {
			t.Fatal("the PCG's binary form is not the one pcgState reads")
		}
		done := uint64(0)
		for _, k := range counts {
			for ; done < k; done++ {
				seq.Uint64()
			}
			want, _ := pcgState(seq)
			if got := pcgSteps(k).apply(start); got != want {
				t.Fatalf("seed %v: %d steps ahead gives %#x, want %#x", sd, k, got, want)
			}
			// A generator set to the moved state continues the sequence.
			var p rand.PCG
			setPCG(&p, pcgSteps(k).apply(start))
			if g, w := p.Uint64(), rand.NewPCG(sd[0], sd[1]); g != nth(w, k) {
				t.Fatalf("seed %v: the value after %d steps differs", sd, k)
			}
		}
	}
}

// nth is p's value after k others.
func nth(p *rand.PCG, k uint64) uint64 {
	for range k {
		p.Uint64()
	}
	return p.Uint64()
}
