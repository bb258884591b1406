package cpu

import (
	le "encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/layout"
)

// TestMatmulHalf checks F16 and BF16 Matmul on products large enough for
// the packed (and, for bf16, AMX) path: batched, with a transposed, a
// narrowed and a broadcast operand. Reference: the float64 product of the
// half-precision inputs. Tolerance per element: the float32 accumulation,
// 2*(k+3)*2^-24 * sum|a||b| (as in package gemm), plus one rounding to the
// output format, 2^-8 (bf16) or 2^-11 (f16) of |want|.
func TestMatmulHalf(t *testing.T) {
	const batch, m, k, n = 2, 70, 131, 45
	d := New()
	for _, dt := range []dtype.DType{dtype.BF16, dtype.F16} {
		round, value := func(x float64) uint16 { return uint16(dtype.BF16FromFloat64(x)) }, func(h uint16) float64 { return float64(dtype.BFloat16(h).Float32()) }
		outU := 0x1p-8
		if dt == dtype.F16 {
			round, value = func(x float64) uint16 { return uint16(dtype.F16FromFloat64(x)) }, func(h uint16) float64 { return float64(dtype.Float16(h).Float32()) }
			outU = 0x1p-11
		}
		rng := rand.New(rand.NewPCG(5, 6))
		upload := func(n int) (device.Buffer, []uint16) {
			vals := make([]uint16, n)
			raw := make([]byte, 2*n)
			for i := range vals {
				vals[i] = round(rng.Float64()*4 - 2)
				le.LittleEndian.PutUint16(raw[2*i:], vals[i])
			}
			buf, err := d.Alloc(dt, n)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Upload(buf, 0, raw); err != nil {
				t.Fatal(err)
			}
			return buf, vals
		}
		// A: [batch, m, k] stored as [batch, m, k+3], narrowed to k columns.
		ab, av := upload(batch * m * (k + 3))
		al := layout.Layout{Shape: []int{batch, m, k}, Strides: []int{m * (k + 3), k + 3, 1}}
		// B variants: [k, n] transposed view of a stored [n, k], broadcast
		// over the batch; and a contiguous [batch, k, n].
		bt, btv := upload(n * k)
		btl, _ := layout.Contiguous(n, k)
		btl, _ = btl.Permute(1, 0)
		btl, _ = btl.BroadcastTo(batch, k, n)
		bc, bcv := upload(batch * k * n)
		bcl, _ := layout.Contiguous(batch, k, n)
		// The destination: contiguous, or a transposed view (the result
		// computed contiguous, then copied in through copyInto).
		tol, _ := layout.Contiguous(batch, n, m)
		tol, _ = tol.Permute(0, 2, 1)
		for _, bv := range []struct {
			name string
			buf  device.Buffer
			l    layout.Layout
			v    []uint16
			dstT bool
		}{{"transposed-broadcast", bt, btl, btv, false}, {"contiguous", bc, bcl, bcv, false}, {"contiguous/dst-transposed", bc, bcl, bcv, true}} {
			ol, _ := layout.Contiguous(batch, m, n)
			if bv.dstT {
				ol = tol
			}
			out, err := d.Alloc(dt, ol.Numel())
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Matmul(device.Operand{Buf: out, Layout: ol}, device.Operand{Buf: ab, Layout: al}, device.Operand{Buf: bv.buf, Layout: bv.l}); err != nil {
				t.Fatalf("%v %s: %v", dt, bv.name, err)
			}
			raw := make([]byte, 2*ol.Numel())
			if err := d.Download(raw, out, 0); err != nil {
				t.Fatal(err)
			}
			for bi := range batch {
				for i := range m {
					for j := range n {
						var want, scale float64
						for p := range k {
							x := value(av[al.OffsetOf([]int{bi, i, p})]) * value(bv.v[bv.l.OffsetOf([]int{bi, p, j})])
							want += x
							scale += math.Abs(x)
						}
						got := value(le.LittleEndian.Uint16(raw[2*ol.OffsetOf([]int{bi, i, j}):]))
						tol := 2*float64(k+3)*0x1p-24*scale + outU*math.Abs(want)
						if !(math.Abs(got-want) <= tol) {
							t.Fatalf("%v %s: [%d,%d,%d] = %g, want %g (tolerance %.3g)", dt, bv.name, bi, i, j, got, want, tol)
						}
					}
				}
			}
			d.Free(out)
		}
		for _, b := range []device.Buffer{ab, bt, bc} {
			d.Free(b)
		}
	}
}
