package gemm

import (
	"runtime"
	"testing"
)

// TestPrivateB checks that packing B per goroutine (usePrivateB) gives the
// bits of the shared packing, on every tier, on shapes where it applies:
// one and several k blocks, edge tiles, transposes, alpha and beta, three
// and five goroutines. Each unit runs the same micro-kernel calls on the
// same packed values whichever way B was packed, so the results must be
// identical, not merely close.
func TestPrivateB(t *testing.T) {
	prevProcs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prevProcs)
	defer func(v int) { privateBBytes = v }(privateBBytes)
	shapes := [][3]int{{128, 128, 128}, {100, 61, 300}, {96, 200, 77}, {150, 33, 1100}, {64, 64, 64}}
	for _, procs := range []int{3, 5} {
		runtime.GOMAXPROCS(procs)
		used := 0
		for _, name := range kernelNames() {
			withKernel(t, name, func() {
				for si, s := range shapes {
					tr := transCombos[(si+procs)%4]
					tc := gemmCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2],
						padA: 1, padB: 2, padC: 1, offB: 1, alpha: 1.5, beta: 0.5, seed: 9}
					if privateFor(tc) {
						used++
					}
					samePrivate[float32](t, name, tc)
					tc.beta = 0
					samePrivate[float64](t, name, tc)
				}
			})
		}
		if used == 0 {
			t.Fatalf("GOMAXPROCS %d: no shape packed B privately; the test checks nothing", procs)
		}
	}
}

// privateFor reports whether tc's product takes the private packing at the
// default limit, reading the decision from a job set up for it.
func privateFor(tc gemmCase) bool {
	o := makeOperands[float32](tc)
	ks := active.Load().f32
	if unpacked(ks, tc.transB, tc.m, tc.n) {
		return false
	}
	var j job[float32]
	j.cond.L = &j.mu
	j.setup(ks, tc.transA, tc.transB, tc.m, tc.n, tc.k, 1, any(o.a).([]float32), o.lda, any(o.b).([]float32), o.ldb, 0, make([]float32, tc.m*tc.n), tc.n)
	defer j.release()
	return j.privateB
}

// samePrivate runs tc with B packed privately and shared and fails unless
// the two C are bit for bit the same and close to the float64 reference.
func samePrivate[T float](t *testing.T, kernel string, tc gemmCase) {
	t.Helper()
	o := makeOperands[T](tc)
	want, scale := reference(tc, o)
	run := func(limit int) []T {
		privateBBytes = limit
		oc := o
		oc.c = append([]T(nil), o.c...)
		if !checkResult(t, kernel, tc, oc, o.c, want, scale) {
			t.FailNow()
		}
		return oc.c
	}
	shared, private := run(0), run(1<<40)
	if !sameBits(shared, private) {
		t.Fatalf("%s %T %v: B packed per goroutine gives other bits than B shared", kernel, shared[0], tc)
	}
}

// TestWorkers pins the goroutine counts workers gives (packed.go's table:
// sqrt(m*n*k / workScale) rounded down, at least 1, at most GOMAXPROCS),
// under GOMAXPROCS 16 and 2.
func TestWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	for _, c := range []struct{ m, n, k, want16, want2 int }{
		{0, 0, 0, 1, 1}, {1, 1, 1, 1, 1}, {64, 64, 64, 1, 1}, {80, 80, 80, 1, 1},
		{96, 96, 96, 2, 2}, {128, 128, 128, 4, 2}, {192, 192, 192, 7, 2}, {256, 256, 256, 11, 2}, {1024, 1024, 1024, 16, 2},
	} {
		runtime.GOMAXPROCS(16)
		got16 := workers(c.m, c.n, c.k)
		runtime.GOMAXPROCS(2)
		if got2 := workers(c.m, c.n, c.k); got16 != c.want16 || got2 != c.want2 {
			t.Errorf("workers(%d, %d, %d) = %d with GOMAXPROCS 16, %d with 2; want %d, %d", c.m, c.n, c.k, got16, got2, c.want16, c.want2)
		}
	}
}
