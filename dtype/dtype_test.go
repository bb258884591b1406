package dtype_test

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/tessera-go/tessera/dtype"
	"github.com/tessera-go/tessera/errs"
)

func TestDTypeTable(t *testing.T) {
	tests := []struct {
		d                        dtype.DType
		name                     string
		size                     int
		valid, float, int, signd bool
	}{
		{dtype.Invalid, "dtype(0)", 0, false, false, false, false},
		{dtype.F32, "f32", 4, true, true, false, true},
		{dtype.F64, "f64", 8, true, true, false, true},
		{dtype.F16, "f16", 2, true, true, false, true},
		{dtype.BF16, "bf16", 2, true, true, false, true},
		{dtype.I32, "i32", 4, true, false, true, true},
		{dtype.I64, "i64", 8, true, false, true, true},
		{dtype.U8, "u8", 1, true, false, true, false},
		{dtype.Bool, "bool", 1, true, false, false, false},
		{dtype.DType(9), "dtype(9)", 0, false, false, false, false},
		{dtype.DType(255), "dtype(255)", 0, false, false, false, false},
	}
	for _, tc := range tests {
		d := tc.d
		if d.String() != tc.name || d.Size() != tc.size || d.Valid() != tc.valid ||
			d.IsFloat() != tc.float || d.IsInt() != tc.int || d.IsSigned() != tc.signd {
			t.Errorf("DType(%d): String %q Size %d Valid %v IsFloat %v IsInt %v IsSigned %v; want %+v",
				uint8(d), d.String(), d.Size(), d.Valid(), d.IsFloat(), d.IsInt(), d.IsSigned(), tc)
		}
	}
}

func TestAll(t *testing.T) {
	want := []dtype.DType{dtype.F32, dtype.F64, dtype.F16, dtype.BF16, dtype.I32, dtype.I64, dtype.U8, dtype.Bool}
	if len(dtype.All) != len(want) {
		t.Fatalf("All = %v, want %v", dtype.All, want)
	}
	seen := map[string]bool{}
	for i, d := range dtype.All {
		if d != want[i] || !d.Valid() || seen[d.String()] {
			t.Errorf("All[%d] = %v", i, d)
		}
		seen[d.String()] = true
	}
	if dtype.DType(0).Valid() || dtype.DType(0) != dtype.Invalid {
		t.Error("the zero DType must be Invalid")
	}
}

func TestParse(t *testing.T) {
	for _, d := range dtype.All {
		got, err := dtype.Parse(d.String())
		if err != nil || got != d {
			t.Errorf("Parse(%q) = %v, %v; want %v", d.String(), got, err, d)
		}
	}
	for _, name := range []string{"", "invalid", "F32", "float32", " f32", "f32 ", "dtype(0)", "dtype(9)", "f8", "bool\x00"} {
		got, err := dtype.Parse(name)
		if got != dtype.Invalid || !errors.Is(err, errs.ErrDType) {
			t.Errorf("Parse(%q) = %v, %v; want Invalid and an ErrDType", name, got, err)
			continue
		}
		var e *errs.Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "dtype: Parse: ") {
			t.Errorf("Parse(%q) error %q is not a dtype *errs.Error", name, err)
		}
	}
}

func checkOf[T dtype.Elem](t *testing.T, want dtype.DType, goSize uintptr) {
	t.Helper()
	var z T
	got := dtype.Of[T]()
	if got != want {
		t.Errorf("Of[%T]() = %v, want %v", z, got, want)
	}
	if unsafe.Sizeof(z) != goSize {
		t.Errorf("unsafe.Sizeof(%T) = %d, test table says %d", z, unsafe.Sizeof(z), goSize)
	}
	// The element size of the dtype matches the Go type, except for int,
	// which is stored as int64 (8 bytes) whatever the platform.
	if _, isInt := any(z).(int); !isInt && uintptr(got.Size()) != goSize {
		t.Errorf("%v.Size() = %d, but %T has %d bytes", got, got.Size(), z, goSize)
	}
}

func TestOf(t *testing.T) {
	checkOf[float32](t, dtype.F32, 4)
	checkOf[float64](t, dtype.F64, 8)
	checkOf[dtype.Float16](t, dtype.F16, 2)
	checkOf[dtype.BFloat16](t, dtype.BF16, 2)
	checkOf[int32](t, dtype.I32, 4)
	checkOf[int64](t, dtype.I64, 8)
	checkOf[int](t, dtype.I64, unsafe.Sizeof(int(0)))
	checkOf[uint8](t, dtype.U8, 1)
	checkOf[bool](t, dtype.Bool, 1)
}

func TestHalfString(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{dtype.Float16(0x3c00).String(), "1"},
		{dtype.Float16(0xc100).String(), "-2.5"},
		{dtype.Float16(0x7bff).String(), "65504"},
		{dtype.Float16(0x7c00).String(), "+Inf"},
		{dtype.Float16(0xfc00).String(), "-Inf"},
		{dtype.Float16(0x7e00).String(), "NaN"},
		{dtype.Float16(0x8000).String(), "-0"},
		{dtype.BFloat16(0x3fc0).String(), "1.5"},
		{dtype.BFloat16(0xff80).String(), "-Inf"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("String() = %q, want %q", tc.got, tc.want)
		}
	}
}
