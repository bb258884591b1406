package vec

import "math"

// Exp2 sets dst[i] = 2^x[i] (math.Exp2). For float32 the AVX-512 set has
// a kernel of its own (exp's core on x - round(x), within 0.89 ulp), the
// AVX2 set computes float64 e^(x*ln2) and rounds once; float64 is package
// math's on every set.
func Exp2[T Float](dst, x []T) error { return unary("Exp2", unExp2, dst, x) }

// Exp2Half sets dst[i] = 2^x[i] as ExpHalf computes Exp (one pass on
// the AVX-512 set, through float32 blocks on the others).
func Exp2Half[H Half](dst, x []H) error { return unaryHalf("Exp2Half", unExp2, dst, x) }

// Sinh sets dst[i] to the hyperbolic sine of x[i] (math.Sinh). For
// float32 the vector sets have kernels in float64 lanes (e^|x| and
// e^-|x| from one reduction, the odd series alone below |x| = ln2/2, the
// sign of x copied, rounded once); float64 is package math's.
func Sinh[T Float](dst, x []T) error { return unary("Sinh", unSinh, dst, x) }

// Cosh sets dst[i] to the hyperbolic cosine of x[i] (math.Cosh), for
// float32 as Sinh computes it, from the same two exponentials.
func Cosh[T Float](dst, x []T) error { return unary("Cosh", unCosh, dst, x) }

// exp2Via64 returns a float32 Exp2 built on a set's float64 exp kernel, a
// block at a time: each float32 input is widened and multiplied by ln2,
// the float64 kernel runs on the block, and the result is rounded once.
// The float64 error (the kernel's at most 2 ulp, the rounded argument
// 2^-46 relative) is below a millionth of a float32 ulp, so the result is
// the exact value correctly rounded except that close to a tie: within
// 0.51 ulp (TestAccuracyF32).
func exp2Via64(exp func(dst, x []float64)) func(dst, x []float32) {
	return func(dst, x []float32) {
		blocks := f64Blocks.Get().(*[2][f64Block]float64)
		defer f64Blocks.Put(blocks)
		for len(x) > 0 {
			n := min(len(x), f64Block)
			w, xn, dn := blocks[0][:n], x[:n], dst[:n]
			for i, v := range xn {
				// Where 2^x is finite and nonzero, |x*ln2| < 104, so its
				// rounding costs at most 2^-46 relative.
				w[i] = float64(v) * math.Ln2
			}
			exp(w, w)
			for i := range xn {
				dn[i] = float32(w[i])
			}
			x, dst = x[n:], dst[n:]
		}
	}
}
