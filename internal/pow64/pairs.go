package pow64

import (
	"math"
	"math/rand/v2"
)

// SampleKinds names the kinds of operand pairs SamplePairs draws.
var SampleKinds = []string{"wide", "range", "near1", "bins", "subnormal", "integer", "negative", "huge"}

// SamplePairs returns n operand pairs of the kind named, the cases where
// a power loses accuracy, for this package's accuracy test and vec's
// checks of its kernels against Pow: "wide" (x over 2^±60, y normal with
// deviation 4), "range" (y such that y*ln x spans [-745.5, 710]:
// subnormal results and overflow included), "near1" (x within about
// 2^-20 of 1, y large), "bins" (x within 1/32 of 1, where the log has no
// table term and r is largest, y*ln x over the range), "subnormal"
// (subnormal x), "integer" (small integer y) and "negative" (negative x
// with integer y of both parities, up to and past 2^53, or y an integer
// and a half) and "huge" (|y| from 1e10 to 1e300, x away from 1, whose
// powers are 0 or +Inf).
func SamplePairs(r *rand.Rand, kind string, n int) (xs, ys []float64) {
	for range n {
		var x, y float64
		switch kind {
		case "wide":
			x, y = math.Ldexp(r.Float64()+0.5, r.IntN(120)-60), r.NormFloat64()*4
		case "range":
			x = math.Ldexp(r.Float64()+0.5, r.IntN(40)-20)
			if x == 1 {
				x = 3
			}
			y = (r.Float64()*1455.5 - 745.5) / math.Log(x)
		case "near1":
			x = 1 + r.NormFloat64()*0x1p-20
			y = (r.Float64()*1440 - 730) / math.Log(x)
		case "bins":
			x = 1 + r.Float64()*0.0518 - 0.0205
			if x == 1 {
				x = 1.03
			}
			y = (r.Float64()*1455.5 - 745.5) / math.Log(x)
		case "subnormal":
			x, y = math.Ldexp(r.Float64()+0.5, -1030-r.IntN(44)), -r.Float64()*0.99
		case "integer":
			x, y = math.Ldexp(r.Float64()+0.5, r.IntN(20)-10), float64(r.IntN(41)-20)
		case "negative":
			x, y = -math.Ldexp(r.Float64()+0.5, r.IntN(20)-10), float64(r.IntN(41)-20)
			switch r.IntN(4) {
			case 0:
				y += 0.5 // not an integer: NaN
			case 1:
				x, y = -1-r.Float64()*0x1p-40, float64(1<<53+2*r.IntN(1000)) // even, beyond odd integers
			case 2:
				x, y = -1-r.Float64()*0x1p-40, float64(1<<53-1-2*r.IntN(1000)) // odd, near the last ones
			}
		case "huge":
			x = math.Ldexp(r.Float64()+0.5, r.IntN(40)-20)
			if math.Abs(x-1) < 0.01 {
				x = 0.25
			}
			y = math.Pow(10, 10+r.Float64()*290)
			if r.IntN(2) == 0 {
				y = -y
			}
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	return xs, ys
}

// NearFloat32Tie reports whether w, positive and in float32's normal
// range, lies within rel*w of a float32 tie (the midpoint of two adjacent
// float32 values) without being one: where a float32 power computed to a
// relative error of rel may round either way, as vec's float32 Pow, whose
// tests and users' ask.
func NearFloat32Tie(w, rel float64) bool {
	r := float32(w)
	if !(w >= 0x1p-126 && r <= math.MaxFloat32) {
		return false
	}
	toward := float32(math.Inf(1))
	if float64(r) > w {
		toward = 0
	}
	mid := (float64(r) + float64(math.Nextafter32(r, toward))) / 2
	return w != mid && math.Abs(w-mid) <= rel*w
}
