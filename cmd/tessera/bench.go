package main

import (
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/device/cpu/gemm"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/internal/progress"
	"github.com/tessera-go/tessera/tensor"
)

// timeIt runs f until at least minDur has passed (and at least twice) and
// returns the best time of one run, which is the least noisy figure on a
// shared machine.
func timeIt(minDur time.Duration, f func() error) (time.Duration, error) {
	best := time.Duration(1<<63 - 1)
	start := time.Now()
	for i := 0; i < 2 || time.Since(start) < minDur; i++ {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		best = min(best, time.Since(t0))
	}
	return best, nil
}

// benchOps names the elementwise cases bench times, in order.
var benchOps = []string{"add", "exp", "sum"}

// bench writes its tables to w and a progress line over its cases to
// errw, so that w stays parseable.
func bench(w, errw io.Writer, devName string, quick bool) error {
	dev, err := openDevice(devName)
	if err != nil {
		return err
	}
	sizes := []int{128, 256, 512, 1024}
	minDur := 500 * time.Millisecond
	if quick {
		sizes, minDur = []int{64, 128}, 50*time.Millisecond
	}
	// On the CPU, the matmul figures also stand next to the machine's
	// measured FMA peak and, outside quick runs, NumPy's OpenBLAS at its
	// best core type (one case per core type tried).
	onCPU := dev.Name() == "cpu"
	withNumPy := onCPU && !quick
	var coreTypes []string
	if withNumPy {
		coreTypes = openBLASCoreTypes()
	}
	// Cases: each matmul size, the batched matmul, the copy baseline,
	// each elementwise op and each OpenBLAS core type.
	bar := progress.New(errw, len(sizes)+2+len(benchOps)+len(coreTypes), progress.Options{Label: "bench", Unit: "cases"})
	defer bar.Finish()
	fmt.Fprintf(w, "tessera bench on %s (%s); gonum measured in the same run\n", dev.Name(), dev.Info().Adapter)
	var peak float64
	if onCPU {
		var vectors string
		peak, vectors = gemm.PeakF32()
		if peak > 0 {
			fmt.Fprintf(w, "CPU kernels %s; measured FMA peak %.1f GFLOP/s (float32, %s vectors, %d threads)\n", gemm.Kernel(), peak, vectors, runtime.GOMAXPROCS(0))
		} else {
			fmt.Fprintf(w, "CPU kernels %s (portable Go: no FMA peak to measure)\n", gemm.Kernel())
		}
	}
	// Seconds per call by size: tessera, tessera with B transposed, gonum.
	type times struct{ tt, ttT, tg time.Duration }
	measured := make([]times, len(sizes))
	for i, n := range sizes {
		a := tensor.RandN(dtype.F32, 1, n, n)
		b := tensor.RandN(dtype.F32, 2, n, n)
		ad, bd := a.To(dev), b.To(dev)
		bt := b.T().To(dev) // a transposed view, uploaded as is
		run := func(x, y *tensor.Tensor) func() error {
			return func() error {
				c := x.Matmul(y)
				defer c.Release()
				return dev.Backend().Sync()
			}
		}
		tt, err := timeIt(minDur, run(ad, bd))
		if err != nil {
			return err
		}
		ttT, err := timeIt(minDur, run(ad, bt))
		if err != nil {
			return err
		}
		av, _ := tensor.ToSlice[float32](a)
		bv, _ := tensor.ToSlice[float32](b)
		cv := make([]float32, n*n)
		gm := func(v []float32) blas32.General { return blas32.General{Rows: n, Cols: n, Stride: n, Data: v} }
		tg, _ := timeIt(minDur, func() error {
			blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, gm(av), gm(bv), 0, gm(cv))
			return nil
		})
		measured[i] = times{tt, ttT, tg}
		for _, x := range []*tensor.Tensor{a, b, ad, bd, bt} {
			x.Release()
		}
		bar.Add(1, progress.String("last", fmt.Sprintf("matmul %d", n)))
	}
	// NumPy right after tessera's figures (a separate process: on a
	// shared machine its figures may see other load than tessera's).
	var np map[int]numpyResult
	if withNumPy {
		var note string
		np, note = numpyMatmul(sizes, coreTypes, func(ct string) { bar.Add(1, progress.String("last", "NumPy "+ct)) })
		fmt.Fprintln(w, note)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "matmul f32\ttessera GFLOP/s\tB transposed GFLOP/s\tgonum GFLOP/s\ttessera/gonum\t"
	if peak > 0 {
		header += "of peak\t"
	}
	if len(np) > 0 {
		header += "OpenBLAS GFLOP/s\tcore type\ttessera/OpenBLAS\t"
	}
	fmt.Fprintln(tw, header)
	for i, n := range sizes {
		m := measured[i]
		flop := 2 * float64(n) * float64(n) * float64(n)
		g := flop / m.tt.Seconds() / 1e9
		row := fmt.Sprintf("%dx%dx%d\t%.2f\t%.2f\t%.2f\t%.2fx\t", n, n, n, g, flop/m.ttT.Seconds()/1e9, flop/m.tg.Seconds()/1e9, m.tg.Seconds()/m.tt.Seconds())
		if peak > 0 {
			row += fmt.Sprintf("%.0f%%\t", 100*g/peak)
		}
		if len(np) > 0 {
			if r, ok := np[n]; ok {
				row += fmt.Sprintf("%.2f\t%s\t%.2fx\t", r.gflops, r.coreType, g/r.gflops)
			} else {
				row += "-\t-\t-\t"
			}
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	if err := benchBatched(w, dev, minDur); err != nil {
		return err
	}
	bar.Add(1, progress.String("last", "batched matmul"))

	n := 1 << 24 // 64 MiB of f32: past the caches, as the bandwidth targets are stated
	if quick {
		n = 1 << 18
	}
	x := tensor.RandN(dtype.F32, 3, n).To(dev)
	y := tensor.RandN(dtype.F32, 4, n).To(dev)
	ops := []struct {
		name  string
		bytes float64
		f     func() *tensor.Tensor
	}{
		{benchOps[0], 12, func() *tensor.Tensor { return x.Add(y) }},
		{benchOps[1], 8, func() *tensor.Tensor { return x.Exp() }},
		{benchOps[2], 4, func() *tensor.Tensor { return x.Sum() }},
	}
	src := make([]byte, 4*n)
	dst := make([]byte, 4*n)
	tc, _ := timeIt(minDur, func() error { copy(dst, src); return nil })
	bar.Add(1, progress.String("last", "copy"))
	fmt.Fprintf(w, "\nelementwise on %d f32 (%d MiB); Go copy of the same bytes: %.2f GB/s\n", n, 4*n>>20, 8*float64(n)/tc.Seconds()/1e9)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tGB/s\tof copy\t")
	for _, op := range ops {
		t, err := timeIt(minDur, func() error {
			r := op.f()
			defer r.Release()
			if err := r.Err(); err != nil {
				return err
			}
			return dev.Backend().Sync()
		})
		if err != nil {
			return err
		}
		gbs := op.bytes * float64(n) / t.Seconds() / 1e9
		fmt.Fprintf(tw, "%s\t%.2f\t%.0f%%\t\n", op.name, gbs, 100*gbs/(8*float64(n)/tc.Seconds()/1e9))
		bar.Add(1, progress.String("last", op.name))
	}
	tw.Flush()
	return nil
}

// benchBatched times 512 independent 64x64x64 products, the shape of
// attention heads, as one batched Matmul and as a loop of gonum calls.
func benchBatched(w io.Writer, dev device.Device, minDur time.Duration) error {
	const batch, n = 512, 64
	a := tensor.RandN(dtype.F32, 5, batch, n, n)
	b := tensor.RandN(dtype.F32, 6, batch, n, n)
	ad, bd := a.To(dev), b.To(dev)
	tt, err := timeIt(minDur, func() error {
		c := ad.Matmul(bd)
		defer c.Release()
		if err := c.Err(); err != nil {
			return err
		}
		return dev.Backend().Sync()
	})
	if err != nil {
		return err
	}
	av, _ := tensor.ToSlice[float32](a)
	bv, _ := tensor.ToSlice[float32](b)
	cv := make([]float32, batch*n*n)
	tg, _ := timeIt(minDur, func() error {
		for i := range batch {
			m := func(v []float32) blas32.General {
				return blas32.General{Rows: n, Cols: n, Stride: n, Data: v[i*n*n : (i+1)*n*n]}
			}
			blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, m(av), m(bv), 0, m(cv))
		}
		return nil
	})
	flop := 2 * float64(batch) * n * n * n
	fmt.Fprintf(w, "\nbatched %dx%dx%dx%d f32: tessera %.2f GFLOP/s, gonum loop %.2f GFLOP/s, tessera/gonum %.2fx\n",
		batch, n, n, n, flop/tt.Seconds()/1e9, flop/tg.Seconds()/1e9, tg.Seconds()/tt.Seconds())
	return nil
}
