package dtype_test

// F16 and BF16 conversions checked against an independent reference: every
// 16-bit pattern is decoded with math.Ldexp, the finite non-negative values
// are kept in a table sorted by pattern, and rounding a real x means finding
// the two table entries around |x| and comparing x with their exact midpoint
// (float64 holds every value and midpoint of both formats exactly). Ties go
// to the even pattern. Overflow is judged as IEEE 754 says: as if the
// exponent range were unbounded, so x rounds to Inf from the midpoint between
// the largest finite value and the next binade's first value on.

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/tessera-go/tessera/dtype"
)

// format describes a 16-bit binary float: 1 sign bit, expBits, manBits.
type format struct {
	name    string
	expBits uint
	manBits uint
	vals    []float64 // value of each finite non-negative pattern, by pattern
	beyond  float64   // the value after the largest finite one, in an unbounded exponent range
}

func newFormat(name string, expBits, manBits uint) *format {
	f := &format{name: name, expBits: expBits, manBits: manBits}
	inf := uint16((1<<expBits - 1) << manBits)
	for b := uint16(0); b < inf; b++ {
		f.vals = append(f.vals, f.decode(b))
	}
	bias := 1<<(expBits-1) - 1
	f.beyond = math.Ldexp(1, bias+1)
	return f
}

// decode is the definition of the format's value, written with Ldexp.
func (f *format) decode(b uint16) float64 {
	bias := 1<<(f.expBits-1) - 1
	sign := 1.0
	if b>>15 != 0 {
		sign = -1
	}
	e := int(b>>f.manBits) & (1<<f.expBits - 1)
	m := float64(b & (1<<f.manBits - 1))
	switch {
	case e == 1<<f.expBits-1 && m == 0:
		return math.Inf(int(sign))
	case e == 1<<f.expBits-1:
		return math.NaN()
	case e == 0: // subnormal: m * 2^(1-bias-manBits)
		return sign * math.Ldexp(m, 1-bias-int(f.manBits))
	}
	return sign * math.Ldexp(1+m/float64(int(1)<<f.manBits), e-bias)
}

func (f *format) infBits() uint16 { return uint16(len(f.vals)) }

func (f *format) isNaN(b uint16) bool { return b&0x7fff > f.infBits() }

// round is the reference rounding of x to the format, ties to even.
func (f *format) round(x float64) uint16 {
	if math.IsNaN(x) {
		panic("round(NaN)")
	}
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
	}
	a := math.Abs(x)
	// hi is the first pattern whose value exceeds a; the pattern after the
	// largest finite one is Inf, standing for f.beyond.
	val := func(i int) float64 {
		if i == len(f.vals) {
			return f.beyond
		}
		return f.vals[i]
	}
	if a >= f.beyond {
		return sign | f.infBits()
	}
	hi := sort.Search(len(f.vals)+1, func(i int) bool { return val(i) > a })
	lo := hi - 1
	if val(lo) == a {
		return sign | uint16(lo)
	}
	mid := (val(lo) + val(hi)) / 2
	switch {
	case a < mid:
		return sign | uint16(lo)
	case a > mid:
		return sign | uint16(hi)
	case lo%2 == 0:
		return sign | uint16(lo)
	}
	return sign | uint16(hi)
}

var (
	f16  = newFormat("f16", 5, 10)
	bf16 = newFormat("bf16", 8, 7)
)

// conv bundles the functions under test for one format.
type conv struct {
	f      *format
	from32 func(float32) uint16
	from64 func(float64) uint16
	to32   func(uint16) float32
}

var convs = []conv{
	{f16,
		func(x float32) uint16 { return uint16(dtype.F16FromFloat32(x)) },
		func(x float64) uint16 { return uint16(dtype.F16FromFloat64(x)) },
		func(b uint16) float32 { return dtype.Float16(b).Float32() }},
	{bf16,
		func(x float32) uint16 { return uint16(dtype.BF16FromFloat32(x)) },
		func(x float64) uint16 { return uint16(dtype.BF16FromFloat64(x)) },
		func(b uint16) float32 { return dtype.BFloat16(b).Float32() }},
}

// TestReferenceFormats pins the reference tables to known values, and
// cross-checks the reference rounding with math/big (whose exponent range is
// unbounded, so only normal results are compared).
func TestReferenceFormats(t *testing.T) {
	known := []struct {
		f    *format
		bits uint16
		want float64
	}{
		{f16, 0x3c00, 1},
		{f16, 0x3555, 0.333251953125},
		{f16, 0x7bff, 65504},
		{f16, 0x0400, math.Ldexp(1, -14)},
		{f16, 0x0001, math.Ldexp(1, -24)},
		{f16, 0x03ff, math.Ldexp(1023, -24)},
		{f16, 0xc000, -2},
		{bf16, 0x3f80, 1},
		{bf16, 0x4049, 3.140625},
		{bf16, 0x7f7f, math.Ldexp(255, 120)},
		{bf16, 0x0080, math.Ldexp(1, -126)},
		{bf16, 0x0001, math.Ldexp(1, -133)},
		{bf16, 0xbf80, -1},
	}
	for _, k := range known {
		if got := k.f.decode(k.bits); got != k.want {
			t.Errorf("%s %#04x decodes to %g, want %g", k.f.name, k.bits, got, k.want)
		}
	}
	if f16.beyond != 65536 || bf16.beyond != math.Ldexp(1, 128) {
		t.Errorf("beyond = %g, %g", f16.beyond, bf16.beyond)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, f := range []*format{f16, bf16} {
		bias := 1<<(f.expBits-1) - 1
		minNormal := math.Ldexp(1, 1-bias)
		for range 20000 {
			x := math.Ldexp(math.Abs(math.Float64frombits(0x3ff0000000000000|rng.Uint64()>>12)), rng.IntN(2*bias)-bias+1)
			if x < minNormal || x >= f.beyond {
				continue
			}
			b := new(big.Float).SetMode(big.ToNearestEven).SetPrec(f.manBits + 1).SetFloat64(x)
			want, _ := b.Float64()
			got := f.decode(f.round(x))
			if want == f.beyond {
				want = math.Inf(1)
			}
			if got != want {
				t.Errorf("%s: reference rounds %g to %g, math/big to %g", f.name, x, got, want)
			}
		}
	}
}

// TestWidenExhaustive checks Float32() of every bit pattern against the
// Ldexp decoding, and that rounding back gives the same pattern (NaN stays
// NaN, with its sign).
func TestWidenExhaustive(t *testing.T) {
	for _, c := range convs {
		for i := range 1 << 16 {
			b := uint16(i)
			w := c.to32(b)
			want := c.f.decode(b)
			switch {
			case c.f.isNaN(b):
				if !math.IsNaN(float64(w)) || math.Signbit(float64(w)) != (b>>15 != 0) {
					t.Fatalf("%s %#04x widens to %v, want NaN with its sign", c.f.name, b, w)
				}
				back := c.from32(w)
				if !c.f.isNaN(back) || back>>15 != b>>15 {
					t.Fatalf("%s NaN %#04x comes back as %#04x", c.f.name, b, back)
				}
				if back64 := c.from64(float64(w)); !c.f.isNaN(back64) {
					t.Fatalf("%s NaN %#04x comes back from float64 as %#04x", c.f.name, b, back64)
				}
				continue
			case float64(w) != want || math.Signbit(float64(w)) != math.Signbit(want):
				t.Fatalf("%s %#04x widens to %g, want %g", c.f.name, b, w, want)
			}
			if back := c.from32(w); back != b {
				t.Fatalf("%s %#04x -> %g -> %#04x", c.f.name, b, w, back)
			}
			if back := c.from64(float64(w)); back != b {
				t.Fatalf("%s %#04x -> %g (float64) -> %#04x", c.f.name, b, w, back)
			}
		}
	}
}

// checkRound32 compares the conversion of x with the reference.
func checkRound32(t *testing.T, c conv, x float32) {
	t.Helper()
	got := c.from32(x)
	if math.IsNaN(float64(x)) {
		if !c.f.isNaN(got) || got>>15 != uint16(math.Float32bits(x)>>31) {
			t.Fatalf("%s: NaN %#08x rounds to %#04x", c.f.name, math.Float32bits(x), got)
		}
		return
	}
	if want := c.f.round(float64(x)); got != want {
		t.Fatalf("%s: %g (%#08x) rounds to %#04x (%g), want %#04x (%g)",
			c.f.name, x, math.Float32bits(x), got, c.f.decode(got), want, c.f.decode(want))
	}
}

// TestRoundFloat32 checks float32 rounding on a dense sample: a stride
// through all 2^32 patterns, every 16-bit value with its float32 neighbours,
// every midpoint between neighbouring 16-bit values and the float32 values
// next to it, the overflow and underflow thresholds, and float32 subnormals.
func TestRoundFloat32(t *testing.T) {
	for _, c := range convs {
		// A stride through every float32 bit pattern (about 1M values).
		step := uint64(4099)
		if testing.Short() {
			step = 40009
		}
		for b := uint64(0); b < 1<<32; b += step {
			checkRound32(t, c, math.Float32frombits(uint32(b)))
		}
		// Each 16-bit value, each midpoint and their float32 neighbours.
		n := len(c.f.vals)
		for i := 0; i < n; i++ {
			v := c.f.vals[i]
			next := c.f.beyond
			if i+1 < n {
				next = c.f.vals[i+1]
			}
			mid := (v + next) / 2
			for _, x := range []float64{v, mid} {
				x32 := float32(x)
				if float64(x32) != x {
					t.Fatalf("%s: %g is not a float32", c.f.name, x)
				}
				for _, y := range []float32{
					x32, math.Nextafter32(x32, 0), math.Nextafter32(x32, math.MaxFloat32),
					math.Nextafter32(math.Nextafter32(x32, 0), 0),
					math.Nextafter32(math.Nextafter32(x32, math.MaxFloat32), math.MaxFloat32),
				} {
					checkRound32(t, c, y)
					checkRound32(t, c, -y)
				}
			}
		}
		// Thresholds and specials.
		for _, x := range []float32{
			0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
			float32(math.NaN()), math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00000),
			math.Float32frombits(0x7f80ffff), math.Float32frombits(0x7fffffff),
			math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
			math.Float32frombits(0x007fffff), math.Float32frombits(0x00800000),
			65504, 65519, 65519.998, 65520, 65520.004, 65535, 65536, 1e10,
			0x1p-24, 0x1p-25, 0x1.000002p-25, 0x1.fffffep-26, 0x1.8p-24, 0x1p-26, 0x1p-14, 0x1.ff8p-15,
		} {
			checkRound32(t, c, x)
			checkRound32(t, c, -x)
		}
		// Every float32 subnormal pattern that matters to bf16 rounding:
		// the low 16 bits around the tie for each of the 128 upper halves.
		for hi := uint32(0); hi < 0x80; hi++ {
			for _, lo := range []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff} {
				checkRound32(t, c, math.Float32frombits(hi<<16|lo))
			}
		}
	}
}

// TestRoundFloat32Ties pins a few rounding cases by hand.
func TestRoundFloat32Ties(t *testing.T) {
	tests := []struct {
		x    float32
		f16  uint16
		bf16 uint16
	}{
		{1, 0x3c00, 0x3f80},
		{1 + 0x1p-11, 0x3c00, 0x3f80},                   // f16 tie, 0x3c00 even
		{1 + 3*0x1p-11, 0x3c02, 0x3f80},                 // f16 tie, 0x3c01 odd -> up
		{1 + 0x1p-8, 0x3c04, 0x3f80},                    // bf16 tie, even below
		{1 + 3*0x1p-8, 0x3c0c, 0x3f82},                  // bf16 tie, odd below -> up
		{65504, 0x7bff, 0x4780},                         // f16 max; bf16 rounds 65504 to 65536
		{65519, 0x7bff, 0x4780},                         // just below the f16 overflow tie
		{65520, 0x7c00, 0x4780},                         // the tie goes to Inf (even)
		{0x1p-24, 0x0001, 0x3380},                       // smallest f16 subnormal
		{0x1p-25, 0x0000, 0x3300},                       // tie between 0 and 2^-24 -> 0
		{0x1.000002p-25, 0x0001, 0x3300},                // just above the tie
		{3 * 0x1p-25, 0x0002, 0x33c0},                   // tie between 1 and 2 ulps -> 2
		{-0x1p-26, 0x8000, 0xb280},                      // underflow keeps the sign
		{math.MaxFloat32, 0x7c00, 0x7f80},               // bf16 overflows from MaxFloat32
		{0x1.fefffep127, 0x7c00, 0x7f7f},                // below the bf16 overflow tie
		{0x1.ffp127, 0x7c00, 0x7f80},                    // the bf16 overflow tie -> Inf
		{0x1p-149, 0x0000, 0x0000},                      // far below half the smallest subnormal
		{0x1.8p-133, 0x0000, 0x0002},                    // bf16 subnormal tie, odd -> up
		{float32(math.Inf(-1)), 0xfc00, 0xff80},         // -Inf
		{float32(math.Copysign(0, -1)), 0x8000, 0x8000}, // -0
	}
	for _, tc := range tests {
		if got := uint16(dtype.F16FromFloat32(tc.x)); got != tc.f16 {
			t.Errorf("F16FromFloat32(%g) = %#04x, want %#04x", tc.x, got, tc.f16)
		}
		if got := uint16(dtype.BF16FromFloat32(tc.x)); got != tc.bf16 {
			t.Errorf("BF16FromFloat32(%g) = %#04x, want %#04x", tc.x, got, tc.bf16)
		}
		if want := f16.round(float64(tc.x)); want != tc.f16 {
			t.Errorf("reference f16 round(%g) = %#04x, table says %#04x", tc.x, want, tc.f16)
		}
		if want := bf16.round(float64(tc.x)); want != tc.bf16 {
			t.Errorf("reference bf16 round(%g) = %#04x, table says %#04x", tc.x, want, tc.bf16)
		}
	}
}

// TestRoundFloat64NoDoubleRounding puts float64 values just above and just
// below every midpoint between neighbouring 16-bit values. Through float32
// they would land on the midpoint and then tie to even, the wrong way half
// the time; F16FromFloat64 and BF16FromFloat64 must round in one step.
func TestRoundFloat64NoDoubleRounding(t *testing.T) {
	for _, c := range convs {
		trapped := 0 // cases where rounding through float32 is wrong
		n := len(c.f.vals)
		for i := 0; i < n; i++ {
			lo := c.f.vals[i]
			hi := c.f.beyond
			if i+1 < n {
				hi = c.f.vals[i+1]
			}
			mid := (lo + hi) / 2
			for _, x := range []float64{
				mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1)),
				mid + (hi-lo)*0x1p-30, mid - (hi-lo)*0x1p-30,
			} {
				for _, y := range []float64{x, -x} {
					want := c.f.round(y)
					if got := c.from64(y); got != want {
						t.Fatalf("%s: %v (%#016x) rounds to %#04x (%g), want %#04x (%g)",
							c.f.name, y, math.Float64bits(y), got, c.f.decode(got), want, c.f.decode(want))
					}
					if c.from32(float32(y)) != want {
						trapped++
					}
				}
			}
		}
		// The trap is real: about a quarter of the cases above.
		if trapped < n/2 {
			t.Errorf("%s: only %d double-rounding traps among the test values", c.f.name, trapped)
		}
	}
}

// TestRoundFloat64 checks random float64 values across and beyond each
// format's range, and float64 specials.
func TestRoundFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	count := 300000
	if testing.Short() {
		count = 30000
	}
	for _, c := range convs {
		bias := 1<<(c.f.expBits-1) - 1
		for range count {
			// A random significand at a random exponent a little beyond the
			// format's range on both sides; sometimes a random bit pattern.
			x := math.Float64frombits(rng.Uint64())
			if rng.IntN(8) != 0 {
				x = math.Ldexp(math.Float64frombits(0x3ff0000000000000|rng.Uint64()>>12), rng.IntN(2*bias+int(c.f.manBits)+8)-bias-int(c.f.manBits)-4)
				if rng.IntN(2) == 0 {
					x = -x
				}
			}
			if math.IsNaN(x) {
				if got := c.from64(x); !c.f.isNaN(got) {
					t.Fatalf("%s: NaN rounds to %#04x", c.f.name, got)
				}
				continue
			}
			want := c.f.round(x)
			if got := c.from64(x); got != want {
				t.Fatalf("%s: %v (%#016x) rounds to %#04x, want %#04x", c.f.name, x, math.Float64bits(x), got, want)
			}
		}
		for _, x := range []float64{
			0, math.Copysign(0, -1), 1e300, -1e300, 1e-300, -1e-300, math.MaxFloat64,
			math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1),
			math.MaxFloat32, math.Nextafter(math.MaxFloat32, math.Inf(1)), 0x1p128, 0x1.ffp127,
			math.Nextafter(0x1.ffp127, 0), math.Nextafter(0x1.ffp127, math.Inf(1)),
			65520, math.Nextafter(65520, 0), math.Nextafter(65520, 1e6), 0x1p-25,
			math.Nextafter(0x1p-25, 0), math.Nextafter(0x1p-25, 1), 0x1p-150, 0x1p-134,
		} {
			for _, y := range []float64{x, -x} {
				if got, want := c.from64(y), c.f.round(y); got != want {
					t.Errorf("%s: %v rounds to %#04x, want %#04x", c.f.name, y, got, want)
				}
			}
		}
		if got := c.from64(math.NaN()); !c.f.isNaN(got) {
			t.Errorf("%s: NaN rounds to %#04x", c.f.name, got)
		}
	}
}
