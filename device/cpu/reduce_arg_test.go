package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// refExtreme is the float64 reference for Max, Min, ArgMax and ArgMin of a
// row: the first NaN if there is one, else the first element strictly
// beyond every earlier one (so the first of tied extremes, and of -0 and
// +0 whichever comes first).
func refExtreme(row []float64, isMax bool) (float64, int) {
	best, at := row[0], 0
	for i, x := range row {
		if best != best {
			break
		}
		if x != x || (isMax && x > best) || (!isMax && x < best) {
			best, at = x, i
		}
	}
	return best, at
}

// argRows builds the rows TestExtremeRowBlocks folds: lengths around the
// block size of vecExtremeFirst, each with its extreme tied in several
// blocks, NaN late, ±Inf ties, signed zeros and all -Inf; and rows of 11
// with one largest and one smallest element, at every position.
func argRows() map[string][]float64 {
	rng := rand.New(rand.NewPCG(7, 11))
	rows := map[string][]float64{}
	for _, n := range []int{1, 7, argBlock, 2*argBlock + 1, 1000, 2048, 2100} {
		r := make([]float64, n)
		for i := range r {
			r[i] = float64(rng.IntN(9) - 4) // many ties
		}
		rows[fmt.Sprintf("ties/%d", n)] = r
		if n > 3 {
			t := append([]float64(nil), r...)
			t[n-1], t[n/2], t[n-2] = 9, 9, 9
			t[n-3], t[n/3] = -9, -9
			rows[fmt.Sprintf("ties-late/%d", n)] = t
		}
		u := make([]float64, n)
		for i := range u {
			u[i] = float64(float32(rng.NormFloat64())) // exact in both dtypes
		}
		rows[fmt.Sprintf("normal/%d", n)] = u
		if n > 3 {
			t := append([]float64(nil), u...)
			t[n-1], t[n/2], t[n-2] = 9, 9, 9 // the tie in a middle block wins
			rows[fmt.Sprintf("tie-late/%d", n)] = t
			nn := append([]float64(nil), u...)
			nn[n-2], nn[n-1], nn[0] = math.NaN(), math.NaN(), math.Inf(1)
			rows[fmt.Sprintf("nan-late/%d", n)] = nn
			inf := append([]float64(nil), u...)
			inf[n-1], inf[n/3] = math.Inf(1), math.Inf(1)
			inf[n-3], inf[n/4] = math.Inf(-1), math.Inf(-1)
			rows[fmt.Sprintf("inf/%d", n)] = inf
		}
		z := make([]float64, n)
		for i := range z {
			if rng.IntN(2) == 0 {
				z[i] = math.Copysign(0, -1)
			}
		}
		rows[fmt.Sprintf("zeros/%d", n)] = z
		ni := make([]float64, n)
		for i := range ni {
			ni[i] = math.Inf(-1)
		}
		rows[fmt.Sprintf("all-neg-inf/%d", n)] = ni
	}
	// One largest and one smallest element, in every lane of a four-way
	// fold and in its tail.
	for p := range 11 {
		r := make([]float64, 11)
		r[p], r[(p+5)%11] = 9, -9
		rows[fmt.Sprintf("single/%d", p)] = r
	}
	return rows
}

// TestExtremeRowBlocks checks extremeRow (the contiguous-row path of Max,
// Min, ArgMax and ArgMin, vector-reduced in blocks for the arg ops)
// against refExtreme on float32 and float64 rows, and on int32, int64 and
// uint8 rows (shifted by 128) where the row's values are small integers:
// the value bit for bit and the position of its first occurrence.
func TestExtremeRowBlocks(t *testing.T) {
	for name, row := range argRows() {
		for _, op := range []device.ReduceOp{device.Max, device.Min, device.ArgMax, device.ArgMin} {
			isMax := op == device.Max || op == device.ArgMax
			wv, wat := refExtreme(row, isMax)
			check := func(dt string, v float64, at int64) {
				t.Helper()
				if math.Float64bits(v) != math.Float64bits(wv) && !(v != v && wv != wv) && !(dt[0] != 'f' && v == wv) { // integers have one zero
					t.Errorf("%s/%s/%v: value %v, want %v", dt, name, op, v, wv)
				}
				if op.IsArg() && at != int64(wat) {
					t.Errorf("%s/%s/%v: at %d, want %d", dt, name, op, at, wat)
				}
			}
			r32 := make([]float32, len(row))
			for i, x := range row {
				r32[i] = float32(x)
			}
			a32 := extremeRow(acc[float32]{at: -1}, r32, 0, isMax, op.IsArg())
			check("f32", float64(a32.v), a32.at)
			a64 := extremeRow(acc[float64]{at: -1}, row, 0, isMax, op.IsArg())
			check("f64", a64.v, a64.at)
			if !smallInts(row) {
				continue
			}
			i32, i64, u8 := make([]int32, len(row)), make([]int64, len(row)), make([]uint8, len(row))
			for i, x := range row {
				i32[i], i64[i], u8[i] = int32(x), int64(x), uint8(x+128)
			}
			ai := extremeRow(acc[int32]{at: -1}, i32, 0, isMax, op.IsArg())
			check("i32", float64(ai.v), ai.at)
			al := extremeRow(acc[int64]{at: -1}, i64, 0, isMax, op.IsArg())
			check("i64", float64(al.v), al.at)
			au := extremeRow(acc[uint8]{at: -1}, u8, 0, isMax, op.IsArg())
			check("u8", float64(au.v)-128, au.at)
		}
	}
}

// smallInts reports whether every element of row is an integer in
// [-128, 127] (a zero of either sign counts).
func smallInts(row []float64) bool {
	for _, x := range row {
		if x != math.Trunc(x) || x < -128 || x > 127 {
			return false
		}
	}
	return true
}

// TestArgMaxRowsStrided runs ArgMax through Reduce over the rows of a
// [3, 1100] f32 source and over the columns of its transpose (the strided
// walk), both against refExtreme.
func TestArgMaxRowsStrided(t *testing.T) {
	d := New()
	const m, n = 3, 1100
	rng := rand.New(rand.NewPCG(5, 5))
	vals := make([]float64, m*n)
	for i := range vals {
		vals[i] = float64(rng.IntN(50))
	}
	vals[1*n+1000] = math.NaN()
	vals[2*n+700], vals[2*n+300] = 60, 60
	sb, _ := d.Alloc(dtype.F32, m*n)
	for i, x := range vals {
		setF(sb.(*Buffer), i, x)
	}
	rows := contiguous(m, n)
	cols := contiguous(n, m) // the transpose: element (j, i) at i*n + j
	cols.Strides = []int{1, n}
	for _, c := range []struct {
		name string
		src  device.Operand
		axis int
	}{
		{"rows", device.Operand{Buf: sb, Layout: rows}, 1},
		{"transposed", device.Operand{Buf: sb, Layout: cols}, 0},
	} {
		out, _ := d.Alloc(dtype.I64, m)
		if err := d.Reduce(device.ArgMax, device.Operand{Buf: out, Layout: contiguous(m)}, c.src, []int{c.axis}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range m {
			_, want := refExtreme(vals[i*n:(i+1)*n], true)
			if got := slice[int64](out.(*Buffer))[i]; got != int64(want) {
				t.Errorf("%s: row %d ArgMax = %d, want %d", c.name, i, got, want)
			}
		}
		d.Free(out)
	}
	d.Free(sb)
}

// TestSumInts checks the four-way integer row sum against a plain running
// sum in int64, wrapped to the type or kept wide, for every length up to
// 11 (tails of 0 to 3) with values that wrap int32 and uint8.
func TestSumInts(t *testing.T) {
	for n := range 12 {
		x32 := make([]int32, n)
		x8 := make([]uint8, n)
		var w64 int64
		for i := range n {
			x32[i] = math.MaxInt32 - int32(i)
			x8[i] = uint8(250 - i)
			w64 += int64(x32[i])
		}
		if got, want := sumInts[int32](x32), int32(w64); got != want {
			t.Errorf("int32 n=%d: %d, want %d", n, got, want)
		}
		var w8 int
		for _, v := range x8 {
			w8 += int(v)
		}
		if got, want := sumInts[uint8](x8), uint8(w8); got != want {
			t.Errorf("uint8 n=%d: %d, want %d", n, got, want)
		}
		if got := sumInts[int64](x32); got != w64 {
			t.Errorf("int32 into int64 n=%d: %d, want %d", n, got, w64)
		}
		if got := sumInts[int64](x8); got != int64(w8) {
			t.Errorf("uint8 into int64 n=%d: %d, want %d", n, got, w8)
		}
	}
}
