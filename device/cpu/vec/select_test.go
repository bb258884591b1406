package vec

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tessera-go/tessera/errs"
)

// selectLengths cover the vector kernels' unrolled loops (64 32-bit
// elements on AVX-512), single vectors and the Go tails.
var selectLengths = []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 1000}

// TestSelect checks Select, SelectElse and SelectThen on every kernel set
// and element width against an if/else reference, with condition bytes
// other than 0 and 1 (any nonzero byte selects a), in place (dst is a or
// b) and with a guard past the end that must stay untouched.
func TestSelect(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			t.Run("8", func(t *testing.T) { checkSelect[uint8](t) })
			t.Run("16", func(t *testing.T) { checkSelect[uint16](t) })
			t.Run("32", func(t *testing.T) { checkSelect[uint32](t) })
			t.Run("64", func(t *testing.T) { checkSelect[uint64](t) })
			t.Run("int8", func(t *testing.T) { checkSelect[int8](t) })
			t.Run("int32", func(t *testing.T) { checkSelect[int32](t) })
			t.Run("int64", func(t *testing.T) { checkSelect[int64](t) })
		})
	}
}

func checkSelect[T Word](t *testing.T) {
	const guard = 5
	pattern := uint64(0xA5A5A5A5A5A5A5A5)
	for _, n := range selectLengths {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		c := make([]uint8, n)
		a, b := make([]T, n), make([]T, n)
		for i := range c {
			switch rng.IntN(4) {
			case 0, 1:
				c[i] = 0
			case 2:
				c[i] = 1
			default:
				c[i] = uint8(1 + rng.IntN(255))
			}
			a[i], b[i] = T(rng.Uint64()), T(rng.Uint64())
		}
		s := T(rng.Uint64())
		want := func(form string, i int) T {
			x, y := a[i], b[i]
			switch form {
			case "Else":
				y = s
			case "Then":
				x = s
			}
			if c[i] != 0 {
				return x
			}
			return y
		}
		fresh := func() []T {
			buf := make([]T, n+guard)
			for i := range buf {
				buf[i] = T(pattern)
			}
			return buf
		}
		check := func(form, how string, buf []T) {
			t.Helper()
			for i := range n {
				if w := want(form, i); buf[i] != w {
					t.Fatalf("Select%s%s n=%d: [%d] = %#x, want %#x (c=%d)", form, how, n, i, buf[i], w, c[i])
				}
			}
			for i := n; i < len(buf); i++ {
				if buf[i] != T(pattern) {
					t.Fatalf("Select%s%s n=%d: wrote past the end at %d", form, how, n, i)
				}
			}
		}
		run := func(form string, dst, a, b []T) error {
			switch form {
			case "Else":
				return SelectElse(dst, c, a, s)
			case "Then":
				return SelectThen(dst, c, s, b)
			}
			return Select(dst, c, a, b)
		}
		for _, form := range []string{"", "Else", "Then"} {
			buf := fresh()
			if err := run(form, buf[:n], a, b); err != nil {
				t.Fatal(err)
			}
			check(form, "", buf)
			// In place: the row the form reads becomes dst.
			in := append(fresh()[:0], a...)
			in = append(in, fresh()[n:]...)
			if form == "Then" {
				in = append(append(fresh()[:0], b...), fresh()[n:]...)
			}
			var err error
			switch form {
			case "Then":
				err = run(form, in[:n], a, in[:n])
			default:
				err = run(form, in[:n], in[:n], b)
			}
			if err != nil {
				t.Fatal(err)
			}
			check(form, " in place", in)
		}
	}
}

// TestSelectNamedTypes checks that a named type over a Word (as
// dtype.BFloat16 is over uint16) selects like its underlying type.
func TestSelectNamedTypes(t *testing.T) {
	type bits32 uint32
	dst := make([]bits32, 20)
	a, b := make([]bits32, 20), make([]bits32, 20)
	c := make([]uint8, 20)
	for i := range a {
		a[i], b[i], c[i] = bits32(i), bits32(100+i), uint8(i%3)
	}
	if err := Select(dst, c, a, b); err != nil {
		t.Fatal(err)
	}
	for i, v := range dst {
		w := b[i]
		if c[i] != 0 {
			w = a[i]
		}
		if v != w {
			t.Fatalf("[%d] = %d, want %d", i, v, w)
		}
	}
}

// TestSelectFloatBits checks that float rows are moved bit for bit: NaN
// payloads and -0 come through, on every set.
func TestSelectFloatBits(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			const n = 37
			a32, b32, d32 := make([]float32, n), make([]float32, n), make([]float32, n)
			a64, b64, d64 := make([]float64, n), make([]float64, n), make([]float64, n)
			c := make([]uint8, n)
			for i := range c {
				c[i] = uint8(i % 2)
				a32[i] = math.Float32frombits(0x7fc00000 | uint32(i)) // NaN, payload i
				b32[i] = float32(math.Copysign(0, -1))
				a64[i] = math.Float64frombits(0xfff8000000000000 | uint64(i))
				b64[i] = math.Copysign(0, -1)
			}
			if err := Select(d32, c, a32, b32); err != nil {
				t.Fatal(err)
			}
			if err := Select(d64, c, a64, b64); err != nil {
				t.Fatal(err)
			}
			for i := range c {
				w32, w64 := b32[i], b64[i]
				if c[i] != 0 {
					w32, w64 = a32[i], a64[i]
				}
				if math.Float32bits(d32[i]) != math.Float32bits(w32) || math.Float64bits(d64[i]) != math.Float64bits(w64) {
					t.Fatalf("[%d]: %#x %#x, want %#x %#x", i, math.Float32bits(d32[i]), math.Float64bits(d64[i]), math.Float32bits(w32), math.Float64bits(w64))
				}
			}
		})
	}
}

// TestSelectErrors checks the typed errors of rows of other lengths.
func TestSelectErrors(t *testing.T) {
	dst, c := make([]uint32, 4), make([]uint8, 4)
	cases := []struct {
		name string
		err  error
	}{
		{"short cond", Select(dst, c[:3], make([]uint32, 4), make([]uint32, 4))},
		{"long a", Select(dst, c, make([]uint32, 5), make([]uint32, 4))},
		{"short b", Select(dst, c, make([]uint32, 4), make([]uint32, 3))},
		{"else short a", SelectElse(make([]uint64, 4), c, make([]uint64, 2), 1)},
		{"else short cond", SelectElse(dst, c[:1], make([]uint32, 4), 1)},
		{"then long b", SelectThen(make([]uint16, 4), c, 1, make([]uint16, 9))},
		{"then short cond", SelectThen(dst, c[:2], 1, make([]uint32, 4))},
	}
	for _, tc := range cases {
		if !errors.Is(tc.err, errs.ErrShape) {
			t.Errorf("%s: %v, want ErrShape", tc.name, tc.err)
		}
	}
	// Overlaps other than dst being a row (or cond, for bytes) itself.
	buf := make([]uint32, 9)
	bytes := make([]uint8, 9)
	wide := make([]uint32, 4)
	overlaps := []struct {
		name string
		err  error
	}{
		{"dst shifted over a", Select(buf[1:5], c, buf[0:4], make([]uint32, 4))},
		{"dst shifted over b", SelectElse(buf[0:4], c, buf[2:6], 0)},
		{"dst shifted over b (then)", SelectThen(buf[3:7], c, 0, buf[4:8])},
		{"dst over cond", Select(bytes[1:5], bytes[0:4], make([]uint8, 4), make([]uint8, 4))},
		{"wide dst over cond", Select(wide, unsafe.Slice((*uint8)(unsafe.Pointer(&wide[0])), 4), make([]uint32, 4), make([]uint32, 4))},
	}
	for _, tc := range overlaps {
		if !errors.Is(tc.err, errs.ErrValue) {
			t.Errorf("%s: %v, want ErrValue", tc.name, tc.err)
		}
	}
	if err := Select(bytes[:4], bytes[:4], make([]uint8, 4), make([]uint8, 4)); err != nil {
		t.Errorf("dst == cond for bytes: %v", err)
	}
}

// ExampleSelect picks from two rows by a mask, as NumPy's where.
func ExampleSelect() {
	a := []float32{1, 2, 3, 4}
	b := []float32{-1, -2, -3, -4}
	cond := []uint8{1, 0, 0, 1}
	dst := make([]float32, 4)
	if err := Select(dst, cond, a, b); err != nil {
		fmt.Println(err)
	}
	fmt.Println(dst)
	// Output: [1 -2 -3 4]
}

// TestReverse checks Reverse on every kernel set and element width (1, 2,
// 4 and 8 bytes, the floats with NaN payloads and -0 moved as bits) on
// lengths that cover whole vectors of either tier, the unrolled loop and
// the Go tail, with a guard past the end; and the errors, overlap
// included.
func TestReverse(t *testing.T) {
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			checkReverse(t, func(i int) uint8 { return uint8(i*7 + 1) })
			checkReverse(t, func(i int) uint16 { return uint16(i*977 + 3) })
			checkReverse(t, func(i int) float32 { return math.Float32frombits(0x7fc00000 | uint32(i)*2654435761) })
			checkReverse(t, func(i int) float64 {
				if i%5 == 0 {
					return math.Copysign(0, -1)
				}
				return math.Float64frombits(0x7ff8000000000000 | uint64(i)*0x9E3779B97F4A7C15>>13)
			})
		})
	}
	if err := Reverse(make([]float32, 3), make([]float32, 4)); !errors.Is(err, errs.ErrShape) {
		t.Errorf("lengths: %v, want ErrShape", err)
	}
	buf := make([]uint32, 40)
	if err := Reverse(buf, buf); !errors.Is(err, errs.ErrValue) {
		t.Errorf("same slice: %v, want ErrValue", err)
	}
	if err := Reverse(buf[20:], buf[:20]); err != nil {
		t.Errorf("adjacent halves: %v", err)
	}
}

func checkReverse[T Word](t *testing.T, val func(int) T) {
	t.Helper()
	for _, n := range []int{0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000} {
		x := make([]T, n)
		for i := range x {
			x[i] = val(i)
		}
		dst := make([]T, n+1)
		guard := val(n + 12345)
		dst[n] = guard
		if err := Reverse(dst[:n], x); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if !sameWord(dst[i], x[n-1-i]) {
				t.Fatalf("%T n=%d: element %d = %v, want %v", x, n, i, dst[i], x[n-1-i])
			}
		}
		if !sameWord(dst[n], guard) {
			t.Fatalf("%T n=%d: wrote past the end", x, n)
		}
	}
}

// sameWord reports whether a and b have the same bits.
func sameWord[T Word](a, b T) bool {
	bytes := func(v *T) string { return string(unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))) }
	return bytes(&a) == bytes(&b)
}
