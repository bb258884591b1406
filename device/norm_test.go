package device_test

import (
	"errors"
	"math"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

func TestNormTable(t *testing.T) {
	for _, c := range []struct {
		op      device.NormOp
		name    string
		centred bool
		affine  int
	}{{device.LayerNorm, "LayerNorm", true, 2}, {device.RMSNorm, "RMSNorm", false, 1}} {
		d, ok := c.op.Def()
		if !ok || d.Name != c.name || c.op.String() != c.name || d.Centred != c.centred || d.Affine != c.affine {
			t.Errorf("%v: %+v %v", c.op, d, ok)
		}
	}
	if _, ok := device.NormOp(7).Def(); ok || device.NormOp(7).String() != "NormOp(7)" {
		t.Errorf("NormOp(7) names an op")
	}
	if device.NormStats(dtype.F16) != dtype.F32 || device.NormStats(dtype.BF16) != dtype.F32 || device.NormStats(dtype.F64) != dtype.F64 {
		t.Errorf("NormStats")
	}
}

// Ref against hand-computed rows: [1, 2, 3, 6] has mean 3 and biased
// variance 3.5; its mean square is 12.5.
func TestNormRef(t *testing.T) {
	x := []float64{1, 2, 3, 6}
	y := make([]float64, 4)
	mean, rstd := device.LayerNorm.Ref(y, x, []float64{2, 2, 2, 2}, []float64{1, 1, 1, 1}, 0.5)
	if mean != 3 || math.Abs(rstd-0.5) > 1e-15 { // 1/sqrt(3.5 + 0.5)
		t.Errorf("LayerNorm stats %v %v, want 3 0.5", mean, rstd)
	}
	for i, want := range []float64{-1, 0, 1, 4} { // (x-3)*0.5*2 + 1
		if math.Abs(y[i]-want) > 1e-15 {
			t.Errorf("LayerNorm y[%d] = %v, want %v", i, y[i], want)
		}
	}
	mean, rstd = device.RMSNorm.Ref(y, x, nil, nil, 3.5)
	if mean != 0 || math.Abs(rstd-0.25) > 1e-15 { // 1/sqrt(12.5 + 3.5)
		t.Errorf("RMSNorm stats %v %v, want 0 0.25", mean, rstd)
	}
	if math.Abs(y[3]-1.5) > 1e-15 {
		t.Errorf("RMSNorm y[3] = %v, want 1.5", y[3])
	}
}

func TestCheckNormAttention(t *testing.T) {
	a := func(dt dtype.DType, s ...int) device.Arg { return device.Arg{DType: dt, Shape: s} }
	p := func(x device.Arg) *device.Arg { return &x }
	f32 := dtype.F32
	cases := []struct {
		name string
		err  error
		kind error
	}{
		{"ok", device.CheckNorm("t", device.LayerNorm, a(f32, 2, 3), a(f32, 2, 2), a(f32, 2, 3), p(a(f32, 3)), p(a(f32, 3)), 1e-5), nil},
		{"stats-dtype", device.CheckNorm("t", device.LayerNorm, a(dtype.F16, 2, 3), a(dtype.F16, 2, 2), a(dtype.F16, 2, 3), nil, nil, 0), errs.ErrShape},
		{"empty-row", device.CheckNorm("t", device.LayerNorm, a(f32, 2, 0), a(f32, 2, 2), a(f32, 2, 0), nil, nil, 0), errs.ErrShape},
		{"rms-bias", device.CheckNorm("t", device.RMSNorm, a(f32, 2, 3), a(f32, 2, 2), a(f32, 2, 3), nil, p(a(f32, 3)), 0), errs.ErrValue},
		{"eps", device.CheckNorm("t", device.RMSNorm, a(f32, 2, 3), a(f32, 2, 2), a(f32, 2, 3), nil, nil, -1), errs.ErrValue},
		{"unknown", device.CheckNorm("t", device.NormOp(5), a(f32, 2, 3), a(f32, 2, 2), a(f32, 2, 3), nil, nil, 0), errs.ErrUnsupported},
		{"att-ok", device.CheckAttention("t", a(f32, 2, 3, 5), a(f32, 2, 3, 4), a(f32, 2, 6, 4), a(f32, 2, 6, 5), p(a(dtype.Bool, 2, 3, 6)), device.AttentionOptions{}), nil},
		{"att-E", device.CheckAttention("t", a(f32, 3, 5), a(f32, 3, 4), a(f32, 6, 3), a(f32, 6, 5), nil, device.AttentionOptions{}), errs.ErrShape},
		{"att-mask-causal", device.CheckAttention("t", a(f32, 3, 5), a(f32, 3, 4), a(f32, 6, 4), a(f32, 6, 5), p(a(f32, 3, 6)), device.AttentionOptions{Causal: true}), errs.ErrValue},
		{"att-mask-dtype", device.CheckAttention("t", a(f32, 3, 5), a(f32, 3, 4), a(f32, 6, 4), a(f32, 6, 5), p(a(dtype.I32, 3, 6)), device.AttentionOptions{}), errs.ErrDType},
	}
	for _, c := range cases {
		if (c.kind == nil) != (c.err == nil) || (c.kind != nil && !errors.Is(c.err, c.kind)) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.kind)
		}
	}
}
