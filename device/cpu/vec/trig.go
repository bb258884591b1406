package vec

// Sin sets dst[i] = sin(x[i]) (math.Sin). For float32 the vector sets
// reduce x by pi/2 and evaluate the series in float64 lanes, rounding once
// (the exact value correctly rounded but within about 2^-12 ulp of a tie,
// so at most 0.501 ulp off), and hand |x| >= 2^30 to package math;
// float64 is package math's on every set.
func Sin[T Float](dst, x []T) error { return unary("Sin", unSin, dst, x) }

// Cos sets dst[i] = cos(x[i]) (math.Cos), as Sin computes the sine.
func Cos[T Float](dst, x []T) error { return unary("Cos", unCos, dst, x) }

// Tan sets dst[i] = tan(x[i]) (math.Tan), for float32 as the quotient of
// Sin's two series in float64, rounded once, as Sin computes the sine.
func Tan[T Float](dst, x []T) error { return unary("Tan", unTan, dst, x) }

// Asin sets dst[i] = asin(x[i]) (math.Asin; NaN outside [-1, 1]). For
// float32 the vector sets compute in float64 lanes a polynomial of |x|
// below 1/2 and of sqrt((1-|x|)/2) above it (asin |x| = pi/2 - 2 asin of
// that), rounding once (at most 0.501 ulp off); float64 is package math's
// on every set.
func Asin[T Float](dst, x []T) error { return unary("Asin", unAsin, dst, x) }

// Acos sets dst[i] = acos(x[i]) (math.Acos), for float32 from Asin's
// polynomial: pi/2 - asin x below 1/2 in magnitude, 2 asin(sqrt((1-x)/2))
// above (pi minus that for negative x).
func Acos[T Float](dst, x []T) error { return unary("Acos", unAcos, dst, x) }

// Atan sets dst[i] = atan(x[i]) (math.Atan), for float32 in float64 lanes:
// one reducing division to |t| <= tan(pi/8) and a series, rounded once.
func Atan[T Float](dst, x []T) error { return unary("Atan", unAtan, dst, x) }
