package device_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/device"
	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

// TestOpTable checks that every descriptor is complete, so that a new op
// cannot be half-added: a missing reference, integer rule or shader
// expression fails here, never as NaN or an unchanged input at run time.
func TestOpTable(t *testing.T) {
	names := map[string]bool{}
	unique := func(name string) {
		if names[name] {
			t.Errorf("op name %q used twice", name)
		}
		names[name] = true
	}
	shaderComplete := func(name string, accepts device.Kinds, s device.Shader) {
		if accepts&device.Floats != 0 && s.F32 == "" {
			t.Errorf("%s accepts floats but has no F32 shader expression", name)
		}
		if accepts&device.Ints != 0 && (s.I32 == "" || s.U8 == "") {
			t.Errorf("%s accepts integers but lacks an I32 or U8 shader expression", name)
		}
		if accepts&device.Bools != 0 && s.U8 == "" {
			t.Errorf("%s accepts bool but has no U8 shader expression", name)
		}
	}
	for _, op := range device.UnaryOps() {
		d, ok := op.Def()
		if !ok {
			t.Errorf("UnaryOp(%d) is listed but has no descriptor", op)
			continue
		}
		unique("unary " + d.Name)
		if d.F64 == nil || d.Accepts == 0 {
			t.Errorf("%s: needs F64 and Accepts", d.Name)
		}
		if (d.Accepts&device.Ints != 0) != (d.Int != nil) {
			t.Errorf("%s: Int must be set exactly when Accepts has Ints", d.Name)
		}
		if !strings.HasPrefix(d.Doc, d.MethodName()+" ") {
			t.Errorf("%s: Doc %q must start with the method name %s", d.Name, d.Doc, d.MethodName())
		}
		shaderComplete(d.Name, d.Accepts, d.Shader)
		if !math.IsNaN(d.F64(math.NaN())) && op != device.Sign && !d.Predicate {
			t.Errorf("%s(NaN) = %v, want NaN", d.Name, d.F64(math.NaN()))
		}
	}
	for _, op := range device.BinaryOps() {
		d, ok := op.Def()
		if !ok {
			t.Errorf("BinaryOp(%d) is listed but has no descriptor", op)
			continue
		}
		unique("binary " + d.Name)
		if d.F64 == nil || d.Accepts == 0 {
			t.Errorf("%s: needs F64 and Accepts", d.Name)
		}
		if (d.Accepts&(device.Ints|device.Bools) != 0) != (d.Int != nil) {
			t.Errorf("%s: Int must be set exactly when Accepts has Ints or Bools", d.Name)
		}
		if !strings.HasPrefix(d.Doc, d.MethodName()+" ") {
			t.Errorf("%s: Doc %q must start with the method name", d.Name, d.Doc)
		}
		shaderComplete(d.Name, d.Accepts, d.Shader)
	}
	for _, op := range device.ReduceOps() {
		d, ok := op.Def()
		if !ok || d.Accepts == 0 {
			t.Errorf("ReduceOp(%d) is listed but has no complete descriptor", op)
			continue
		}
		unique("reduce " + d.Name)
	}
}

// TestOpRulesAndUnknownOps checks the dtype rules read from the table and
// that values naming no operation format and fail with a typed error.
func TestOpRulesAndUnknownOps(t *testing.T) {
	for _, v := range []int{len(device.UnaryOps()), 200, 255} {
		op := device.UnaryOp(v)
		if s := op.String(); !strings.HasPrefix(s, "UnaryOp(") {
			t.Errorf("UnaryOp(%d).String() = %q", v, s)
		}
		if _, err := op.Result("test", dtype.F32); !errors.Is(err, errs.ErrUnsupported) {
			t.Errorf("UnaryOp(%d).Result: %v, want ErrUnsupported", v, err)
		}
		if _, err := device.BinaryOp(v).Result("test", dtype.F32, dtype.F32); !errors.Is(err, errs.ErrUnsupported) {
			t.Errorf("BinaryOp(%d).Result: %v, want ErrUnsupported", v, err)
		}
		if _, err := device.ReduceOp(v).Result("test", dtype.F32); !errors.Is(err, errs.ErrUnsupported) {
			t.Errorf("ReduceOp(%d).Result: %v, want ErrUnsupported", v, err)
		}
		_ = device.BinaryOp(v).String() + device.ReduceOp(v).String()
	}
	cases := []struct {
		name string
		got  func() (dtype.DType, error)
		want dtype.DType
		kind error
	}{
		{"Tanh f32", func() (dtype.DType, error) { return device.Tanh.Result("t", dtype.F32) }, dtype.F32, nil},
		{"Tanh i32", func() (dtype.DType, error) { return device.Tanh.Result("t", dtype.I32) }, 0, errs.ErrDType},
		{"Neg u8", func() (dtype.DType, error) { return device.Neg.Result("t", dtype.U8) }, dtype.U8, nil},
		{"Neg bool", func() (dtype.DType, error) { return device.Neg.Result("t", dtype.Bool) }, 0, errs.ErrDType},
		{"Add f32 f64", func() (dtype.DType, error) { return device.Add.Result("t", dtype.F32, dtype.F64) }, 0, errs.ErrDType},
		{"Lt i64", func() (dtype.DType, error) { return device.Lt.Result("t", dtype.I64, dtype.I64) }, dtype.Bool, nil},
		{"Eq bool", func() (dtype.DType, error) { return device.Eq.Result("t", dtype.Bool, dtype.Bool) }, dtype.Bool, nil},
		{"Lt bool", func() (dtype.DType, error) { return device.Lt.Result("t", dtype.Bool, dtype.Bool) }, 0, errs.ErrDType},
		{"Pow i32", func() (dtype.DType, error) { return device.Pow.Result("t", dtype.I32, dtype.I32) }, dtype.I32, nil},
		{"Pow bool", func() (dtype.DType, error) { return device.Pow.Result("t", dtype.Bool, dtype.Bool) }, 0, errs.ErrDType},
		{"IsNaN f16", func() (dtype.DType, error) { return device.IsNaN.Result("t", dtype.F16) }, dtype.Bool, nil},
		{"IsNaN bool", func() (dtype.DType, error) { return device.IsNaN.Result("t", dtype.Bool) }, dtype.Bool, nil},
		{"Neg bool", func() (dtype.DType, error) { return device.Neg.Result("t", dtype.Bool) }, 0, errs.ErrDType},
		{"Not i32", func() (dtype.DType, error) { return device.Not.Result("t", dtype.I32) }, dtype.Bool, nil},
		{"And f32", func() (dtype.DType, error) { return device.And.Result("t", dtype.F32, dtype.F32) }, dtype.Bool, nil},
		{"Xor bool", func() (dtype.DType, error) { return device.Xor.Result("t", dtype.Bool, dtype.Bool) }, dtype.Bool, nil},
		{"Mod u8", func() (dtype.DType, error) { return device.Mod.Result("t", dtype.U8, dtype.U8) }, dtype.U8, nil},
		{"Atan2 i32", func() (dtype.DType, error) { return device.Atan2.Result("t", dtype.I32, dtype.I32) }, 0, errs.ErrDType},
		{"Any bool", func() (dtype.DType, error) { return device.Any.Result("t", dtype.Bool) }, dtype.Bool, nil},
		{"All f32", func() (dtype.DType, error) { return device.All.Result("t", dtype.F32) }, 0, errs.ErrDType},
		{"Mean i32", func() (dtype.DType, error) { return device.Mean.Result("t", dtype.I32) }, 0, errs.ErrDType},
		{"ArgMax f16", func() (dtype.DType, error) { return device.ArgMax.Result("t", dtype.F16) }, dtype.I64, nil},
		{"Sum bool", func() (dtype.DType, error) { return device.Sum.Result("t", dtype.Bool) }, 0, errs.ErrDType},
	}
	for _, c := range cases {
		got, err := c.got()
		if c.kind != nil {
			if !errors.Is(err, c.kind) {
				t.Errorf("%s: err %v, want kind %v", c.name, err, c.kind)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
