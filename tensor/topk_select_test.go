package tensor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/tensor"
)

// TestTopKSelect checks TopK on lines long enough for the CPU's partial
// selection to filter several chunks (and on every other device, which
// sorts), with NaN, ±Inf, -0 beside +0 and many ties, along the last
// axis, along axis 0 and through a transposed view, against stableOrder
// (a float64 stable sort, NaN largest): the positions exactly and the
// values bit for bit (so -0 stays -0).
func TestTopKSelect(t *testing.T) {
	const rows, n = 3, 1300
	rng := rand.New(rand.NewPCG(9, 9))
	base := make([]float64, rows*n)
	for i := range base {
		switch rng.IntN(20) {
		case 0:
			base[i] = math.NaN()
		case 1:
			base[i] = math.Inf(1)
		case 2:
			base[i] = math.Inf(-1)
		case 3:
			base[i] = math.Copysign(0, -1)
		case 4:
			base[i] = 0
		default:
			base[i] = float64(rng.IntN(40) - 20) // ties
		}
	}
	for _, dev := range testDevices(t) {
		for _, dt := range []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.F64} {
			if dt == dtype.F64 && dev.Name() != "cpu" {
				continue // the GPUs have no f64
			}
			vals := base
			if !dt.IsFloat() {
				vals = make([]float64, len(base))
				for i, v := range base {
					if v != v || math.IsInf(v, 0) {
						v = float64(int(math.Copysign(50, v)))
					}
					vals[i] = v + 0 // integers have no -0
				}
			}
			x := tensor.FromSlice(vals, rows, n).Cast(dt).To(dev)
			for _, view := range []string{"rows", "axis0", "transposed"} {
				for _, k := range []int{1, 7, 64} {
					for _, largest := range []bool{true, false} {
						name := fmt.Sprintf("%s/%v/%s/k=%d/largest=%v", dev.Name(), dt, view, k, largest)
						var v, idx *tensor.Tensor
						switch view {
						case "rows":
							v, idx = x.TopK(k, 1, largest)
						case "axis0": // lines down the columns of the [n, rows] transpose, made contiguous
							v, idx = x.T().Contiguous().TopK(k, 0, largest)
						case "transposed": // the same lines through the strided view
							v, idx = x.T().TopK(k, 0, largest)
						}
						got, err := v.Float64s()
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						pos, err := tensor.ToSlice[int64](idx)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						for r := range rows {
							line := vals[r*n : (r+1)*n]
							ord := stableOrder(line, largest)
							for j := range k {
								at := r*k + j // rows: [rows, k]
								if view != "rows" {
									at = j*rows + r // [k, rows]
								}
								w := line[ord[j]]
								if dt == dtype.F16 || dt == dtype.F32 {
									w = float64(float32(w))
								}
								if pos[at] != int64(ord[j]) || (math.Float64bits(got[at]) != math.Float64bits(w) && !(w != w && got[at] != got[at])) {
									t.Fatalf("%s: line %d, rank %d: %v at %d, want %v at %d", name, r, j, got[at], pos[at], w, ord[j])
								}
							}
						}
					}
				}
			}
		}
	}
}
