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
		for _, rows := range []int{1, 3, 8, 9, 16, 17, 31, 40} {
			for _, cols := range []int{1, 7, 8, 15, 16, 24, 33} {
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
