package vec

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// halfInputs are float32 bit patterns that exercise both roundings: every
// bfloat16 pattern with low halves at and around the tie, every binary16
// value with offsets at and around its half ulp (normal) or with the low
// bits of a subnormal's scale, and a spread over all 2^32 patterns.
func halfInputs() []float32 {
	var xs []float32
	add := func(b uint32) { xs = append(xs, math.Float32frombits(b)) }
	for h := range uint32(1 << 16) {
		for _, lo := range []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0x1234} {
			add(h<<16 | lo)
		}
		w := math.Float32bits(dtype.Float16(h).Float32())
		for _, d := range []uint32{0, 1 << 12, 1<<12 - 1, 1<<12 + 1, 1 << 11, 3 << 12} {
			add(w + d)
			add(w - d)
		}
	}
	for b := uint64(0); b < 1<<32; b += 4099 {
		add(uint32(b))
	}
	return xs
}

// sameBits reports whether a and b have the same bits.
func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// TestHalfConversions checks Widen, Narrow, RoundBF16 and RoundF16 on
// every tier against the dtype package's scalar conversions, bit for bit
// (NaN payloads included): all 65536 patterns of both half types widen,
// and halfInputs narrow and round, at lengths and offsets that cover the
// unrolled loops, the one-vector loop and the Go tail.
func TestHalfConversions(t *testing.T) {
	all := make([]uint16, 1<<16)
	for i := range all {
		all[i] = uint16(i)
	}
	xs := halfInputs()
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			// Widen, whole and in pieces of every length up to 70.
			bf := make([]dtype.BFloat16, len(all))
			f16 := make([]dtype.Float16, len(all))
			for i, v := range all {
				bf[i], f16[i] = dtype.BFloat16(v), dtype.Float16(v)
			}
			got := make([]float32, len(all))
			for n := 0; n <= 70; n++ {
				lo := (n * 977) % (len(all) - n)
				checkWiden(t, got[:n], bf[lo:lo+n], f16[lo:lo+n])
			}
			checkWiden(t, got, bf, f16)

			nb := make([]dtype.BFloat16, len(xs))
			nh := make([]dtype.Float16, len(xs))
			if err := Narrow(nb, xs); err != nil {
				t.Fatal(err)
			}
			if err := Narrow(nh, xs); err != nil {
				t.Fatal(err)
			}
			rb := make([]float32, len(xs))
			rh := make([]float32, len(xs))
			if err := RoundBF16(rb, xs); err != nil {
				t.Fatal(err)
			}
			if err := RoundF16(rh, xs); err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, x := range xs {
				wb, wh := dtype.BF16FromFloat32(x), dtype.F16FromFloat32(x)
				if nb[i] != wb || nh[i] != wh || !sameBits(rb[i], wb.Float32()) || !sameBits(rh[i], wh.Float32()) {
					if bad++; bad <= 5 {
						t.Errorf("x %#08x: bf16 %#04x round %#08x, f16 %#04x round %#08x; want %#04x %#08x, %#04x %#08x",
							math.Float32bits(x), uint16(nb[i]), math.Float32bits(rb[i]), uint16(nh[i]), math.Float32bits(rh[i]),
							uint16(wb), math.Float32bits(wb.Float32()), uint16(wh), math.Float32bits(wh.Float32()))
					}
				}
			}
			// In place, and short lengths at odd offsets.
			in := append([]float32(nil), xs[:1000]...)
			if err := RoundBF16(in, in); err != nil {
				t.Fatal(err)
			}
			for i, x := range xs[:1000] {
				if !sameBits(in[i], dtype.BF16FromFloat32(x).Float32()) {
					t.Fatalf("RoundBF16 in place, x %#08x: %#08x", math.Float32bits(x), math.Float32bits(in[i]))
				}
			}
			for n := 0; n <= 70; n++ {
				src := xs[3*n+1 : 4*n+1]
				d := make([]dtype.Float16, n)
				if err := Narrow(d, src); err != nil {
					t.Fatal(err)
				}
				for i, x := range src {
					if d[i] != dtype.F16FromFloat32(x) {
						t.Fatalf("Narrow f16, length %d, element %d (x %#08x): %#04x", n, i, math.Float32bits(x), uint16(d[i]))
					}
				}
			}
		})
	}
}

func checkWiden(t *testing.T, got []float32, bf []dtype.BFloat16, f16 []dtype.Float16) {
	t.Helper()
	if err := Widen(got, bf); err != nil {
		t.Fatal(err)
	}
	for i, h := range bf {
		if !sameBits(got[i], h.Float32()) {
			t.Fatalf("Widen bf16 %#04x (length %d): %#08x, want %#08x", uint16(h), len(bf), math.Float32bits(got[i]), math.Float32bits(h.Float32()))
		}
	}
	if err := Widen(got, f16); err != nil {
		t.Fatal(err)
	}
	for i, h := range f16 {
		if !sameBits(got[i], h.Float32()) {
			t.Fatalf("Widen f16 %#04x (length %d): %#08x, want %#08x", uint16(h), len(f16), math.Float32bits(got[i]), math.Float32bits(h.Float32()))
		}
	}
}

// TestHalfErrors checks the conversions' typed errors: lengths that differ,
// and a rounding whose output overlaps its input at another offset.
func TestHalfErrors(t *testing.T) {
	f, g := make([]float32, 8), make([]float32, 8)
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"Widen", Widen(f, make([]dtype.BFloat16, 7)), errs.ErrShape},
		{"Narrow", Narrow(make([]dtype.Float16, 9), f), errs.ErrShape},
		{"RoundF16", RoundF16(f[:4], f[:5]), errs.ErrShape},
		{"RoundBF16 overlap", RoundBF16(f[1:5], f[:4]), errs.ErrValue},
		{"WidenF32", WidenF32(make([]float64, 3), f), errs.ErrShape},
		{"NarrowF64", NarrowF64(f, make([]float64, 9)), errs.ErrShape},
		{"WidenF32 overlap", WidenF32(unsafe.Slice((*float64)(unsafe.Pointer(&g[0])), 4), g[4:8]), errs.ErrValue},
		{"NarrowF64 overlap", NarrowF64(f[4:8], unsafe.Slice((*float64)(unsafe.Pointer(&f[0])), 4)), errs.ErrValue},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
}

// TestSumHalf checks SumHalf on every tier against Widen followed by Sum
// on that tier, bit for bit, and against the generic order (any NaN for a
// NaN), at every length of testLens and
// at an odd offset: random values of both half types, then every 16-bit
// pattern (infinities, NaNs with their payloads, binary16 signalling NaNs
// and subnormals) summed in runs that put them in every lane and tail.
func TestSumHalf(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	all := make([]uint16, 1<<16)
	for i := range all {
		all[i] = uint16(i)
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, n := range append(testLens, 100_003) {
				vals := make([]uint16, n+1)
				for i := range vals {
					// Finite values of both types: exponents around 1.
					vals[i] = uint16(0x3c00+r.IntN(0x0800)) ^ uint16(r.IntN(2))<<15
				}
				checkSumHalf(t, vals[1:], "random")
			}
			for _, n := range []int{1, 7, 9, 64, 2049} {
				for lo := 0; lo+n <= len(all); lo += 4093 {
					checkSumHalf(t, all[lo:lo+n], "patterns")
				}
			}
		})
	}
}

// checkSumHalf compares SumHalf of bits read as each half type with Sum of
// the values widened, on the active tier and on the generic one.
func checkSumHalf(t *testing.T, bits []uint16, what string) {
	t.Helper()
	wide := make([]float32, len(bits))
	bf := unsafe.Slice((*dtype.BFloat16)(unsafe.Pointer(unsafe.SliceData(bits))), len(bits))
	f16 := unsafe.Slice((*dtype.Float16)(unsafe.Pointer(unsafe.SliceData(bits))), len(bits))
	for _, c := range []struct {
		name  string
		sum   func() float32
		widen func() error
	}{
		{"bf16", func() float32 { return SumHalf(bf) }, func() error { return Widen(wide, bf) }},
		{"f16", func() float32 { return SumHalf(f16) }, func() error { return Widen(wide, f16) }},
	} {
		if err := c.widen(); err != nil {
			t.Fatal(err)
		}
		got, want := c.sum(), Sum(wide)
		var gen float32
		func() {
			defer useKernels(genericKernels)()
			gen = c.sum()
		}()
		// Implementations may pick different NaNs (as Sum's do); within
		// one, SumHalf gives Widen+Sum's bits.
		sameAcross := sameBits(gen, want) || (want != want && gen != gen)
		if !sameBits(got, want) || !sameAcross {
			t.Fatalf("%s %s n=%d (first %#04x): SumHalf %v (%#08x), generic %v, Widen+Sum %v (%#08x)", what, c.name, len(bits), bits[0],
				got, math.Float32bits(got), gen, want, math.Float32bits(want))
		}
	}
}

// TestWidenNarrowF32F64 checks WidenF32 and NarrowF64 on every tier
// against Go's conversions, bit for bit (NaN payloads, quieted, included):
// halfInputs widen, and float64 patterns narrow: every float32 of
// halfInputs widened and moved by -2..2 ulps of float64 and by half a
// float32 ulp (the ties), values past float32's range and in its
// subnormals, and random bits; at lengths and offsets that cover the
// unrolled loops, the one-vector loop and the Go tail.
func TestWidenNarrowF32F64(t *testing.T) {
	ws := halfInputs()
	var ns []float64
	r := rand.New(rand.NewPCG(8, 9))
	for i, v := range ws {
		if i%7 != 0 {
			continue
		}
		b := math.Float64bits(float64(v))
		for _, d := range []int64{-2, -1, 0, 1, 2, 1 << 28, -(1 << 28)} {
			ns = append(ns, math.Float64frombits(uint64(int64(b)+d)))
		}
		ns = append(ns, math.Float64frombits(r.Uint64()))
	}
	ns = append(ns, 3.5e38, 3.4028235677973366e38, 3.4028235677973362e38, -1e39, 1e-46, 7e-46, 1.4e-45, math.Inf(1), math.NaN())
	for _, k := range available() {
		restore := useKernels(k)
		for _, n := range append(testLens, len(ws)-3) {
			for _, off := range []int{0, 3} {
				if off+n > len(ws) || off+n > len(ns) {
					continue
				}
				wd := make([]float64, n)
				if err := WidenF32(wd, ws[off:off+n]); err != nil {
					t.Fatal(err)
				}
				for i, v := range ws[off : off+n] {
					if math.Float64bits(wd[i]) != math.Float64bits(float64(v)) {
						t.Fatalf("%s: WidenF32 n=%d: %#x -> %#x, want %#x", k.name, n, math.Float32bits(v), math.Float64bits(wd[i]), math.Float64bits(float64(v)))
					}
				}
				nd := make([]float32, n)
				if err := NarrowF64(nd, ns[off:off+n]); err != nil {
					t.Fatal(err)
				}
				for i, v := range ns[off : off+n] {
					if !sameBits(nd[i], float32(v)) {
						t.Fatalf("%s: NarrowF64 n=%d: %#x -> %#x, want %#x", k.name, n, math.Float64bits(v), math.Float32bits(nd[i]), math.Float32bits(float32(v)))
					}
				}
			}
		}
		restore()
	}
}
