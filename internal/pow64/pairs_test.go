package pow64

import (
	"math"
	"testing"
)

// TestNearFloat32Tie checks the tie test on values beside the float32
// tie 1 + 2^-24 (between 1 and 1 + 2^-23) and elsewhere.
func TestNearFloat32Tie(t *testing.T) {
	tie := 1 + 0x1p-24
	for _, c := range []struct {
		w, rel float64
		want   bool
	}{
		{tie, 0x1p-37, false},                          // a tie itself
		{tie * (1 + 0x1p-45), 0x1p-37, true},           // just above
		{tie * (1 - 0x1p-45), 0x1p-37, true},           // just below
		{tie * (1 + 0x1p-30), 0x1p-37, false},          // too far
		{tie * (1 + 0x1p-30), 0x1p-29, true},           // within a looser bound
		{1 + 0x1p-23, 0x1p-37, false},                  // a float32 value
		{3 * (1 + 0x1p-24), 0x1p-37, false},            // 3 + 3*2^-24: a quarter step off the tie 3 + 2^-22
		{1e-40, 1, false},                              // subnormal in float32
		{math.MaxFloat32 * 2, 1, false},                // beyond float32
		{(1 - 0x1p-25) * (1 + 0x1p-50), 0x1p-37, true}, // the tie below 1
	} {
		if got := NearFloat32Tie(c.w, c.rel); got != c.want {
			t.Errorf("NearFloat32Tie(%v, %v) = %v, want %v", c.w, c.rel, got, c.want)
		}
	}
}
