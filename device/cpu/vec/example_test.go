package vec_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/tessera-go/tessera/device/cpu/vec"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

func ExampleAdd() {
	a := []float32{1, 2, 3}
	b := []float32{10, 20, 30}
	dst := make([]float32, 3)
	if err := vec.Add(dst, a, b); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// A length mismatch is an error, not a panic.
	err := vec.Add(dst, a, b[:2])
	fmt.Println(errors.Is(err, errs.ErrShape), err)
	// Output:
	// [11 22 33]
	// true vec: Add: lengths differ: len(dst)=3, len(a)=3, len(b)=2
}

func ExampleSum() {
	x := make([]float32, 1<<25)
	for i := range x {
		x[i] = 1
	}
	// A plain float32 loop stops at 2^24 = 16777216; Sum's blocked lanes do not.
	fmt.Println(vec.Sum(x))
	// Output:
	// 3.3554432e+07
}

func ExampleMaximum() {
	nan := float32(0)
	nan /= nan
	dst := make([]float32, 3)
	vec.Maximum(dst, []float32{1, nan, -2}, []float32{3, 0, -5})
	fmt.Println(dst)
	// Output:
	// [3 NaN -2]
}

func ExampleParallel() {
	x := make([]float64, 1<<20)
	vec.Parallel(len(x), 1<<16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x[i] = float64(i)
		}
	})
	fmt.Println(x[len(x)-1])
	// Output:
	// 1.048575e+06
}

func ExampleNarrow() {
	x := []float32{1.0 / 3, 1 + 1.0/256, 1 + 3.0/256, 70000}
	// bfloat16 keeps 8 significant bits: ties go to the even neighbour.
	bf := make([]dtype.BFloat16, len(x))
	if err := vec.Narrow(bf, x); err != nil {
		panic(err)
	}
	// binary16 keeps 11 bits and overflows above 65504.
	h := make([]dtype.Float16, len(x))
	if err := vec.Narrow(h, x); err != nil {
		panic(err)
	}
	back := make([]float32, len(x))
	if err := vec.Widen(back, bf); err != nil {
		panic(err)
	}
	fmt.Println(back)
	if err := vec.Widen(back, h); err != nil {
		panic(err)
	}
	fmt.Println(back)
	// Output:
	// [0.33398438 1 1.015625 70144]
	// [0.33325195 1.0039062 1.0117188 +Inf]
}

// SumHalf sums bfloat16 (or binary16) values in float32 without widening
// them into a buffer first: the same result as Widen followed by Sum.
func ExampleSumHalf() {
	x := make([]dtype.BFloat16, 1000)
	for i := range x {
		x[i] = dtype.BF16FromFloat32(0.25) // exact in bfloat16
	}
	wide := make([]float32, len(x))
	if err := vec.Widen(wide, x); err != nil {
		panic(err)
	}
	fmt.Println(vec.SumHalf(x), vec.Sum(wide))
	// Output: 250 250
}

// AddHalf adds in float32 and rounds once: 256 + 1 is 257 in float32,
// which bfloat16 (8 significant bits) rounds to 256, ties to even, and
// binary16 (11 bits) holds exactly.
func ExampleAddHalf() {
	a := []dtype.BFloat16{dtype.BF16FromFloat32(256), dtype.BF16FromFloat32(1.5)}
	b := []dtype.BFloat16{dtype.BF16FromFloat32(1), dtype.BF16FromFloat32(0.25)}
	sum := make([]dtype.BFloat16, 2)
	if err := vec.AddHalf(sum, a, b); err != nil {
		panic(err)
	}
	h := []dtype.Float16{dtype.F16FromFloat32(256)}
	hs := make([]dtype.Float16, 1)
	if err := vec.AddHalf(hs, h, []dtype.Float16{dtype.F16FromFloat32(1)}); err != nil {
		panic(err)
	}
	fmt.Println(sum[0].Float32(), sum[1].Float32(), hs[0].Float32())
	// Output: 256 1.75 257
}

// TanhHalf computes tanh in float32 on the widened values and rounds once:
// tanh(0.5) = 0.46211..., which bfloat16 holds as 0.4628906 (its nearest).
func ExampleTanhHalf() {
	x := []dtype.BFloat16{dtype.BF16FromFloat32(0.5), dtype.BF16FromFloat32(-3)}
	y := make([]dtype.BFloat16, len(x))
	if err := vec.TanhHalf(y, x); err != nil {
		panic(err)
	}
	fmt.Println(y[0].Float32(), y[1].Float32())
	// Output: 0.46289062 -0.99609375
}

// ExamplePowF64 raises each base to its exponent: within 1 ulp of the
// exact power, with C99's values where the base is negative (an integer
// exponent keeps a sign, any other gives NaN).
func ExamplePowF64() {
	x := []float64{2, 10, -2, -8, 1.0000001}
	y := []float64{0.25, -3, 3, 1.0 / 3, 1e9}
	dst := make([]float64, len(x))
	if err := vec.PowF64(dst, x, y); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dst)
	// Output: [1.189207115002721 0.001 -8 NaN 2.6881038582144647e+43]
}

// ExamplePowF32 raises float32 bases to float32 exponents. 31**5 =
// 28629151 has 25 significant bits, a tie between two float32 values: the
// power is carried exactly enough that it rounds to the even one, as the
// correctly rounded power does. A negative base takes the sign of an odd
// integer exponent, NaN for any other.
func ExamplePowF32() {
	x := []float32{31, 2, -2, -8, 1.5}
	y := []float32{5, 10, 3, 0.5, -2.5}
	dst := make([]float32, len(x))
	if err := vec.PowF32(dst, x, y); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dst)
	// Output: [2.8629152e+07 1024 -8 NaN 0.36288738]
}

func ExampleCompare() {
	nan := math.NaN()
	a := []float64{1, 2, nan, -0.0}
	b := []float64{2, 2, nan, 0}
	gt, ne := make([]uint8, 4), make([]uint8, 4)
	if err := vec.Compare(vec.CmpGe, gt, a, b); err != nil {
		panic(err)
	}
	if err := vec.Compare(vec.CmpNe, ne, a, b); err != nil {
		panic(err)
	}
	// NaN makes every relation false but !=; -0 and +0 are equal.
	fmt.Println(gt, ne)
	// Output:
	// [0 1 0 1] [1 0 1 0]
}

func ExampleCompareInt() {
	labels := []int64{3, 1, 4, 1, 5}
	predicted := []int64{3, 2, 4, 0, 5}
	hits := make([]uint8, len(labels))
	if err := vec.CompareInt(vec.CmpEq, hits, predicted, labels); err != nil {
		panic(err)
	}
	fmt.Println(hits)
	// Output: [1 0 1 0 1]
}

func ExampleSelectElse() {
	// Keep the scores where the mask allows them and put -Inf elsewhere,
	// as a masked attention row does before its softmax.
	scores := []float32{0.5, 1.5, -2, 3}
	allowed := []uint8{1, 1, 0, 1}
	dst := make([]float32, len(scores))
	if err := vec.SelectElse(dst, allowed, scores, float32(math.Inf(-1))); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// Output: [0.5 1.5 -Inf 3]
}

func ExampleTruncF32ToI32() {
	src := []float32{2.9, -2.9, 3e9, -3e9, float32(math.NaN())}
	dst := make([]int32, len(src))
	if err := vec.TruncF32ToI32(dst, src); err != nil {
		panic(err)
	}
	// Toward zero, saturated at int32's ends, NaN to 0.
	fmt.Println(dst)
	// Output: [2 -2 2147483647 -2147483648 0]
}

// WidenU8F32 turns a Bool mask (or U8 data) into float32 values.
func ExampleWidenU8F32() {
	mask := []uint8{1, 0, 0, 1, 255}
	dst := make([]float32, len(mask))
	if err := vec.WidenU8F32(dst, mask); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// Output: [1 0 0 1 255]
}

// AbsInt wraps as Go's arithmetic does: the most negative int32 has no
// positive twin and stays as it is.
func ExampleAbsInt() {
	x := []int32{-3, 0, 7, math.MinInt32}
	dst := make([]int32, len(x))
	if err := vec.AbsInt(dst, x); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// Output: [3 0 7 -2147483648]
}

// NotBytes is Bool's logical Not: any nonzero byte counts as true.
func ExampleNotBytes() {
	mask := []uint8{1, 0, 0, 7}
	dst := make([]uint8, len(mask))
	if err := vec.NotBytes(dst, mask); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// Output: [0 1 1 0]
}

// Reverse flips a row end to end (a horizontal flip of an image row).
func ExampleReverse() {
	row := []float32{1, 2, 3, 4, 5}
	dst := make([]float32, len(row))
	if err := vec.Reverse(dst, row); err != nil {
		panic(err)
	}
	fmt.Println(dst)
	// Output: [5 4 3 2 1]
}
