package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
)

// TestScanPaths checks CumSum and CumProd on contiguous operands along a
// leading axis (scanBlocks: whole rows at a time, columns in chunks, some
// over one chunk) and along other axes and on spread-out copies (one line
// at a time, split among the cores), element for element against a
// running sum or product taken in order in the destination's type, which
// both paths must give exactly.
func TestScanPaths(t *testing.T) {
	d := New()
	cases := []struct {
		shape []int
		axis  int
	}{
		{[]int{5, 3}, 0},
		{[]int{3, 5, 70}, 0},
		{[]int{3, 5, 70}, 1},
		{[]int{3, 5, 70}, 2},
		{[]int{2, 9000}, 0}, // three chunks of columns
		{[]int{40, 1000}, 1},
	}
	for _, dt := range []dtype.DType{dtype.F32, dtype.F64, dtype.I32, dtype.U8} {
		for _, op := range []device.ScanOp{device.CumSum, device.CumProd} {
			for _, c := range cases {
				for _, spread := range []bool{false, true} {
					name := fmt.Sprintf("%v/%v/%v/axis=%d/spread=%v", dt, op, c.shape, c.axis, spread)
					l := contiguous(c.shape...)
					n := l.Numel()
					rng := rand.New(rand.NewPCG(7, uint64(n)))
					vals := make([]float64, n)
					for i := range vals {
						vals[i] = float64(rng.IntN(5))
						if dt == dtype.F32 || dt == dtype.F64 {
							vals[i] = rng.NormFloat64()
							if op == device.CumProd {
								vals[i] = 1 + vals[i]/64
							}
						}
					}
					sl := l
					sl.Strides = append([]int(nil), l.Strides...)
					if spread {
						for i := range sl.Strides {
							sl.Strides[i] *= 2
						}
					}
					sb, _ := d.Alloc(dt, 2*n)
					for i, v := range vals {
						pos := sl.OffsetOf(unravelIndex(i, c.shape))
						switch dt {
						case dtype.I32:
							slice[int32](sb.(*Buffer))[pos] = int32(v)
						case dtype.U8:
							slice[uint8](sb.(*Buffer))[pos] = uint8(v)
						default:
							setF(sb.(*Buffer), pos, v)
						}
					}
					odt := device.ScanResult(dt)
					ob, _ := d.Alloc(odt, n)
					if err := d.Scan(op, device.Operand{Buf: ob, Layout: l}, device.Operand{Buf: sb, Layout: sl}, c.axis); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					// The reference, in the destination's type, in order: each
					// line walked from its first element.
					want := make([]float64, n)
					for i := range n {
						idx := unravelIndex(i, c.shape)
						if idx[c.axis] != 0 {
							continue
						}
						var ai int64
						var a32 float32
						var a64 float64
						if op == device.CumProd {
							ai, a32, a64 = 1, 1, 1
						}
						for k := range c.shape[c.axis] {
							idx[c.axis] = k
							o := l.OffsetOf(idx)
							x := vals[o]
							if op == device.CumProd {
								ai, a32, a64 = ai*int64(x), a32*float32(x), a64*x
							} else {
								ai, a32, a64 = ai+int64(x), a32+float32(x), a64+x
							}
							switch odt {
							case dtype.I64:
								want[o] = float64(ai)
							case dtype.F32:
								want[o] = float64(a32)
							default:
								want[o] = a64
							}
						}
					}
					for i := range n {
						var got float64
						if odt == dtype.I64 {
							got = float64(slice[int64](ob.(*Buffer))[i])
						} else {
							got = getF(ob.(*Buffer), i)
						}
						if got != want[i] {
							t.Fatalf("%s: [%v] = %v, want %v", name, unravelIndex(i, c.shape), got, want[i])
						}
					}
					d.Free(sb)
					d.Free(ob)
				}
			}
		}
	}
}

// unravelIndex returns the row-major index of position i in shape.
func unravelIndex(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		idx[k] = i % shape[k]
		i /= shape[k]
	}
	return idx
}
