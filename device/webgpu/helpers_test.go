//go:build cgo

package webgpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

// openOrSkip opens a software WebGPU device with o. Without an adapter the
// test is skipped, unless TESSERA_REQUIRE_WEBGPU=1 makes that a failure.
func openOrSkip(t testing.TB, o Options) *gpu {
	t.Helper()
	o.Software = true
	d, err := OpenWith(o)
	if err != nil {
		if errors.Is(err, errs.ErrUnavailable) && os.Getenv("TESSERA_REQUIRE_WEBGPU") != "1" {
			t.Skipf("no software WebGPU adapter: %v", err)
		}
		t.Fatalf("OpenWith: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d.(*gpu)
}

var (
	sharedOnce sync.Once
	sharedDev  *gpu
	sharedErr  error
)

// dev returns a software device shared by the tests that need no special
// options, so pipelines compile once.
func dev(t testing.TB) *gpu {
	t.Helper()
	sharedOnce.Do(func() {
		d, err := OpenWith(Options{Software: true})
		if err != nil {
			sharedErr = err
			return
		}
		sharedDev = d.(*gpu)
	})
	if sharedErr != nil {
		if errors.Is(sharedErr, errs.ErrUnavailable) && os.Getenv("TESSERA_REQUIRE_WEBGPU") != "1" {
			t.Skipf("no software WebGPU adapter: %v", sharedErr)
		}
		t.Fatalf("OpenWith: %v", sharedErr)
	}
	return sharedDev
}

// encode converts values to dt's host bytes. Values must be representable
// (tests pick them so), except that floats round to nearest even.
func encode(dt dtype.DType, vals []float64) []byte {
	out := make([]byte, len(vals)*dt.Size())
	for i, v := range vals {
		switch dt {
		case dtype.F32:
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(v)))
		case dtype.F16:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(dtype.F16FromFloat64(v)))
		case dtype.I32:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(int32(v)))
		case dtype.I64:
			binary.LittleEndian.PutUint64(out[8*i:], uint64(int64(v)))
		case dtype.U8:
			out[i] = uint8(v)
		case dtype.Bool:
			if v != 0 {
				out[i] = 1
			}
		}
	}
	return out
}

// decode converts host bytes of dt to float64.
func decode(dt dtype.DType, b []byte) []float64 {
	n := len(b) / dt.Size()
	out := make([]float64, n)
	for i := range out {
		switch dt {
		case dtype.F32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		case dtype.F16:
			out[i] = float64(dtype.Float16(binary.LittleEndian.Uint16(b[2*i:])).Float32())
		case dtype.I32:
			out[i] = float64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		case dtype.I64:
			out[i] = float64(int64(binary.LittleEndian.Uint64(b[8*i:])))
		case dtype.U8, dtype.Bool:
			out[i] = float64(b[i])
		}
	}
	return out
}

// upload allocates a buffer of dt holding vals.
func upload(t testing.TB, g *gpu, dt dtype.DType, vals []float64) device.Buffer {
	t.Helper()
	b, err := g.Alloc(dt, len(vals))
	if err != nil {
		t.Fatalf("Alloc(%s, %d): %v", dt, len(vals), err)
	}
	t.Cleanup(func() { g.Free(b) })
	if err := g.Upload(b, 0, encode(dt, vals)); err != nil {
		t.Fatalf("Upload: %v", err)
	}
	return b
}

// alloc allocates a buffer of n elements pre-filled with a NaN-like
// sentinel (so kernels that skip elements are caught).
func alloc(t testing.TB, g *gpu, dt dtype.DType, n int) device.Buffer {
	t.Helper()
	b, err := g.Alloc(dt, n)
	if err != nil {
		t.Fatalf("Alloc(%s, %d): %v", dt, n, err)
	}
	t.Cleanup(func() { g.Free(b) })
	fill := make([]float64, n)
	for i := range fill {
		fill[i] = sentinel(dt)
	}
	if n > 0 {
		if err := g.Upload(b, 0, encode(dt, fill)); err != nil {
			t.Fatalf("Upload: %v", err)
		}
	}
	return b
}

func sentinel(dt dtype.DType) float64 {
	switch dt {
	case dtype.F32, dtype.F16:
		return math.NaN()
	case dtype.U8:
		return 77
	case dtype.Bool:
		return 1
	}
	return -777
}

// download reads all of b as float64.
func download(t testing.TB, g *gpu, b device.Buffer) []float64 {
	t.Helper()
	out := make([]byte, b.Len()*b.DType().Size())
	if err := g.Download(out, b, 0); err != nil {
		t.Fatalf("Download: %v", err)
	}
	return decode(b.DType(), out)
}

// contig is the row-major layout of shape.
func contig(shape ...int) layout.Layout {
	l, err := layout.Contiguous(shape...)
	if err != nil {
		panic(err)
	}
	return l
}

// each calls fn with every index of shape in row-major order.
func each(shape []int, fn func(idx []int)) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	idx := make([]int, len(shape))
	for k := 0; k < n; k++ {
		fn(idx)
		for a := len(shape) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < shape[a] {
				break
			}
			idx[a] = 0
		}
	}
}

// gather returns the logical elements of a view of host values, row-major.
func gather(vals []float64, l layout.Layout) []float64 {
	var out []float64
	each(l.Shape, func(idx []int) { out = append(out, vals[l.OffsetOf(idx)]) })
	return out
}

// randVals returns n values uniform in [lo, hi), rounded to dt.
func randVals(r *rand.Rand, dt dtype.DType, n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		v := lo + (hi-lo)*r.Float64()
		out[i] = roundTo(dt, v)
	}
	return out
}

// roundTo rounds v to the nearest value dt holds.
func roundTo(dt dtype.DType, v float64) float64 {
	switch dt {
	case dtype.F32:
		return float64(float32(v))
	case dtype.F16:
		return float64(dtype.F16FromFloat64(v).Float32())
	case dtype.I32, dtype.I64:
		return math.Trunc(v)
	case dtype.U8:
		return math.Trunc(math.Min(math.Max(v, 0), 255))
	case dtype.Bool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}

// closeEnough compares got with want: equal NaN-ness and infinities, else
// |got-want| <= abs + rel*|want|.
func closeEnough(got, want, rel, abs float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return got == want
	}
	return math.Abs(got-want) <= abs+rel*math.Abs(want)
}

// checkClose fails the test at the first element out of tolerance.
func checkClose(t testing.TB, what string, got, want []float64, rel, abs float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range want {
		if !closeEnough(got[i], want[i], rel, abs) {
			if bad < 5 {
				t.Errorf("%s: [%d] = %v, want %v (rel %g, abs %g)", what, i, got[i], want[i], rel, abs)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d values out of tolerance", what, bad, len(want))
	}
}

// wantKind fails unless err wraps kind.
func wantKind(t testing.TB, what string, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Errorf("%s: got error %v, want kind %v", what, err, kind)
	}
}

func op(b device.Buffer, l layout.Layout) device.Operand { return device.Operand{Buf: b, Layout: l} }

func fmtShape(s []int) string { return fmt.Sprint(s) }

func errorsIs(err, kind error) bool { return errors.Is(err, kind) }

func prodInts(s []int) int {
	p := 1
	for _, d := range s {
		p *= d
	}
	return p
}
