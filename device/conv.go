package device

// Conv2dParams are the hyper-parameters of a Convolver's Conv2d, all
// normalised: strides and dilations at least 1, padding at least 0,
// groups at least 1 and dividing both channel counts.
type Conv2dParams struct {
	Stride, Padding, Dilation [2]int
	Groups                    int
}

// Convolver is implemented by backends with a direct 2-D convolution (the
// CPU's gathers the im2col matrix inside its GEMM's packing, so the matrix
// is never written out); the tensor package uses it for F32 and F64 when
// present and builds the convolution from a strided copy and Matmul
// otherwise.
type Convolver interface {
	// Conv2d writes the cross-correlation of x [N, C, H, W] (any strides)
	// with w [O, C/groups, KH, KW] into dst [N, O, OH, OW], which is
	// contiguous. OH is at most (H + 2*pad - dil*(KH-1) - 1)/stride + 1 and
	// OW likewise; smaller extents (a transposed convolution's adjoint with
	// output padding needs them) compute only the first OH rows and OW
	// columns of outputs. Bias is not included.
	Conv2d(dst, x, w Operand, p Conv2dParams) error
	// Conv2dFilter writes the gradient of that convolution's weights,
	// dw [O, C/groups, KH, KW] (contiguous): the sum over the images of
	// dy [N, O, OH, OW] times x's im2col matrix transposed, per group.
	Conv2dFilter(dw, x, dy Operand, p Conv2dParams) error
}
