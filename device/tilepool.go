package device

// TilePooler is implemented by backends with direct kernels for max
// pooling over tiles that partition the input (a pool whose stride is its
// kernel, without dilation: the 2x2 pools of a small CNN). The tensor
// package uses it for F32 and F64 when present and builds the pooling and
// its gradient from fused elementwise passes otherwise; the two give the
// same bits. tiles is the input seen as [N, C, OH, KH, OW, KW] (any
// strides: a view of x [N, C, OH*KH, OW*KW], possibly padded).
type TilePooler interface {
	// MaxTiles writes dst [N, C, OH, OW] (contiguous): the maximum of
	// each tile, folded in row-major kernel order by Maximum's rule (the
	// running maximum stays where it is NaN or greater, else takes the
	// next element).
	MaxTiles(dst, tiles Operand) error
	// MaxTilesGrad writes dst (contiguous, tiles' shape): the gradient of
	// MaxTiles given y = MaxTiles(tiles) and g, y's gradient (both
	// [N, C, OH, OW], any strides, broadcasts included). Each tile's g
	// goes to one element, +0 to the others: the first in row-major
	// kernel order equal to the tile's y, or where y is NaN the tile's
	// last NaN, as PyTorch's max_pool2d routes it.
	MaxTilesGrad(dst, tiles, y, g Operand) error
}
