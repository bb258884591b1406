//go:build cgo

package webgpu

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// TestNoLeaks runs 10,000 alloc/compute/free cycles: MemoryInUse returns to
// its baseline and the GPU memory held (live, pooled, awaiting completion)
// stays bounded by the pool.
func TestNoLeaks(t *testing.T) {
	g := openOrSkip(t, Options{PoolBytes: 4 << 20})
	base := g.MemoryInUse()
	src := upload(t, g, dtype.F32, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	for i := 0; i < 10000; i++ {
		n := 8 + i%40
		d, err := g.Alloc(dtype.F32, n)
		if err != nil {
			t.Fatal(err)
		}
		e, err := g.Alloc(dtype.F32, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Fill(op2(d, contig(n)), float64(i)); err != nil {
			t.Fatal(err)
		}
		bc, _ := contig(8).Narrow(0, 0, 1)
		bcl, _ := bc.BroadcastTo(n)
		if err := g.Binary(device.Add, op2(e, contig(n)), op2(d, contig(n)), op2(src, bcl)); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 {
			out := make([]byte, 4)
			if err := g.Download(out, e, n-1); err != nil {
				t.Fatal(err)
			}
			if got := decode(dtype.F32, out)[0]; got != float64(i+1) {
				t.Fatalf("cycle %d: got %v", i, got)
			}
		}
		g.Free(d)
		g.Free(e)
	}
	if err := g.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := g.MemoryInUse(); got != base+int64(src.(*gbuf).size) {
		t.Errorf("MemoryInUse %d after the cycles, want %d", got, base+int64(src.(*gbuf).size))
	}
	g.mu.Lock()
	retired, pooled := len(g.retired), g.pool.Bytes()
	g.mu.Unlock()
	if retired != 0 {
		t.Errorf("%d resources still awaiting completion after Sync", retired)
	}
	if pooled > 4<<20 {
		t.Errorf("pool holds %d bytes, above its bound", pooled)
	}
	if total := g.stats.gpuBytes.Load(); total > 16<<20 {
		t.Errorf("%d bytes of GPU buffers exist after the cycles", total)
	}
	if allocs := g.stats.gpuAllocs.Load(); allocs > 200 {
		t.Errorf("%d GPU buffers created for 20,000 allocations: the pool is not reused", allocs)
	}
}

// TestFreeWaitsForWork checks that a freed buffer still used by queued
// work is not reused until that work completes.
func TestFreeWaitsForWork(t *testing.T) {
	g := openOrSkip(t, Options{})
	a := upload(t, g, dtype.F32, make([]float64, 1024))
	d, _ := g.Alloc(dtype.F32, 1024)
	if err := g.Unary(device.Exp, op2(d, contig(1024)), op2(a, contig(1024))); err != nil {
		t.Fatal(err)
	}
	g.Free(d) // queued work still writes d
	g.mu.Lock()
	queued := len(g.retired) > 0
	g.mu.Unlock()
	if !queued {
		t.Errorf("a buffer freed while in use went straight back to the pool")
	}
	if err := g.Sync(); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	left := len(g.retired)
	g.mu.Unlock()
	if left != 0 {
		t.Errorf("%d resources not recycled after Sync", left)
	}
}

// TestConcurrent drives one device from 8 goroutines (run it with -race).
func TestConcurrent(t *testing.T) {
	g := dev(t)
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for it := 0; it < 20; it++ {
				n := 100 + w*7 + it
				vals := make([]float64, n)
				for i := range vals {
					vals[i] = float64(i + w)
				}
				a, err := g.Alloc(dtype.F32, n)
				if err != nil {
					errc <- err
					return
				}
				if err := g.Upload(a, 0, encode(dtype.F32, vals)); err != nil {
					errc <- err
					return
				}
				sq, _ := g.Alloc(dtype.F32, n)
				s, _ := g.Alloc(dtype.F32, 1)
				if err := g.Binary(device.Mul, op2(sq, contig(n)), op2(a, contig(n)), op2(a, contig(n))); err != nil {
					errc <- err
					return
				}
				if err := g.Reduce(device.Sum, op2(s, layout.Layout{Shape: []int{}, Strides: []int{}}), op2(sq, contig(n)), []int{0}); err != nil {
					errc <- err
					return
				}
				out := make([]byte, 4)
				if err := g.Download(out, s, 0); err != nil {
					errc <- err
					return
				}
				want := 0.0
				for _, v := range vals {
					want += v * v
				}
				if got := decode(dtype.F32, out)[0]; math.Abs(got-want) > 1e-5*want {
					errc <- fmt.Errorf("worker %d iteration %d: sum %v, want %v", w, it, got, want)
					return
				}
				g.Free(a)
				g.Free(sq)
				g.Free(s)
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if err := g.Sync(); err != nil {
		t.Error(err)
	}
}

// TestDeviceLost marks a device lost: every later call fails fast with
// ErrDeviceLost instead of hanging.
func TestDeviceLost(t *testing.T) {
	g := openOrSkip(t, Options{})
	a := upload(t, g, dtype.F32, []float64{1, 2, 3})
	d := alloc(t, g, dtype.F32, 3)
	if err := g.Unary(device.Neg, op2(d, contig(3)), op2(a, contig(3))); err != nil {
		t.Fatal(err)
	}
	g.markLost("simulated by the test")
	start := time.Now()
	_, err := g.Alloc(dtype.F32, 3)
	wantKind(t, "Alloc", err, errs.ErrDeviceLost)
	wantKind(t, "Upload", g.Upload(a, 0, make([]byte, 4)), errs.ErrDeviceLost)
	wantKind(t, "Download", g.Download(make([]byte, 4), d, 0), errs.ErrDeviceLost)
	wantKind(t, "Unary", g.Unary(device.Neg, op2(d, contig(3)), op2(a, contig(3))), errs.ErrDeviceLost)
	wantKind(t, "Matmul", g.Matmul(op2(d, contig(1, 3)), op2(a, contig(1, 1)), op2(a, contig(1, 3))), errs.ErrDeviceLost)
	wantKind(t, "Reduce", g.Reduce(device.Sum, op2(d, contig(3)), op2(a, contig(3)), nil), errs.ErrDeviceLost)
	wantKind(t, "Sync", g.Sync(), errs.ErrDeviceLost)
	if time.Since(start) > 5*time.Second {
		t.Errorf("calls on a lost device took %v", time.Since(start))
	}
	if err := g.Close(); err != nil {
		t.Errorf("Close of a lost device: %v", err)
	}
}

func TestAsyncErrorAndBadKernel(t *testing.T) {
	g := openOrSkip(t, Options{})
	g.asyncError("test", "something failed in a batch")
	err := g.Sync()
	wantKind(t, "first Sync", err, errs.ErrUnsupported)
	if err := g.Sync(); err != nil {
		t.Errorf("second Sync: %v (the error is reported once)", err)
	}
	g.mu.Lock()
	_, err = g.kernelLocked("test", "unary.wgsl", map[string]string{"OP": "no_such_function", "DC": "f32", "SC": "f32"}, 1, 1)
	g.mu.Unlock()
	wantKind(t, "WGSL that does not compile", err, errs.ErrUnsupported)
	g.mu.Lock()
	_, err = g.kernelLocked("test", "unary.wgsl", map[string]string{}, 1, 1)
	g.mu.Unlock()
	wantKind(t, "template with missing values", err, errs.ErrUnsupported)
	_, err = OpenWith(Options{Software: true, Matmul: "fancy"})
	wantKind(t, "unknown matmul variant", err, errs.ErrValue)
}

func TestClosedDevice(t *testing.T) {
	d, err := OpenWith(Options{Software: true})
	if err != nil {
		t.Skip(err)
	}
	g := d.(*gpu)
	b, err := g.Alloc(dtype.F32, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	wantKind(t, "Upload after Close", g.Upload(b, 0, make([]byte, 4)), errs.ErrDeviceLost)
	wantKind(t, "Fill after Close", g.Fill(op2(b, contig(4)), 1), errs.ErrDeviceLost)
	g.Free(b) // harmless
	if g.MemoryInUse() != 0 {
		t.Errorf("MemoryInUse %d after Close and Free", g.MemoryInUse())
	}
}
