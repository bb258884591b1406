package gemm

import "unsafe"

// genericKernels returns the portable Go kernel set: a 2x4 register tile,
// small enough that the compiler keeps the accumulators in registers.
func genericKernels[T float]() *kernels[T] {
	return &kernels[T]{
		mr: 2, nr: 4,
		mc: 128, kc: 256, nc: 2048,
		skinnyM: 2, skinnyN: 4,
		micro: microGeneric[T],
		pack:  packPanel[T],
		axpy:  axpyGeneric[T],
		dot:   dotGeneric[T],
		dot4:  dot4Generic[T],
		axpy4: axpy4Generic[T],
	}
}

// microGeneric is the portable 2x4 micro-kernel: C = alpha*A*B + beta*C for
// one 2x4 tile, A packed 2 and B 4 values per step. Eight accumulators plus
// the six operands fit the 15 floating-point registers Go allocates on
// amd64; a larger tile spills.
func microGeneric[T float](k int, a, b, c *T, ldc int, alpha, beta T) {
	ap := unsafe.Slice(a, 2*k)
	bp := unsafe.Slice(b, 4*k)
	var c00, c01, c02, c03 T
	var c10, c11, c12, c13 T
	for len(ap) >= 2 && len(bp) >= 4 {
		a0, a1 := ap[0], ap[1]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		ap, bp = ap[2:], bp[4:]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
	}
	cs := unsafe.Slice(c, ldc+4)
	storeRow4(cs[0:4:4], c00, c01, c02, c03, alpha, beta)
	storeRow4(cs[ldc:ldc+4:ldc+4], c10, c11, c12, c13, alpha, beta)
}

// storeRow4 writes alpha*x + beta*row into a 4-value row, without reading
// the row when beta is 0.
func storeRow4[T float](row []T, x0, x1, x2, x3, alpha, beta T) {
	if beta == 0 {
		row[0], row[1], row[2], row[3] = alpha*x0, alpha*x1, alpha*x2, alpha*x3
		return
	}
	row[0] = alpha*x0 + beta*row[0]
	row[1] = alpha*x1 + beta*row[1]
	row[2] = alpha*x2 + beta*row[2]
	row[3] = alpha*x3 + beta*row[3]
}

// axpyGeneric computes y[i] += alpha*x[i] for i < n.
func axpyGeneric[T float](n int, alpha T, x, y *T) {
	xs := unsafe.Slice(x, n)
	ys := unsafe.Slice(y, n)
	for i, v := range xs {
		ys[i] += alpha * v
	}
}

// dotGeneric returns sum x[i]*y[i] for i < n, with four partial sums to
// shorten the dependency chain.
func dotGeneric[T float](n int, x, y *T) T {
	xs := unsafe.Slice(x, n)
	ys := unsafe.Slice(y, n)
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += xs[i] * ys[i]
		s1 += xs[i+1] * ys[i+1]
		s2 += xs[i+2] * ys[i+2]
		s3 += xs[i+3] * ys[i+3]
	}
	for ; i < n; i++ {
		s0 += xs[i] * ys[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dot4Generic computes out[r] = sum_i x[i]*y[r*ldy+i] for r < 4, i < n.
func dot4Generic[T float](n int, x, y *T, ldy int, out *[4]T) {
	xs := unsafe.Slice(x, n)
	ys := unsafe.Slice(y, 3*ldy+n)
	y0, y1, y2, y3 := ys[:n], ys[ldy:ldy+n], ys[2*ldy:2*ldy+n], ys[3*ldy:3*ldy+n]
	var s0, s1, s2, s3 T
	for i, v := range xs {
		s0 += v * y0[i]
		s1 += v * y1[i]
		s2 += v * y2[i]
		s3 += v * y3[i]
	}
	*out = [4]T{s0, s1, s2, s3}
}

// axpy4Generic computes y[i] += sum_r s[r]*x[r*ldx+i] for r < 4, i < n.
func axpy4Generic[T float](n int, s *[4]T, x *T, ldx int, y *T) {
	xs := unsafe.Slice(x, 3*ldx+n)
	ys := unsafe.Slice(y, n)
	x0, x1, x2, x3 := xs[:n], xs[ldx:ldx+n], xs[2*ldx:2*ldx+n], xs[3*ldx:3*ldx+n]
	s0, s1, s2, s3 := s[0], s[1], s[2], s[3]
	for i := range ys {
		ys[i] += s0*x0[i] + s1*x1[i] + s2*x2[i] + s3*x3[i]
	}
}
