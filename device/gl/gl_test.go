//go:build cgo && linux

package gl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// f32s encodes float64 values as f32 host bytes.
func f32s(vals []float64) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	}
	return b
}

// upload allocates an f32 buffer holding vals.
func upload(t testing.TB, g *gpu, vals []float64) device.Buffer {
	t.Helper()
	b, err := g.Alloc(dtype.F32, len(vals))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Upload(b, 0, f32s(vals)); err != nil {
		t.Fatal(err)
	}
	return b
}

// read downloads an f32 buffer.
func read(t testing.TB, g *gpu, b device.Buffer) []float64 {
	t.Helper()
	raw := make([]byte, 4*b.Len())
	if err := g.Download(raw, b, 0); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, b.Len())
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
	}
	return out
}

func contig(shape ...int) layout.Layout {
	l, _ := layout.Contiguous(shape...)
	return l
}

func op(b device.Buffer, l layout.Layout) device.Operand { return device.Operand{Buf: b, Layout: l} }

func ramp(n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%1000)*scale - 3
	}
	return v
}

// TestInfo checks that the software device describes its context: the
// renderer is llvmpipe, and the limits that bound one call are read from
// the context.
func TestInfo(t *testing.T) {
	g := dev(t)
	info := g.Info()
	if info.Name != "gl:software" || info.Type != "software" || info.Hardware || info.Backend != "opengl" {
		t.Errorf("info %+v", info)
	}
	if !strings.Contains(info.Adapter, "llvmpipe") || info.Vendor == "" || !strings.Contains(info.Driver, "Core Profile") {
		t.Errorf("adapter %q vendor %q driver %q", info.Adapter, info.Vendor, info.Driver)
	}
	lim := map[string]uint64{}
	for _, l := range info.Limits {
		lim[l.Name] = l.Value
	}
	for _, name := range []string{"GL_MAX_SHADER_STORAGE_BLOCK_SIZE", "GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]", "GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS", "GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT"} {
		if lim[name] == 0 {
			t.Errorf("limit %s missing or zero (%v)", name, info.Limits)
		}
	}
	// OpenGL 4.3 guarantees a 16 MiB storage block and 65535 workgroups.
	if lim["GL_MAX_SHADER_STORAGE_BLOCK_SIZE"] < 1<<24 || lim["GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]"] < 65535 {
		t.Errorf("limits below the OpenGL 4.3 minimums: %v", info.Limits)
	}
}

// TestLimitSplitting shrinks the binding and grid limits so that
// elementwise work, reductions and U8 readback are split into several
// bindings and folded grids, and checks the values against float64.
func TestLimitSplitting(t *testing.T) {
	g := openOrSkip(t, Options{MaxBindingSize: 64 << 10, MaxWorkgroupsPerDim: 3})
	const n = 100_000 // 400 KB of f32: seven bindings
	x := ramp(n, 0.01)
	a := upload(t, g, x)
	c := upload(t, g, x)
	d, _ := g.Alloc(dtype.F32, n)
	l := contig(n)
	if err := g.Binary(device.Mul, op(d, l), op(a, l), op(c, l)); err != nil {
		t.Fatal(err)
	}
	got := read(t, g, d)
	for i, v := range got {
		if want := float64(float32(x[i]) * float32(x[i])); v != want {
			t.Fatalf("Mul[%d] = %v, want %v", i, v, want)
		}
	}
	s, _ := g.Alloc(dtype.F32, 1)
	if err := g.Reduce(device.Sum, op(s, contig()), op(a, l), []int{0}); err != nil {
		t.Fatal(err)
	}
	var want float64
	for _, v := range x {
		want += float64(float32(v))
	}
	if sum := read(t, g, s)[0]; math.Abs(sum-want) > 1e-5*math.Abs(want)+1e-3 {
		t.Errorf("Sum = %v, want %v", sum, want)
	}
	// U8 upload (widened on the GPU) and readback (narrowed in pieces).
	u, _ := g.Alloc(dtype.U8, n)
	bytes := make([]byte, n)
	for i := range bytes {
		bytes[i] = byte(i * 7)
	}
	if err := g.Upload(u, 0, bytes); err != nil {
		t.Fatal(err)
	}
	back := make([]byte, n-3)
	if err := g.Download(back, u, 3); err != nil {
		t.Fatal(err)
	}
	for i, v := range back {
		if v != bytes[i+3] {
			t.Fatalf("U8[%d] = %d, want %d", i+3, v, bytes[i+3])
		}
	}
	// A matrix whose span exceeds one binding is refused, typed.
	big := upload(t, g, ramp(200*200, 0.001))
	out, _ := g.Alloc(dtype.F32, 200*200)
	err := g.Matmul(op(out, contig(200, 200)), op(big, contig(200, 200)), op(big, contig(200, 200)))
	if !errors.Is(err, errs.ErrOutOfMemory) {
		t.Errorf("Matmul beyond the binding limit: %v, want ErrOutOfMemory", err)
	}
}

// TestMatmulGridFolding runs a matmul whose grid exceeds a tiny workgroup
// limit and compares it with a float64 product, for each kernel variant,
// with a transposed right operand read in place.
func TestMatmulGridFolding(t *testing.T) {
	g := openOrSkip(t, Options{MaxWorkgroupsPerDim: 2})
	const m, k, n = 37, 29, 41
	av, bv := ramp(m*k, 0.003), ramp(k*n, 0.002)
	a, b := upload(t, g, av), upload(t, g, bv)
	bt := layout.Layout{Shape: []int{k, n}, Strides: []int{1, k}} // b stored n x k, read transposed
	for _, variant := range []string{"regblock", "shared", "naive"} {
		d, _ := g.Alloc(dtype.F32, m*n)
		if err := g.MatmulWith("Matmul", op(d, contig(m, n)), op(a, contig(m, k)), op(b, bt), variant); err != nil {
			t.Fatalf("%s: %v", variant, err)
		}
		got := read(t, g, d)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var want float64
				for p := 0; p < k; p++ {
					want += float64(float32(av[i*k+p])) * float64(float32(bv[j*k+p]))
				}
				if math.Abs(got[i*n+j]-want) > 1e-5*(1+math.Abs(want)) {
					t.Fatalf("%s: [%d,%d] = %v, want %v", variant, i, j, got[i*n+j], want)
				}
			}
		}
		g.Free(d)
	}
}

// TestAllocFreeNoLeak runs 10,000 alloc/upload/free cycles of varied sizes:
// memory in use returns to zero and the GL memory held (live and pooled)
// stays bounded by the pool, because freed buffers are reused.
func TestAllocFreeNoLeak(t *testing.T) {
	g := openOrSkip(t, Options{})
	src := f32s(ramp(4096, 1))
	for i := 0; i < 10_000; i++ {
		n := 256 + (i%17)*200
		b, err := g.Alloc(dtype.F32, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Upload(b, 0, src[:4*n]); err != nil {
			t.Fatal(err)
		}
		g.Free(b)
	}
	if err := g.Sync(); err != nil {
		t.Fatal(err)
	}
	if m := g.MemoryInUse(); m != 0 {
		t.Errorf("MemoryInUse after 10,000 cycles = %d, want 0", m)
	}
	if n := g.stats.glBuffers.Load(); n > 17 {
		t.Errorf("%d GL buffers created for 17 sizes: freed buffers are not reused", n)
	}
	if b := g.stats.glBytes.Load(); b > 1<<20 {
		t.Errorf("%d bytes of GL buffers held after the loop", b)
	}
}

// TestConcurrentUse has 8 goroutines share one device (run it with -race):
// each uploads its own values, adds them to themselves and reads them
// back, so any mix-up between goroutines shows in the values.
func TestConcurrentUse(t *testing.T) {
	g := dev(t)
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for it := 0; it < 25; it++ {
				n := 1000 + w*37 + it
				x := make([]float64, n)
				for i := range x {
					x[i] = float64(w*100000 + it*1000 + i%1000)
				}
				a := upload(t, g, x)
				d, err := g.Alloc(dtype.F32, n)
				if err != nil {
					errc <- err
					return
				}
				l := contig(n)
				if err := g.Binary(device.Add, op(d, l), op(a, l), op(a, l)); err != nil {
					errc <- err
					return
				}
				got := read(t, g, d)
				for i, v := range got {
					if v != 2*x[i] {
						errc <- fmt.Errorf("goroutine %d iteration %d: [%d] = %v, want %v", w, it, i, v, 2*x[i])
						return
					}
				}
				g.Free(a)
				g.Free(d)
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

// TestClosed checks that a closed device answers every call with
// ErrDeviceLost and that freeing its buffers afterwards is harmless.
func TestClosed(t *testing.T) {
	g := openOrSkip(t, Options{})
	b := upload(t, g, []float64{1, 2, 3})
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := g.Alloc(dtype.F32, 4); !errors.Is(err, errs.ErrDeviceLost) {
		t.Errorf("Alloc after Close: %v, want ErrDeviceLost", err)
	}
	if err := g.Download(make([]byte, 12), b, 0); !errors.Is(err, errs.ErrDeviceLost) {
		t.Errorf("Download after Close: %v, want ErrDeviceLost", err)
	}
	if err := g.Sync(); !errors.Is(err, errs.ErrDeviceLost) {
		t.Errorf("Sync after Close: %v, want ErrDeviceLost", err)
	}
	g.Free(b)
	if m := g.MemoryInUse(); m != 0 {
		t.Errorf("MemoryInUse after freeing everything = %d", m)
	}
}

// TestLostDevice checks that once the context is declared lost (as a wait
// timeout or GL_CONTEXT_LOST does) every call reports ErrDeviceLost.
func TestLostDevice(t *testing.T) {
	g := openOrSkip(t, Options{})
	b := upload(t, g, []float64{1, 2, 3})
	g.markLost("test")
	for name, err := range map[string]error{
		"Sync":     g.Sync(),
		"Fill":     g.Fill(op(b, contig(3)), 1),
		"Download": g.Download(make([]byte, 12), b, 0),
	} {
		if !errors.Is(err, errs.ErrDeviceLost) || !strings.Contains(err.Error(), "test") {
			t.Errorf("%s on a lost device: %v, want ErrDeviceLost", name, err)
		}
	}
}

// TestWaitTimeout gives waits a bound far below a large matmul's running
// time: the readback then either finished in time (the values are right)
// or reported ErrDeviceLost, after which the device refuses work; it never
// hangs or crashes.
func TestWaitTimeout(t *testing.T) {
	g := openOrSkip(t, Options{WaitTimeout: time.Nanosecond, Matmul: "naive"})
	const n = 256
	v := ramp(n*n, 0.0001)
	a := upload(t, g, v)
	d, _ := g.Alloc(dtype.F32, n*n)
	l := contig(n, n)
	if err := g.Matmul(op(d, l), op(a, l), op(a, l)); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 4)
	err := g.Download(raw, d, 0)
	switch {
	case err == nil:
		var want float64
		for p := 0; p < n; p++ {
			want += float64(float32(v[p])) * float64(float32(v[p*n]))
		}
		if got := float64(math.Float32frombits(binary.LittleEndian.Uint32(raw))); math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
			t.Errorf("[0,0] = %v, want %v", got, want)
		}
	case errors.Is(err, errs.ErrDeviceLost):
		t.Logf("the wait timed out: %v", err)
		if err := g.Sync(); !errors.Is(err, errs.ErrDeviceLost) {
			t.Errorf("Sync after a timed-out wait: %v, want ErrDeviceLost", err)
		}
	default:
		t.Errorf("Download: %v, want success or ErrDeviceLost", err)
	}
}

// TestMissingEGL runs this test binary again with TESSERA_GL_LIBEGL
// naming a library that does not exist: opening a device must report
// ErrUnavailable naming the Debian packages, not crash.
func TestMissingEGL(t *testing.T) {
	if os.Getenv("TESSERA_GL_MISSING_CHILD") == "1" {
		_, err := OpenWith(Options{Software: true})
		if !errors.Is(err, errs.ErrUnavailable) || !strings.Contains(err.Error(), "libegl1 libgl1 libgl1-mesa-dri") {
			t.Fatalf("OpenWith without libEGL: %v, want ErrUnavailable naming the packages", err)
		}
		if _, err := device.Open("gl:software"); !errors.Is(err, errs.ErrUnavailable) {
			t.Fatalf("device.Open without libEGL: %v", err)
		}
		if infos, err := (driver{}).Enumerate(); err != nil || len(infos) != 0 {
			t.Fatalf("Enumerate without libEGL: %v, %v", infos, err)
		}
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run", "^TestMissingEGL$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TESSERA_GL_MISSING_CHILD=1", "TESSERA_GL_LIBEGL=libtessera-no-such-egl.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Errorf("child: %v\n%s", err, out)
	}
}

// TestFusedCacheBounded runs more distinct fused programs than the cache
// holds: each result is right, and evicted programs are deleted.
func TestFusedCacheBounded(t *testing.T) {
	g := openOrSkip(t, Options{})
	defer func(n int) { maxFusedKernels = n }(maxFusedKernels)
	maxFusedKernels = 2
	const n = 300
	x := ramp(n, 0.01)
	a := upload(t, g, x)
	l := contig(n)
	ops := []device.UnaryOp{device.Neg, device.Abs, device.Relu, device.Square}
	ref := []func(float64) float64{
		func(v float64) float64 { return -v }, math.Abs,
		func(v float64) float64 { return max(v, 0) },
		func(v float64) float64 { return float64(float32(v) * float32(v)) },
	}
	for round := 0; round < 2; round++ {
		for i, u := range ops {
			// (x + 1.5) then the unary op: a program of four steps.
			p := device.Program{DType: dtype.F32, Steps: []device.Step{
				{Kind: device.StepInput, Input: 0},
				{Kind: device.StepConst, Const: 1.5},
				{Kind: device.StepBinary, Binary: device.Add, A: 0, B: 1},
				{Kind: device.StepUnary, Unary: u, A: 2},
			}}
			d, _ := g.Alloc(dtype.F32, n)
			if err := g.Fused(op(d, l), p, []device.Operand{op(a, l)}); err != nil {
				t.Fatal(err)
			}
			for j, v := range read(t, g, d) {
				if want := ref[i](float64(float32(x[j]) + 1.5)); math.Abs(v-want) > 1e-6*(1+math.Abs(want)) {
					t.Fatalf("%v: [%d] = %v, want %v", u, j, v, want)
				}
			}
			g.Free(d)
		}
	}
	var cached int
	g.call("count", func() error {
		cached = g.fused.Len()
		return nil
	})
	if cached != 2 {
		t.Errorf("%d fused kernels cached, want the bound 2", cached)
	}
}

// TestHungGPU simulates a GPU that never signals a fence, and one whose
// wait fails: Download and Sync return ErrDeviceLost within the wait
// timeout instead of hanging, and the device refuses work afterwards.
func TestHungGPU(t *testing.T) {
	for _, c := range []struct {
		name   string
		status uint32
	}{{"timeout", glTimeoutExpired}, {"failed", glWaitFailed}} {
		t.Run(c.name, func(t *testing.T) {
			g := openOrSkip(t, Options{WaitTimeout: 20 * time.Millisecond})
			b := upload(t, g, []float64{1, 2, 3})
			defer func(f func(unsafe.Pointer, uint64) uint32) { waitSlice = f }(waitSlice)
			waitSlice = func(unsafe.Pointer, uint64) uint32 { return c.status }
			start := time.Now()
			err := g.Download(make([]byte, 12), b, 0)
			if !errors.Is(err, errs.ErrDeviceLost) {
				t.Fatalf("Download: %v, want ErrDeviceLost", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the wait took %v with a 20ms timeout", d)
			}
			if _, err := g.Alloc(dtype.F32, 3); !errors.Is(err, errs.ErrDeviceLost) {
				t.Errorf("Alloc after the loss: %v, want ErrDeviceLost", err)
			}
			if err := g.Sync(); !errors.Is(err, errs.ErrDeviceLost) {
				t.Errorf("Sync after the loss: %v, want ErrDeviceLost", err)
			}
		})
	}
}
