//go:build cgo

package webgpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
	"github.com/tessera-go/tessera/layout"
)

func TestOpenInfo(t *testing.T) {
	g := dev(t)
	in := g.Info()
	if in.Name != "webgpu:software" || g.Name() != "webgpu:software" {
		t.Errorf("name %q / %q, want webgpu:software", in.Name, g.Name())
	}
	if in.Type != "software" || in.Hardware {
		t.Errorf("software adapter reported as type %q hardware=%v", in.Type, in.Hardware)
	}
	if in.Backend == "" || in.Adapter == "" || in.Vendor == "" || in.Driver == "" {
		t.Errorf("incomplete info: %+v", in)
	}
	lim := map[string]uint64{}
	for _, l := range in.Limits {
		lim[l.Name] = l.Value
	}
	for _, name := range []string{"maxStorageBufferBindingSize", "maxBufferSize", "maxComputeWorkgroupsPerDimension", "minStorageBufferOffsetAlignment"} {
		if lim[name] == 0 {
			t.Errorf("limit %s missing or zero in %v", name, in.Limits)
		}
	}
	has := map[dtype.DType]bool{}
	for _, d := range in.DTypes {
		has[d] = true
	}
	if !has[dtype.F32] || !has[dtype.I32] || !has[dtype.U8] || has[dtype.F64] {
		t.Errorf("dtypes %v", in.DTypes)
	}
	if g.Backend() != device.Backend(g) {
		t.Errorf("Backend is not the device")
	}
	if _, ok := g.Backend().(device.Softmaxer); !ok {
		t.Errorf("backend does not implement Softmaxer")
	}
}

func TestRegistry(t *testing.T) {
	dev(t)
	infos, err := driver{}.Enumerate()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, in := range infos {
		names[in.Name] = true
	}
	if !names["webgpu:software"] {
		t.Errorf("Enumerate lists %v, want webgpu:software among them", infos)
	}
	d, err := device.Open("webgpu:software")
	if err != nil {
		t.Fatalf("device.Open: %v", err)
	}
	if d.Name() != "webgpu:software" {
		t.Errorf("opened %q", d.Name())
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Backend().Alloc(dtype.F32, 4); !errorsIs(err, errs.ErrDeviceLost) {
		t.Errorf("Alloc on closed device: %v, want ErrDeviceLost", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	_, err = device.Open("webgpu:nonsense")
	wantKind(t, "unknown name", err, errs.ErrDevice)
}

func TestRoundTrip(t *testing.T) {
	g := dev(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, dt := range []dtype.DType{dtype.F32, dtype.F16, dtype.I32, dtype.I64, dtype.U8, dtype.Bool} {
		for _, n := range []int{0, 1, 2, 3, 5, 17, 1000, 4099} {
			vals := randVals(r, dt, n, -300, 300)
			b := upload(t, g, dt, vals)
			got := download(t, g, b)
			checkClose(t, dt.String()+" full", got, vals, 0, 0)
			if n < 3 {
				continue
			}
			// Partial, unaligned writes and reads.
			for _, off := range []int{1, 2, n / 2} {
				cnt := n - off - 1
				if cnt <= 0 {
					continue
				}
				part := randVals(r, dt, cnt, -300, 300)
				if err := g.Upload(b, off, encode(dt, part)); err != nil {
					t.Fatalf("%s n=%d off=%d: Upload: %v", dt, n, off, err)
				}
				copy(vals[off:], part)
				out := make([]byte, cnt*dt.Size())
				if err := g.Download(out, b, off); err != nil {
					t.Fatalf("Download: %v", err)
				}
				checkClose(t, dt.String()+" part", decode(dt, out), part, 0, 0)
				checkClose(t, dt.String()+" after part", download(t, g, b), vals, 0, 0)
			}
		}
	}
}

func TestAllocErrors(t *testing.T) {
	g := dev(t)
	for _, dt := range []dtype.DType{dtype.F64, dtype.BF16} {
		_, err := g.Alloc(dt, 4)
		wantKind(t, "Alloc "+dt.String(), err, errs.ErrDType)
		if err != nil && (!strings.Contains(err.Error(), dt.String()) || !strings.Contains(err.Error(), "Cast to f32 first")) {
			t.Errorf("message %q should name %s and the remedy", err, dt)
		}
	}
	_, err := g.Alloc(dtype.Invalid, 4)
	wantKind(t, "Alloc invalid", err, errs.ErrDType)
	_, err = g.Alloc(dtype.F32, -1)
	wantKind(t, "Alloc -1", err, errs.ErrShape)
	_, err = g.Alloc(dtype.F32, 1<<40)
	wantKind(t, "Alloc huge", err, errs.ErrOutOfMemory)
	if err != nil && !strings.Contains(err.Error(), "maxBufferSize") {
		t.Errorf("message %q should name the limit", err)
	}
	b, err := g.Alloc(dtype.F32, 0)
	if err != nil {
		t.Fatalf("Alloc 0: %v", err)
	}
	if err := g.Upload(b, 0, nil); err != nil {
		t.Errorf("Upload 0: %v", err)
	}
	if err := g.Download(nil, b, 0); err != nil {
		t.Errorf("Download 0: %v", err)
	}
	if err := g.Fill(op(b, contig(0)), 1); err != nil {
		t.Errorf("Fill empty: %v", err)
	}
	g.Free(b)

	b = upload(t, g, dtype.F32, []float64{1, 2, 3, 4})
	wantKind(t, "Upload past end", g.Upload(b, 3, make([]byte, 8)), errs.ErrShape)
	wantKind(t, "Upload negative", g.Upload(b, -1, make([]byte, 4)), errs.ErrShape)
	wantKind(t, "Upload ragged", g.Upload(b, 0, make([]byte, 6)), errs.ErrShape)
	wantKind(t, "Download past end", g.Download(make([]byte, 20), b, 0), errs.ErrShape)
	wantKind(t, "Upload nil buffer", g.Upload(nil, 0, nil), errs.ErrDevice)
	wantKind(t, "Upload foreign", g.Upload(fakeBuf{}, 0, nil), errs.ErrDevice)
	g.Free(b)
	g.Free(b) // twice is harmless
	g.Free(nil)
	g.Free(fakeBuf{})
	wantKind(t, "Upload freed", g.Upload(b, 0, make([]byte, 4)), errs.ErrReleased)
	wantKind(t, "Download freed", g.Download(make([]byte, 4), b, 0), errs.ErrReleased)
	wantKind(t, "Fill freed", g.Fill(op(b, contig(4)), 0), errs.ErrReleased)
}

type fakeBuf struct{}

func (fakeBuf) DType() dtype.DType { return dtype.F32 }
func (fakeBuf) Len() int           { return 4 }

func TestFill(t *testing.T) {
	g := dev(t)
	cases := []struct {
		dt   dtype.DType
		v    float64
		want float64
	}{
		{dtype.F32, 3.7, float64(float32(3.7))},
		{dtype.F32, math.Inf(-1), math.Inf(-1)},
		{dtype.F32, math.NaN(), math.NaN()},
		{dtype.F16, 1.0 / 3, float64(dtype.F16FromFloat64(1.0 / 3).Float32())},
		{dtype.F16, 70000, math.Inf(1)},
		{dtype.I32, -2.7, -2},
		{dtype.I32, 1e10, math.MaxInt32},
		{dtype.I32, -1e10, math.MinInt32},
		{dtype.I32, math.NaN(), 0},
		{dtype.U8, 300, 255},
		{dtype.U8, -4, 0},
		{dtype.U8, 7.9, 7},
		{dtype.Bool, 0.5, 1},
		{dtype.Bool, 0, 0},
		{dtype.Bool, math.NaN(), 1},
	}
	for _, c := range cases {
		// A strided view: every other element of a 3x8 buffer's rows 0..1.
		b := alloc(t, g, c.dt, 24)
		l := layout.Layout{Shape: []int{2, 4}, Strides: []int{8, 2}, Offset: 1}
		if err := g.Fill(op(b, l), c.v); err != nil {
			t.Fatalf("Fill %s %v: %v", c.dt, c.v, err)
		}
		got := download(t, g, b)
		want := make([]float64, 24)
		for i := range want {
			want[i] = sentinel(c.dt)
		}
		each(l.Shape, func(idx []int) { want[l.OffsetOf(idx)] = c.want })
		checkClose(t, "Fill "+c.dt.String(), got, want, 0, 0)
	}
	b := alloc(t, g, dtype.I64, 4)
	for _, c := range []struct{ v, want float64 }{{-3.9, -3}, {5e9, 5e9}, {math.NaN(), 0}, {1e30, math.MaxInt64}, {-1e30, math.MinInt64}} {
		if err := g.Fill(op(b, contig(4)), c.v); err != nil {
			t.Fatal(err)
		}
		checkClose(t, "Fill i64", download(t, g, b), []float64{c.want, c.want, c.want, c.want}, 0, 0)
	}
	wantKind(t, "Fill out of range", g.Fill(op(b, contig(5)), 1), errs.ErrShape)
	wantKind(t, "Fill bad layout", g.Fill(op(b, layout.Layout{Shape: []int{2}, Strides: []int{1, 1}}), 1), errs.ErrShape)
}
