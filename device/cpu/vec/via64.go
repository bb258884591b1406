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
// float32 the vector sets compute (E - 1/E)/2 with E = e^|x| in float64
// (its odd series below |x| = 2^-8, where the difference would cancel),
// the sign of x copied, rounded once; float64 is package math's.
func Sinh[T Float](dst, x []T) error { return unary("Sinh", unSinh, dst, x) }

// Cosh sets dst[i] to the hyperbolic cosine of x[i] (math.Cosh), for
// float32 as (E + 1/E)/2 with E = e^|x| in float64, rounded once.
func Cosh[T Float](dst, x []T) error { return unary("Cosh", unCosh, dst, x) }

// via64 returns the float32 kernel of op (unExp2, unSinh or unCosh) built
// on a set's float64 exp and log
// kernels, a block at a time: each float32 input is widened, the float64
// kernel runs on the block, and the result is corrected and rounded once.
// The float64 error (the kernels' at most 2 ulp, Exp2's rounded argument
// 2^-46 relative) is below a millionth of a float32 ulp, so the result is
// the exact value correctly rounded except that close to a tie: within
// 0.51 ulp (TestAccuracyF32).
func via64(op unOp, exp, log func(dst, x []float64)) func(dst, x []float32) {
	return func(dst, x []float32) { via64Run(op, dst, x, exp, log) }
}

func via64Run(op unOp, dst, x []float32, exp, log func(dst, x []float64)) {
	blocks := f64Blocks.Get().(*[2][f64Block]float64)
	defer f64Blocks.Put(blocks)
	for len(x) > 0 {
		n := min(len(x), f64Block)
		w, xn, dn := blocks[0][:n], x[:n], dst[:n]
		switch op {
		case unExp2:
			for i, v := range xn {
				// Where 2^x is finite and nonzero, |x*ln2| < 104, so its
				// rounding costs at most 2^-46 relative.
				w[i] = float64(v) * math.Ln2
			}
			exp(w, w)
			for i := range xn {
				dn[i] = float32(w[i])
			}
		case unSinh, unCosh:
			for i, v := range xn {
				w[i] = math.Abs(float64(v))
			}
			exp(w, w)
			for i, v := range xn {
				y, e := float64(v), w[i]
				switch {
				case op == unCosh:
					w[i] = (e + 1/e) / 2
				case math.Abs(y) < 0x1p-8:
					// y + y^3/6 + y^5/120 + y^7/5040: y^8/362880 < 2^-82.
					y2 := y * y
					w[i] = y * (1 + y2*(1.0/6+y2*(1.0/120+y2*(1.0/5040))))
				default:
					w[i] = math.Copysign((e-1/e)/2, y)
				}
				dn[i] = float32(w[i])
			}
		}
		x, dst = x[n:], dst[n:]
	}
}
