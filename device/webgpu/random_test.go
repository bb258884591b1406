//go:build cgo

package webgpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// randomView returns a random view of logical shape over a fresh storage:
// a permutation of a (possibly larger) contiguous tensor, narrowed, with
// some axes reversed or stepped, and some broadcast.
func randomView(r *rand.Rand, shape []int) (layout.Layout, int) {
	rank := len(shape)
	// Storage shape: each axis at least as long as needed for its step.
	steps := make([]int, rank)
	bcast := make([]bool, rank)
	store := make([]int, rank)
	for i, d := range shape {
		steps[i] = 1 + r.IntN(2)
		bcast[i] = r.IntN(6) == 0
		store[i] = max(1, d*steps[i]+r.IntN(3))
		if bcast[i] {
			store[i] = 1
		}
	}
	perm := r.Perm(rank)
	permShape := make([]int, rank)
	for i, p := range perm {
		permShape[p] = store[i]
	}
	base := contig(permShape...)
	// Undo the permutation so axis i of the view has storage axis i.
	inv := make([]int, rank)
	for i, p := range perm {
		inv[i] = p
	}
	l, _ := base.Permute(inv...)
	for i, d := range shape {
		switch {
		case bcast[i]:
			l.Strides = append([]int(nil), l.Strides...)
			l.Shape = append([]int(nil), l.Shape...)
			l.Strides[i], l.Shape[i] = 0, d
		case r.IntN(2) == 0:
			l, _ = l.Slice(i, (d-1)*steps[i], -l.Shape[i]-1, -steps[i]) // reversed
		default:
			l, _ = l.Slice(i, 0, d*steps[i], steps[i])
		}
	}
	return l, base.Numel()
}

func TestRandomViews(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(31, 32))
	for it := 0; it < 60; it++ {
		rank := r.IntN(6)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1 + r.IntN(5)
		}
		la, na := randomView(r, shape)
		lb, nb := randomView(r, shape)
		if !slices.Equal(la.Shape, shape) || !slices.Equal(lb.Shape, shape) {
			t.Fatalf("bad view construction %v %v for %v", la, lb, shape)
		}
		av := randVals(r, dtype.F32, na, -3, 3)
		bv := randVals(r, dtype.F32, nb, -3, 3)
		a := upload(t, g, dtype.F32, av)
		b := upload(t, g, dtype.F32, bv)
		name := fmt.Sprintf("it %d shape %v a %+v b %+v", it, shape, la, lb)
		dl, dn := randomView(r, shape)
		for i := range dl.Strides {
			if dl.Strides[i] == 0 { // a destination never overlaps itself
				dl = contig(shape...)
				dn = dl.Numel()
				break
			}
		}
		d := alloc(t, g, dtype.F32, max(dn, 1))
		if err := g.Binary(device.Mul, op2(d, dl), op2(a, la), op2(b, lb)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ga, gb := gather(av, la), gather(bv, lb)
		want := make([]float64, len(ga))
		for i := range want {
			want[i] = float64(float32(ga[i] * gb[i]))
		}
		checkClose(t, "Mul "+name, gather(download(t, g, d), dl), want, 0, 0)
		if rank == 0 {
			continue
		}
		// Reduce a random subset of axes.
		var axes []int
		for i := 0; i < rank; i++ {
			if r.IntN(2) == 0 {
				axes = append(axes, i)
			}
		}
		ks := keptShape(shape, axes)
		s := alloc(t, g, dtype.F32, max(1, prodInts(ks)))
		if err := g.Reduce(device.Sum, op2(s, contig(ks...)), op2(a, la), axes); err != nil {
			t.Fatalf("%s axes %v: %v", name, axes, err)
		}
		checkClose(t, "Sum "+name, download(t, g, s), reduceRef(device.Sum, dtype.F32, av, la, axes), 2e-6, 1e-5)
	}
}
