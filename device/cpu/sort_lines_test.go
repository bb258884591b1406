package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/devicetest"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// sortInput makes a line of n values of one kind.
func sortInput(kind string, n int, r *rand.Rand) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch kind {
		case "normal": // with every special value sprinkled in
			x[i] = r.NormFloat64()
			switch r.IntN(50) {
			case 0:
				x[i] = math.NaN()
			case 1:
				x[i] = math.Copysign(0, -1)
			case 2:
				x[i] = 0
			case 3:
				x[i] = math.Inf(1)
			case 4:
				x[i] = math.Inf(-1)
			}
		case "dups": // few distinct values: stability decides the order
			x[i] = float64(r.IntN(7) - 3)
		case "sorted":
			x[i] = float64(i) - float64(n)/2
		case "reversed":
			x[i] = float64(n)/2 - float64(i)
		case "narrow": // one top digit: the long-line split falls back
			x[i] = 1 + float64(r.IntN(1000))/1e6
		case "small": // small integers (and one sign)
			x[i] = float64(r.IntN(200))
		}
	}
	return x
}

// TestSortLines: the backend's Sort against devicetest.SortOrder for every dtype it
// sorts itself, lines of lengths around each cut-off of the packed sort
// (insertion sort at 32, 8- and 11-bit digits at 4096, the in-cache
// limit cacheWords, the long-line split above it) and past them, inputs
// with NaN, ±0 and ±Inf, many ties, already sorted, reversed, in one
// narrow range (every key with the same top digit) and small integers,
// both orders, one line (all cores inside it) and two lines of a
// transposed source (a line per core, strided). Indices must equal the
// reference's exactly; values must be the source's bits at those indices
// (so -0 and NaN come back as they were).
func TestSortLines(t *testing.T) {
	d := New()
	r := rand.New(rand.NewPCG(7, 8))
	sizes := []int{1, 2, 31, 32, 33, 4095, 4096, 4097, cacheWords, cacheWords + 1, 3*cacheWords + 5}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.I32, dtype.I64, dtype.U8, dtype.F16} {
		for _, n := range sizes {
			if n > cacheWords+1 && dt != dtype.F32 && dt != dtype.I32 {
				continue
			}
			for _, kind := range []string{"normal", "dups", "sorted", "reversed", "narrow", "small"} {
				if !dt.IsFloat() && (kind == "normal" || kind == "narrow") {
					continue
				}
				if dt == dtype.U8 && kind != "small" && kind != "dups" {
					continue
				}
				if raceEnabled && kind != "dups" {
					// The kinds differ in data, not in how the work is
					// shared among goroutines: under -race one is enough.
					continue
				}
				for _, lines := range []int{1, 2} {
					if lines == 2 && n > cacheWords+1 {
						continue // the long-line path takes single lines
					}
					for _, desc := range []bool{false, true} {
						name := fmt.Sprintf("%v/%d/%s/lines=%d/desc=%v", dt, n, kind, lines, desc)
						checkSortLines(t, d, name, dt, n, lines, kind, desc, r)
					}
				}
			}
		}
	}
}

func checkSortLines(t *testing.T, d *Device, name string, dt dtype.DType, n, lines int, kind string, desc bool, r *rand.Rand) {
	t.Helper()
	vals := make([][]float64, lines)
	for l := range vals {
		vals[l] = sortInput(kind, n, r)
		if dt == dtype.U8 {
			for i, v := range vals[l] {
				vals[l][i] = math.Abs(v)
			}
		}
	}
	total := n * lines
	src, _ := d.Alloc(dt, total)
	out, _ := d.Alloc(dt, total)
	idx, _ := d.Alloc(dtype.I64, total)
	defer d.Free(src)
	defer d.Free(out)
	defer d.Free(idx)
	// The source is stored [lines, n] and read through its transpose when
	// there are two lines, so each line along axis 0 has stride lines...
	// stored element (l, i) at l*n + i for one line, i*lines + l for two.
	at := func(l, i int) int {
		if lines == 1 {
			return i
		}
		return i*lines + l
	}
	sb := src.(*Buffer)
	for l := range lines {
		for i, v := range vals[l] {
			setElem(sb, at(l, i), v)
		}
	}
	var sl layout.Layout
	if lines == 1 {
		sl, _ = layout.Contiguous(n)
	} else {
		sl, _ = layout.Contiguous(n, lines) // axis 0 strided by lines
	}
	ol := sl
	if err := d.Sort(device.Operand{Buf: out, Layout: ol}, device.Operand{Buf: idx, Layout: ol}, device.Operand{Buf: src, Layout: sl}, 0, desc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	gi := slice[int64](idx.(*Buffer))
	for l := range lines {
		line := make([]float64, n)
		for i := range line {
			line[i] = getElem(sb, at(l, i)) // as stored (rounded to dt)
		}
		for j, want := range devicetest.SortOrder(line, desc) {
			k := at(l, j)
			if gi[k] != int64(want) {
				t.Fatalf("%s: line %d: index %d = %d, want %d (value %v)", name, l, j, gi[k], want, line[want])
			}
			if got, w := elemBits(out.(*Buffer), k), elemBits(sb, at(l, want)); got != w {
				t.Fatalf("%s: line %d: value %d has bits %#x, want %#x", name, l, j, got, w)
			}
		}
	}
}

// setElem stores v (rounded) as element i of b.
func setElem(b *Buffer, i int, v float64) {
	switch b.dt {
	case dtype.F32:
		slice[float32](b)[i] = float32(v)
	case dtype.F64:
		slice[float64](b)[i] = v
	case dtype.I32:
		slice[int32](b)[i] = int32(v)
	case dtype.I64:
		slice[int64](b)[i] = int64(v)
	case dtype.U8:
		slice[uint8](b)[i] = uint8(v)
	case dtype.F16:
		slice[uint16](b)[i] = uint16(dtype.F16FromFloat64(v))
	}
}

// getElem reads element i of b as float64.
func getElem(b *Buffer, i int) float64 {
	switch b.dt {
	case dtype.F32:
		return float64(slice[float32](b)[i])
	case dtype.F64:
		return slice[float64](b)[i]
	case dtype.I32:
		return float64(slice[int32](b)[i])
	case dtype.I64:
		return float64(slice[int64](b)[i])
	case dtype.U8:
		return float64(slice[uint8](b)[i])
	}
	return float64(dtype.Float16(slice[uint16](b)[i]).Float32())
}

// elemBits is element i of b's bits.
func elemBits(b *Buffer, i int) uint64 {
	switch b.dt.Size() {
	case 1:
		return uint64(slice[uint8](b)[i])
	case 2:
		return uint64(slice[uint16](b)[i])
	case 4:
		return uint64(slice[uint32](b)[i])
	}
	return slice[uint64](b)[i]
}
