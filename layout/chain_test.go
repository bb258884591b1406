package layout_test

// Random chains of view ops, decoded from bytes so that the same driver
// serves the fuzz targets and a seeded property test. Arguments are often
// invalid on purpose (axes out of range, huge or negative extents, zero
// steps); every op must then fail with the kind the model predicts, and
// every success must match the model element by element.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/layout"
)

type byteSrc struct {
	data []byte
	i    int
}

func (s *byteSrc) more() bool { return s.i < len(s.data) }

func (s *byteSrc) next() int {
	if s.i >= len(s.data) {
		return 0
	}
	s.i++
	return int(s.data[s.i-1])
}

// specials are argument values that overflow or sit on a boundary.
var specials = []int{
	math.MaxInt, math.MinInt, math.MaxInt/2 + 1, -math.MaxInt, 1 << 32, -(1 << 32),
	layout.MaxElements, layout.MaxElements + 1, 1 << 31, 100, -100, 1 << 62, -(1 << 62), -1,
}

// arg returns a value in [lo, hi] most of the time and a special value
// otherwise.
func (s *byteSrc) arg(lo, hi int) int {
	b := s.next()
	if b >= 232 {
		return specials[(b-232)%len(specials)]
	}
	return lo + b%(hi-lo+1)
}

// pick returns a value in [lo, hi] (the valid range) three times in four,
// and otherwise one in [wlo, whi] or a special value.
func (s *byteSrc) pick(lo, hi, wlo, whi int) int {
	switch b := s.next(); {
	case b >= 232:
		return specials[(b-232)%len(specials)]
	case b%4 != 0 && lo <= hi:
		return lo + (b/4)%(hi-lo+1)
	default:
		return wlo + (b/4)%(whi-wlo+1)
	}
}

// extents used for base shapes: small, with 1 common and 0 present.
var baseExtents = []int{1, 2, 3, 4, 0, 1, 2, 3, 2, 3, 1, 4, 2, 3, 1, 2}

func decodeBase(s *byteSrc) (layout.Layout, refTensor, int) {
	shape := make([]int, s.next()%6)
	for i := range shape {
		shape[i] = baseExtents[s.next()%len(baseExtents)]
	}
	off := s.next() % 4
	l, err := layout.Contiguous(shape...)
	if err != nil {
		panic(fmt.Sprintf("Contiguous(%v): %v", shape, err))
	}
	l = l.Rebase(off)
	ref := refBase(off, shape...)
	return l, ref, off + len(ref.pos)
}

func divisors(n int) []int {
	var ds []int
	for d := 1; d <= n; d++ {
		if n%d == 0 {
			ds = append(ds, d)
		}
	}
	return ds
}

// genTarget makes a Reshape target for a tensor of the given shape: often a
// valid regrouping, sometimes a random or broken one, sometimes with -1.
func genTarget(s *byteSrc, shape []int) []int {
	n, _ := refCount(shape)
	var out []int
	switch s.next() % 5 {
	case 0, 1: // a factorisation of n
		k := 1 + s.next()%4
		rem := n
		for i := 0; i < k-1; i++ {
			if rem == 0 {
				out = append(out, s.next()%4)
				continue
			}
			ds := divisors(rem)
			d := ds[s.next()%len(ds)]
			out = append(out, d)
			rem /= d
		}
		out = append(out, rem)
	case 2, 3: // merge neighbours of the current shape, split some, add 1s
		for i := 0; i < len(shape); i++ {
			d := shape[i]
			for i+1 < len(shape) && s.next()%2 == 0 {
				i++
				d *= shape[i]
			}
			if s.next()%3 == 0 && d > 1 && d <= refLimit {
				ds := divisors(d)
				f := ds[s.next()%len(ds)]
				out = append(out, f, d/f)
			} else {
				out = append(out, d)
			}
			if s.next()%5 == 0 {
				out = append(out, 1)
			}
		}
	default: // anything
		out = make([]int, s.next()%5)
		for i := range out {
			out[i] = s.arg(0, 6)
		}
	}
	if len(out) > 0 && s.next()%4 == 0 {
		out[s.next()%len(out)] = -1
	}
	return out
}

type step struct {
	desc    string
	l       layout.Layout
	err     error
	ref     refTensor
	refErr  error
	reshape bool // ErrNeedsCopy is allowed when no strides fit
}

// applyOp decodes one op and runs it on both the layout and the model.
func applyOp(s *byteSrc, l layout.Layout, ref refTensor) step {
	r := l.Rank()
	var st step
	extent := func(axis int) int {
		if a, ok := refAxis(axis, r); ok {
			return min(l.Shape[a], 64) // keep argument ranges small
		}
		return 4
	}
	switch s.next() % 10 {
	case 0:
		perm := make([]int, r)
		for i := range perm {
			perm[i] = i
		}
		for i := r - 1; i > 0; i-- {
			j := s.next() % (i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
		switch s.next() % 8 {
		case 0:
			perm = append(perm, s.arg(-r, r))
		case 1:
			if r > 0 {
				perm = perm[:r-1]
			}
		case 2:
			if r > 0 {
				perm[s.next()%r] = s.arg(-r-1, r)
			}
		case 3:
			for i := range perm {
				if s.next()%2 == 0 {
					perm[i] -= r
				}
			}
		}
		st.desc = fmt.Sprintf("Permute%v", perm)
		st.l, st.err = l.Permute(perm...)
		st.ref, st.refErr = refPermute(ref, perm)
	case 1:
		a, b := s.pick(-r, r-1, -r-1, r), s.pick(-r, r-1, -r-1, r)
		st.desc = fmt.Sprintf("Transpose(%d, %d)", a, b)
		st.l, st.err = l.Transpose(a, b)
		st.ref, st.refErr = refTranspose(ref, a, b)
	case 2:
		a := s.pick(-r, r-1, -r-1, r)
		d := extent(a)
		start := s.pick(0, d, -1, d+1)
		length := s.pick(1, d-start, -1, d+1)
		st.desc = fmt.Sprintf("Narrow(%d, %d, %d)", a, start, length)
		st.l, st.err = l.Narrow(a, start, length)
		st.ref, st.refErr = refNarrow(ref, a, start, length)
	case 3, 4:
		a := s.pick(-r, r-1, -r-1, r)
		d := extent(a)
		var start, end, stp int
		if d > 0 && s.next()%4 != 0 {
			// A non-empty slice, bounds written either way round.
			stp = 1 + s.next()%d
			start = s.next() % d
			if s.next()%2 == 0 {
				end = start + 1 + s.next()%(d-start)
			} else {
				stp = -stp
				end = start - 1 - s.next()%(start+1) // in [-1, start-1]
				if end < 0 {
					end = -d - 1 - s.next()%3 // -1 would mean the last element
				}
			}
			if s.next()%2 == 0 && start >= 0 {
				start -= d
			}
			if s.next()%2 == 0 && end >= 0 && end < d {
				end -= d
			}
		} else {
			start, end = s.pick(-d, d, -d-2, d+2), s.pick(-d, d, -d-2, d+2)
			stp = s.pick(1, max(d, 1), -d-1, d+1)
			if s.next()%2 == 0 {
				stp = -stp
			}
		}
		st.desc = fmt.Sprintf("Slice(%d, %d, %d, %d)", a, start, end, stp)
		st.l, st.err = l.Slice(a, start, end, stp)
		st.ref, st.refErr = refSlice(ref, a, start, end, stp)
	case 5:
		rank := r + s.next()%3
		if s.next()%8 == 0 {
			rank = max(r-1, 0)
		}
		shape := make([]int, rank)
		lead := rank - r
		for i := range shape {
			d := 1
			if i >= lead {
				d = l.Shape[i-lead]
			}
			switch c := s.next() % 10; {
			case c < 5:
				if i < lead {
					d = 1 + s.next()%3
				}
			case c < 7:
				if d == 1 {
					d = s.next() % 5
				}
			case c == 7:
				d = s.next() % 5
			case c == 8:
				d = s.arg(0, 4)
			default:
				d = -1
			}
			shape[i] = d
		}
		st.desc = fmt.Sprintf("BroadcastTo%v", shape)
		st.l, st.err = l.BroadcastTo(shape...)
		st.ref, st.refErr = refBroadcastTo(ref, shape)
	case 6:
		a := s.pick(-r-1, r, -r-2, r+1)
		st.desc = fmt.Sprintf("Unsqueeze(%d)", a)
		st.l, st.err = l.Unsqueeze(a)
		st.ref, st.refErr = refUnsqueeze(ref, a)
	case 7:
		axes := make([]int, s.next()%3)
		for i := range axes {
			axes[i] = s.pick(-r, r-1, -r-1, r)
		}
		st.desc = fmt.Sprintf("Squeeze%v", axes)
		st.l, st.err = l.Squeeze(axes...)
		st.ref, st.refErr = refSqueeze(ref, axes)
	case 8:
		a, b := s.pick(-r, r-1, -r-1, r), s.pick(-r, r-1, -r-1, r)
		st.desc = fmt.Sprintf("Flatten(%d, %d)", a, b)
		st.l, st.err = l.Flatten(a, b)
		st.ref, st.refErr = refFlatten(ref, a, b)
		st.reshape = true
	default:
		shape := genTarget(s, l.Shape)
		st.desc = fmt.Sprintf("Reshape%v", shape)
		st.l, st.err = l.Reshape(shape...)
		st.ref, st.refErr = refReshape(ref, shape)
		st.reshape = true
	}
	return st
}

// checkStep compares one op's outcome with the model's and reports whether
// the chain can continue from st.l.
func checkStep(t *testing.T, what string, st step, storageLen int) bool {
	t.Helper()
	switch {
	case errors.Is(st.refErr, errTooBig):
		if st.err != nil {
			t.Fatalf("%s: %v, want success", what, st.err)
		}
		if err := st.l.Validate(storageLen); err != nil {
			t.Fatalf("%s: %+v: Validate: %v", what, st.l, err)
		}
		return false
	case st.refErr != nil:
		checkErr(t, what, st.err, st.refErr)
		return false
	case st.err != nil:
		if !st.reshape || !errors.Is(st.err, layout.ErrNeedsCopy) {
			t.Fatalf("%s: unexpected error %v", what, st.err)
		}
		if strides, ok := refViewStrides(st.ref); ok {
			t.Fatalf("%s: ErrNeedsCopy, but strides %v reproduce %v", what, strides, st.ref)
		}
		return false
	}
	checkView(t, what, st.l, st.ref, storageLen)
	return true
}

// runChain decodes a base layout and up to 12 ops from data and checks each
// step against the model.
func runChain(t *testing.T, data []byte) {
	s := &byteSrc{data: data}
	l, ref, storageLen := decodeBase(s)
	what := fmt.Sprintf("Contiguous%v+%d", l.Shape, l.Offset)
	checkView(t, what, l, ref, storageLen)
	for n := 0; n < 12 && s.more(); n++ {
		st := applyOp(s, l, ref)
		what += "." + st.desc
		if checkStep(t, what, st, storageLen) {
			l, ref = st.l, st.ref
		}
	}
}

// runReshapes decodes a base layout, a few view ops to make it strided,
// and then up to 24 Reshape targets for that one view. Each
// successful reshape must reshape back to the view's own shape.
func runReshapes(t *testing.T, data []byte) {
	s := &byteSrc{data: data}
	l, ref, storageLen := decodeBase(s)
	what := fmt.Sprintf("Contiguous%v+%d", l.Shape, l.Offset)
	for range s.next() % 4 {
		st := applyOp(s, l, ref)
		if st.reshape {
			continue
		}
		what += "." + st.desc
		if checkStep(t, what, st, storageLen) {
			l, ref = st.l, st.ref
		}
	}
	for n := 0; n < 24 && s.more(); n++ {
		shape := genTarget(s, l.Shape)
		st := step{desc: fmt.Sprintf("Reshape%v", shape), reshape: true}
		st.l, st.err = l.Reshape(shape...)
		st.ref, st.refErr = refReshape(ref, shape)
		if !checkStep(t, what+"."+st.desc, st, storageLen) {
			continue
		}
		back, err := st.l.Reshape(l.Shape...)
		if err != nil {
			t.Fatalf("%s.%s: reshaping back to %v: %v", what, st.desc, l.Shape, err)
		}
		checkView(t, what+"."+st.desc+".back", back, ref, storageLen)
	}
}

var chainSeeds = [][]byte{
	{},
	{0},
	{2, 2, 3, 0},
	{2, 2, 3, 1, 0, 1, 0},                // transpose
	{2, 3, 2, 0, 2, 1, 0, 1, 2, 8, 0, 1}, // narrow then flatten
	{3, 2, 3, 2, 0, 3, 1, 255, 255, 2, 9, 2, 0},   // slice backwards, reshape
	{3, 2, 1, 3, 1, 5, 0, 0, 0, 3, 0, 5},          // broadcast
	{4, 2, 2, 2, 2, 2, 2, 1, 0, 5, 9, 3, 1, 1, 1}, // narrow + merge
	{5, 1, 2, 3, 4, 0, 0, 0, 1, 2, 3, 4, 6, 3, 7, 2, 1, 1},
	{1, 3, 0, 3, 0, 236, 233, 232}, // slice with extreme start/end/step
	{2, 3, 3, 0, 3, 1, 1, 2, 237, 8, 0, 1},
	{2, 4, 0, 1, 5, 2, 1, 240, 241, 9, 3, 5},
	{0, 1, 8, 240, 0, 8, 0, 1, 6, 0, 7, 1, 0},
	{1, 3, 0, 3, 4, 0, 17, 33, 232, 1}, // Slice(-1, 0, 4, MaxInt) has one element
	{1, 3, 0, 3, 4, 0, 29, 1, 233, 1},  // Slice(-1, 3, -4, MinInt) has one element
}

// TestViewChains is the property test: thousands of random chains of view
// ops, each step checked against the brute-force model.
func TestViewChains(t *testing.T) {
	for _, seed := range chainSeeds {
		runChain(t, seed)
		runReshapes(t, seed)
	}
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 48)
	for range n {
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		runChain(t, data)
		runReshapes(t, data)
	}
}

func FuzzViewChain(f *testing.F) {
	for _, seed := range chainSeeds {
		f.Add(seed)
	}
	f.Fuzz(runChain)
}

func FuzzReshape(f *testing.F) {
	for _, seed := range chainSeeds {
		f.Add(seed)
	}
	f.Add([]byte{3, 3, 2, 3, 0, 1, 2, 3, 0, 1, 0, 0, 0, 2, 3, 0, 1, 1, 2, 2, 3})
	f.Add([]byte{4, 2, 2, 2, 2, 1, 2, 2, 1, 1, 1, 3, 2, 0, 1, 0})
	f.Fuzz(runReshapes)
}

// TestRefSliceIndices pins the model's slicing against lists that Python
// prints for list(range(d))[start:end:step].
func TestRefSliceIndices(t *testing.T) {
	tests := []struct {
		d, start, end, step int
		want                []int
	}{
		{5, 0, 5, 1, []int{0, 1, 2, 3, 4}},
		{5, 1, 4, 2, []int{1, 3}},
		{5, -2, 5, 1, []int{3, 4}},
		{5, -10, 10, 3, []int{0, 3}},
		{5, 4, -10, -1, []int{4, 3, 2, 1, 0}},
		{5, 10, 0, -2, []int{4, 2}},
		{5, -1, -6, -1, []int{4, 3, 2, 1, 0}},
		{5, 3, 3, 1, nil},
		{5, 3, 1, 1, nil},
		{5, 1, 3, -1, nil},
		{5, -6, -7, -1, nil},
		{5, 0, 5, math.MaxInt, []int{0}},
		{5, 4, -100, math.MinInt, []int{4}},
		{0, 0, 5, 1, nil},
		{0, -1, -1, -1, nil},
		{1, math.MinInt, math.MaxInt, 1, []int{0}},
		{1, math.MaxInt, math.MinInt, -1, []int{0}},
	}
	for _, tc := range tests {
		got := refSliceIndices(tc.d, tc.start, tc.end, tc.step)
		if !slices.Equal(got, tc.want) {
			t.Errorf("range(%d)[%d:%d:%d] = %v, want %v", tc.d, tc.start, tc.end, tc.step, got, tc.want)
		}
	}
}
