package vec

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/errs"
)

// TestTranspose checks Transpose on every kernel set against the
// definition, for 1-, 2-, 4- and 8-byte elements: shapes around the 8 by
// 8 blocks and 16 by 16 tiles, rows and columns with room between them
// (which must be left as they were), and its errors.
func TestTranspose(t *testing.T) {
	for _, ks := range available() {
		restore := useKernels(ks)
		for _, rows := range []int{1, 3, 8, 9, 16, 17, 20, 25, 31, 40} {
			for _, cols := range []int{1, 7, 8, 15, 16, 20, 24, 33} {
				for _, pad := range []int{0, 5} {
					name := fmt.Sprintf("%s/%dx%d/pad=%d", ks.name, rows, cols, pad)
					checkTranspose[uint8](t, name+"/u8", rows, cols, pad)
					checkTranspose[uint16](t, name+"/u16", rows, cols, pad)
					checkTranspose[float32](t, name+"/f32", rows, cols, pad)
					checkTranspose[int64](t, name+"/i64", rows, cols, pad)
				}
			}
		}
		restore()
	}
	buf := make([]float32, 64)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"ldd below rows", Transpose(buf[:32], 3, buf[32:], 4, 4, 4), errs.ErrValue},
		{"lds below cols", Transpose(buf[:32], 4, buf[32:], 3, 4, 4), errs.ErrValue},
		{"negative rows", Transpose(buf[:32], 4, buf[32:], 4, -1, 4), errs.ErrValue},
		{"short src", Transpose(buf[:32], 8, buf[32:], 8, 5, 8), errs.ErrShape},
		{"short dst", Transpose(buf[:30], 8, buf[32:], 4, 8, 4), errs.ErrShape},
		{"overlap", Transpose(buf[:40], 4, buf[8:40], 4, 4, 4), errs.ErrValue},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	if err := Transpose(buf[:4], 4, buf[32:], 4, 0, 4); err != nil {
		t.Errorf("no rows: %v", err)
	}
}

// checkTranspose transposes a rows x cols matrix of distinct values whose
// rows are cols+pad apart into one whose rows are rows+pad apart, and
// checks every element, the gaps included.
func checkTranspose[T Word](t *testing.T, name string, rows, cols, pad int) {
	t.Helper()
	lds, ldd := cols+pad, rows+pad
	src := make([]T, rows*lds)
	for i := range src {
		src[i] = T(i%251 + 1)
	}
	const sentinel = 0 // the values are never 0
	dst := make([]T, cols*ldd)
	if err := Transpose(dst, ldd, src, lds, rows, cols); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for c := range cols {
		for r := range ldd {
			want := T(sentinel)
			if r < rows {
				want = src[r*lds+c]
			}
			if got := dst[c*ldd+r]; got != want {
				t.Fatalf("%s: dst[%d][%d] = %v, want %v", name, c, r, got, want)
			}
		}
	}
}

// FuzzTranspose calls Transpose with arbitrary counts, row steps and
// slice lengths, on 4- and 8-byte elements (the two kernel paths): it
// must never panic, must refuse what does not fit with an error, and
// must, where it succeeds, match the definition.
func FuzzTranspose(f *testing.F) {
	f.Add(uint8(9), uint8(17), uint8(3), uint8(0), uint16(300), uint16(300))
	f.Add(uint8(16), uint8(16), uint8(0), uint8(0), uint16(256), uint16(256))
	f.Add(uint8(8), uint8(40), uint8(200), uint8(9), uint16(10), uint16(999))
	f.Fuzz(func(t *testing.T, rows, cols, dpad, spad uint8, dlen, slen uint16) {
		r, c := int(rows%48), int(cols%48)
		ldd, lds := r+int(dpad%7)-1, c+int(spad%7)-1 // may be one short
		src := make([]float32, int(slen)%3000)
		for i := range src {
			src[i] = float32(i + 1)
		}
		dst := make([]float32, int(dlen)%3000)
		src64 := make([]int64, len(src))
		for i := range src64 {
			src64[i] = int64(i + 1)
		}
		dst64 := make([]int64, len(dst))
		err := Transpose(dst, ldd, src, lds, r, c)
		err64 := Transpose(dst64, ldd, src64, lds, r, c)
		if (err == nil) != (err64 == nil) {
			t.Fatalf("float32 %v, int64 %v", err, err64)
		}
		if err != nil {
			if !errors.Is(err, errs.ErrShape) && !errors.Is(err, errs.ErrValue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for i := range r {
			for j := range c {
				if dst[j*ldd+i] != src[i*lds+j] || dst64[j*ldd+i] != src64[i*lds+j] {
					t.Fatalf("%dx%d ldd=%d lds=%d: element (%d, %d) wrong", r, c, ldd, lds, i, j)
				}
			}
		}
	})
}
