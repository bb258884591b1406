package vec

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// TestUnaryLaneMix checks that a float32 unary kernel's result for an
// element does not depend on its neighbours: the kernels take branches
// per vector (tanh skips a path no lane needs), so the same inputs in
// sorted order (vectors of one kind) and shuffled (mixed vectors) must
// give bitwise the same outputs, on every tier.
func TestUnaryLaneMix(t *testing.T) {
	var xs []float32
	for i := -3000; i <= 3000; i++ {
		xs = append(xs, float32(i)*0.001, float32(i)*0.01)
	}
	xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0, float32(math.Copysign(0, -1)))
	rng := rand.New(rand.NewPCG(1, 2))
	perm := rng.Perm(len(xs))
	shuf := make([]float32, len(xs))
	for i, p := range perm {
		shuf[i] = xs[p]
	}
	for _, k := range available() {
		t.Run(k.name, func(t *testing.T) {
			defer useKernels(k)()
			for _, f := range unaries32 {
				a, b := make([]float32, len(xs)), make([]float32, len(xs))
				if err := f.fn(a, xs); err != nil {
					t.Fatal(err)
				}
				if err := f.fn(b, shuf); err != nil {
					t.Fatal(err)
				}
				for i, p := range perm {
					if math.Float32bits(b[i]) != math.Float32bits(a[p]) && !(a[p] != a[p] && b[i] != b[i]) {
						t.Errorf("%s(%g): %g in sorted input, %g shuffled", f.name, xs[p], a[p], b[i])
						break
					}
				}
			}
		})
	}
}

// TestExhaustiveTiersF32 compares every vector tier with the one below it
// (avx512 with avx2) on all 2^32 float32 inputs, which is far cheaper than
// TestExhaustiveF32's float64 reference for every input: where the outputs
// are bitwise equal, the lower tier's exhaustive error holds; where they
// differ, the error of the upper tier is measured against float64 math
// and held to the same bound. Runs only with TESSERA_EXHAUSTIVE=1.
func TestExhaustiveTiersF32(t *testing.T) {
	if os.Getenv("TESSERA_EXHAUSTIVE") != "1" {
		t.Skip("set TESSERA_EXHAUSTIVE=1 to compare the tiers on all 2^32 inputs")
	}
	ks := available()
	for i := 2; i < len(ks); i++ {
		lo, hi := ks[i-1], ks[i]
		for _, f := range unaries32 {
			t.Run(hi.name+"/"+f.name, func(t *testing.T) {
				const chunk = 1 << 20
				workers := runtime.GOMAXPROCS(0)
				type res struct {
					differ int
					worst  float64
					at     float32
					sub    float64
				}
				out := make([]res, workers)
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						r := &out[w]
						xs := make([]float32, chunk)
						a, b := make([]float32, chunk), make([]float32, chunk)
						for base := uint64(w) * chunk; base < 1<<32; base += uint64(workers) * chunk {
							for i := range xs {
								xs[i] = math.Float32frombits(uint32(base + uint64(i)))
							}
							lo.un32[f.op](a, xs)
							hi.un32[f.op](b, xs)
							for i := range xs {
								if math.Float32bits(a[i]) == math.Float32bits(b[i]) || (a[i] != a[i] && b[i] != b[i]) {
									continue
								}
								r.differ++
								want := f.ref(float64(xs[i]))
								e := ulpErr32(b[i], want)
								if !math.IsInf(want, 0) && math.Abs(want) < 0x1p-126 {
									r.sub = math.Max(r.sub, e)
								} else if e > r.worst || e != e {
									r.worst, r.at = e, xs[i]
								}
							}
						}
					}()
				}
				wg.Wait()
				var r res
				for _, o := range out {
					r.differ += o.differ
					if o.worst > r.worst || o.worst != o.worst {
						r.worst, r.at = o.worst, o.at
					}
					r.sub = math.Max(r.sub, o.sub)
				}
				t.Logf("%s: %d of 2^32 outputs differ from %s; max %.3f ulp among them (at %g), subnormal %.2f x 2^-149",
					f.name, r.differ, lo.name, r.worst, r.at, r.sub)
				if r.worst > f.maxULP || r.sub > 2*f.maxULP {
					t.Errorf("%s %s: %.3f ulp at %g (subnormal %.2f), limit %g", hi.name, f.name, r.worst, r.at, r.sub, f.maxULP)
				}
			})
		}
	}
}

// TestGeneratedInSync runs asmgen.go into a temporary directory and checks
// that the committed vec_amd64.s, asm_amd64.go, geluconst.go, trigconst.go,
// pow32const.go and internal/pow64's tables.go are what it writes, so an edit to the generator cannot be left unapplied (run `go
// generate` in this directory to update them).
func TestGeneratedInSync(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	dir := t.TempDir()
	if out, err := exec.Command(goBin, "run", "asmgen.go", "-dir", dir, "-pow64", ".").CombinedOutput(); err != nil {
		t.Fatalf("go run asmgen.go: %v\n%s", err, out)
	}
	for name, committed := range map[string]string{"vec_amd64.s": "vec_amd64.s", "asm_amd64.go": "asm_amd64.go",
		"geluconst.go": "geluconst.go", "trigconst.go": "trigconst.go", "pow32const.go": "pow32const.go", "tables.go": "../../../internal/pow64/tables.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(committed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with asmgen.go: run `go generate` in device/cpu/vec", committed)
		}
	}
}
