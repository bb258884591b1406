package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tessera-go/tessera/device"
)

// The inline rows of introws.go must give the operation table's rules
// (device.Op.Int, and F64 for the float tests) element for element: these
// tests run every op that has a row on rows of edge and random values, of
// lengths around the word and vector steps, against the table's rule
// applied one element at a time.

var rowLengths = []int{0, 1, 7, 8, 9, 31, 64, 257, 1000}

// intValues returns n values of T mixing the extremes (for the signed
// types the top bit alone is the least value and one below it the
// greatest), zero, ±1 and random bits.
func intValues[T integer](rng *rand.Rand, n int) []T {
	top := T(1) << (8*unsafe.Sizeof(T(0)) - 1)
	special := []T{0, 1, ^T(0), top, top - 1, T(rng.Uint64()) | 1}
	x := make([]T, n)
	for i := range x {
		if rng.IntN(3) == 0 {
			x[i] = special[rng.IntN(len(special))]
		} else {
			x[i] = T(rng.Uint64())
		}
	}
	return x
}

func TestIntRowsMatchTable(t *testing.T) {
	t.Run("int32", func(t *testing.T) { checkIntRows[int32](t) })
	t.Run("int64", func(t *testing.T) { checkIntRows[int64](t) })
	t.Run("uint8", func(t *testing.T) { checkIntRows[uint8](t) })
}

func checkIntRows[T integer](t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	unary := []device.UnaryOp{device.Neg, device.Abs, device.Square, device.Relu, device.Sign}
	binaryOps := []device.BinaryOp{device.Add, device.Sub, device.Mul, device.Maximum, device.Minimum}
	for _, n := range rowLengths {
		x, y := intValues[T](rng, n), intValues[T](rng, n)
		for _, op := range unary {
			f := intUnary[T](op)
			d := make([]T, n)
			if !intUnaryRow(op, d, x) {
				t.Fatalf("%v has no row", op)
			}
			for i := range d {
				if w := f(x[i]); d[i] != w {
					t.Fatalf("%v n=%d: %v(%v) = %v, the table gives %v", op, n, op, x[i], d[i], w)
				}
			}
		}
		for _, op := range binaryOps {
			f := intBinary[T](op)
			for _, form := range [][2]int{{1, 1}, {1, 0}, {0, 1}} {
				d := make([]T, n)
				xs, ys := x, y
				if form[0] == 0 {
					xs = y[:min(n, 1)]
				}
				if form[1] == 0 {
					ys = x[:min(n, 1)]
				}
				if n == 0 {
					continue
				}
				if !intBinaryRow(op, d, xs, form[0], ys, form[1]) {
					t.Fatalf("%v has no row", op)
				}
				for i := range d {
					a, b := xs[i*form[0]], ys[i*form[1]]
					if w := f(a, b); d[i] != w {
						t.Fatalf("%v %v n=%d: %v op %v = %v, the table gives %v", op, form, n, a, b, d[i], w)
					}
				}
			}
		}
	}
}

func TestPredicateRowsMatchTable(t *testing.T) {
	t.Run("float32", func(t *testing.T) { checkPredicateRows[float32](t) })
	t.Run("float64", func(t *testing.T) { checkPredicateRows[float64](t) })
	t.Run("int32", func(t *testing.T) { checkPredicateRows[int32](t) })
	t.Run("int64", func(t *testing.T) { checkPredicateRows[int64](t) })
	t.Run("uint8", func(t *testing.T) { checkPredicateRows[uint8](t) })
}

func checkPredicateRows[T num](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	special := []float64{0, math.Copysign(0, -1), 1, 2, 255, -1, math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat32, 1e300}
	for _, n := range rowLengths {
		x := make([]T, n)
		for i := range x {
			if rng.IntN(2) == 0 {
				x[i] = T(special[rng.IntN(len(special))])
			} else {
				x[i] = T(rng.IntN(3)) // zeros and small values: Not's cases
			}
		}
		for _, op := range []device.UnaryOp{device.Not, device.IsNaN, device.IsInf, device.IsFinite} {
			f := test[T](op)
			d := make([]uint8, n)
			for i := range d {
				d[i] = 9
			}
			if !predicateRow(op, d, x) {
				t.Fatalf("%v has no row", op)
			}
			for i := range d {
				if w := f(x[i]); d[i] != w {
					t.Fatalf("%v n=%d: [%d] %v gives %d, the table %d", op, n, i, fmt.Sprint(x[i]), d[i], w)
				}
			}
		}
	}
}

// TestLogicBytesMatchTable checks the word-at-a-time And, Or and Xor of
// byte rows (cmpRows on uint8, as Bool and U8 take them) against the
// table's rule per element, with bytes other than 0 and 1 (nonzero is
// true).
func TestLogicBytesMatchTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range rowLengths {
		x, y := make([]uint8, n), make([]uint8, n)
		for i := range x {
			x[i], y[i] = []uint8{0, 1, 2, 128, 255}[rng.IntN(5)], []uint8{0, 0, 1, 7, 255}[rng.IntN(5)]
		}
		for _, op := range []device.BinaryOp{device.And, device.Or, device.Xor} {
			f := compare[uint8](op)
			d := make([]uint8, n)
			if !cmpRows(op, d, x, y) {
				t.Fatalf("%v has no row", op)
			}
			for i := range d {
				if w := f(x[i], y[i]); d[i] != w {
					t.Fatalf("%v n=%d: %d op %d = %d, the table gives %d", op, n, x[i], y[i], d[i], w)
				}
			}
		}
	}
}
