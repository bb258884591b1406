package gemm

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func threadNow() float64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}

// best thread-CPU GFLOP/s of reps runs of f (single-threaded).
func cpuGF(flops float64, reps int, f func()) float64 {
	best := 0.0
	batch := 1
	for {
		t0 := threadNow()
		for range batch {
			f()
		}
		if threadNow()-t0 > 0.002 {
			break
		}
		batch *= 2
	}
	for range reps {
		t0 := threadNow()
		for range batch {
			f()
		}
		if g := flops * float64(batch) / (threadNow() - t0) / 1e9; g > best {
			best = g
		}
	}
	return best
}

func parseShape(s string) benchShape {
	var bs benchShape
	if strings.HasSuffix(s, "tA") || strings.Contains(s, "tA") {
		bs.transA = true
	}
	if strings.Contains(s, "tB") {
		bs.transB = true
	}
	p := strings.Split(strings.Split(s, "_")[0], "x")
	bs.m, _ = strconv.Atoi(p[0])
	bs.n, _ = strconv.Atoi(p[1])
	bs.k, _ = strconv.Atoi(p[2])
	return bs
}

func TestExplore(t *testing.T) {
	spec := os.Getenv("EXPLORE")
	if spec == "" {
		t.Skip()
	}
	runtime.LockOSThread()
	defer runtime.LockOSThread()
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	if v, err := strconv.Atoi(os.Getenv("KC32")); err == nil {
		active.Load().f32.kc = v
	}
	if v, err := strconv.Atoi(os.Getenv("MC32")); err == nil {
		active.Load().f32.mc = v
	}
	if v, err := strconv.Atoi(os.Getenv("KC64")); err == nil {
		active.Load().f64.kc = v
	}
	if v, err := strconv.Atoi(os.Getenv("MC64")); err == nil {
		active.Load().f64.mc = v
	}
	types := []string{"f32", "f64"}
	if v := os.Getenv("TYPES"); v != "" {
		types = strings.Fields(v)
	}
	for _, typ := range types {
		for _, sh := range strings.Fields(spec) {
			s := parseShape(sh)
			fl := 2 * float64(s.m*s.n*s.k)
			var sm, pk, kern float64
			if typ == "f32" {
				a, bm, c, lda, ldb := benchOperands[float32](s)
				ks := active.Load().f32
				if os.Getenv("NOSMALL") == "" {
					sm = cpuGF(fl, 5, func() { small(ks, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n) })
				}
				pk = cpuGF(fl, 5, func() { packed(ks, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n) })
				ap := make([]float32, 6*256)
				bp := make([]float32, 16*256)
				cc := make([]float32, 96)
				kern = cpuGF(2*96*256, 3, func() { ks.micro(256, &ap[0], &bp[0], &cc[0], 16, 1, 1) })
			} else {
				a, bm, c, lda, ldb := benchOperands[float64](s)
				ks := active.Load().f64
				if os.Getenv("NOSMALL") == "" {
					sm = cpuGF(fl, 5, func() { small(ks, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n) })
				}
				pk = cpuGF(fl, 5, func() { packed(ks, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n) })
				ap := make([]float64, 6*256)
				bp := make([]float64, 8*256)
				cc := make([]float64, 48)
				kern = cpuGF(2*48*256, 3, func() { ks.micro(256, &ap[0], &bp[0], &cc[0], 8, 1, 1) })
			}
			fmt.Printf("%s %-20s small %6.1f  packed %6.1f  (kernel %5.1f, packed/kernel %3.0f%%)\n", typ, sh, sm, pk, kern, 100*pk/kern)
		}
	}
}
