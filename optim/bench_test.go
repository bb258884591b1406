package optim

import (
	"math"
	"testing"
	"time"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/internal/proctime"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/tensor"
)

// The Adam benchmarks update the parameters of the MLP 784-256-128-10
// (235,146 f32 values) from fixed gradients, on the CPU. The figure of
// merit is GB/s of the algorithm's own traffic, 28 bytes per value (read
// p, g, m, v; write p, m, v), the same for both, so the numbers compare
// directly. BenchmarkAdamStepLoop is the anchor: the same update as one
// plain Go loop over float32 slices on one core (what a hand-written
// kernel without fusion overheads costs); tessera's step runs three fused
// kernels per parameter on every core. Both also report the process's CPU
// time per step (cpu-ms/op, user and system, all threads), which a shared,
// loaded machine distorts much less than wall time; run with -cpu 1 to
// compare one core with one core.

var mlpShapes = [][]int{{256, 784}, {256}, {128, 256}, {128}, {10, 128}, {10}}

const adamBytesPerValue = 28

func mlpValues() int {
	n := 0
	for _, s := range mlpShapes {
		k := 1
		for _, d := range s {
			k *= d
		}
		n += k
	}
	return n
}

func BenchmarkAdamStep(b *testing.B) {
	var ps []*nn.Parameter
	var gs []*tensor.Tensor
	for i, s := range mlpShapes {
		ps = append(ps, nn.NewParameter("p", tensor.RandN(dtype.F32, uint64(i), s...)))
		g := tensor.RandN(dtype.F32, uint64(100+i), s...)
		if err := g.Err(); err != nil {
			b.Fatal(err)
		}
		gs = append(gs, g)
	}
	o, err := NewAdam(ps, 1e-3, DefaultAdam())
	if err != nil {
		b.Fatal(err)
	}
	step := func() {
		for i, p := range ps {
			if err := o.update(update{i: i, p: p, w: p.Value.Detach(), g: gs[i]}); err != nil {
				b.Fatal(err)
			}
		}
	}
	step() // the first step makes the state
	b.ResetTimer()
	cpu0 := proctime.CPU()
	for range b.N {
		step()
	}
	report(b, cpu0)
}

// report adds GB/s (of 28 bytes per value) and CPU ms per step since cpu0.
func report(b *testing.B, cpu0 time.Duration) {
	cpu := proctime.CPU() - cpu0
	n := float64(mlpValues())
	b.ReportMetric(n*adamBytesPerValue*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
}

func BenchmarkAdamStepLoop(b *testing.B) {
	n := mlpValues()
	p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range p {
		p[i] = float32(math.Sin(float64(i)))
		g[i] = float32(math.Cos(float64(i)))
	}
	const lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-8
	t := 0
	b.ResetTimer()
	cpu0 := proctime.CPU()
	for range b.N {
		t++
		bc1 := 1 - math.Pow(b1, float64(t))
		sbc2 := float32(math.Sqrt(1 - math.Pow(b2, float64(t))))
		step := float32(lr / bc1)
		for i := range p {
			d := g[i]
			mi := b1*m[i] + (1-b1)*d
			vi := b2*v[i] + (1-b2)*d*d
			m[i], v[i] = mi, vi
			p[i] -= step * mi / (float32(math.Sqrt(float64(vi)))/sbc2 + eps)
		}
	}
	report(b, cpu0)
}
