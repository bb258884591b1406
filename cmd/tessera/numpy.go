package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// numpyScript times NumPy's float32 matmul on n x n products, one line
// "n GFLOP/s" per size given as arguments (best call over about 0.2 s),
// or "n WRONG" when 64 entries of the product disagree with float64 sums
// computed without BLAS.
const numpyScript = `
import sys, time
import numpy as np
rng = np.random.default_rng(1)
for n in map(int, sys.argv[1:]):
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = a @ b
    ok = True
    for i, j in rng.integers(0, n, size=(64, 2)):
        prod = a[i, :].astype(np.float64) * b[:, j].astype(np.float64)
        if abs(float(c[i, j]) - prod.sum()) > 1e-5 * np.sqrt(n) * np.abs(prod).sum():
            ok = False
    if not ok:
        print(n, "WRONG", flush=True)
        continue
    best, runs, start = float("inf"), 0, time.perf_counter()
    while time.perf_counter() - start < 0.2 or runs < 3:
        t0 = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t0)
        runs += 1
    print(n, 2 * n**3 / best / 1e9, flush=True)
`

// numpyResult is NumPy's best figure for one size and the OpenBLAS core
// type that gave it.
type numpyResult struct {
	gflops   float64
	coreType string
}

// openBLASCoreTypes lists the OPENBLAS_CORETYPE values worth trying on
// this CPU besides OpenBLAS's own detection ("default"): an OpenBLAS older
// than the CPU may not recognise it and fall back to generic kernels
// (0.3.21 runs its SSE3 "Prescott" kernels on Sapphire Rapids), so the
// comparison is with the fastest kernel set the CPU's flags allow.
func openBLASCoreTypes() []string {
	cts := []string{"default"}
	c := cpuid.CPU
	if c.Supports(cpuid.AVX2, cpuid.FMA3) {
		cts = append(cts, "Haswell")
	}
	if c.Supports(cpuid.AVX512F, cpuid.AVX512CD, cpuid.AVX512BW, cpuid.AVX512DQ, cpuid.AVX512VL) {
		cts = append(cts, "SkylakeX")
		if c.Supports(cpuid.AVX512BF16) {
			cts = append(cts, "Cooperlake")
		}
	}
	return cts
}

// numpyPython returns a python3 that imports NumPy, or "" if none does.
func numpyPython() string {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import numpy").Run() == nil {
			return py
		}
	}
	return ""
}

// numpyMatmul times NumPy's float32 matmul on each size under each of
// coreTypes (openBLASCoreTypes), drops core types whose products are
// wrong, and returns the best figure per size. note says what was found:
// the python, or why there is no comparison.
func numpyMatmul(sizes []int, coreTypes []string, progress func(coreType string)) (map[int]numpyResult, string) {
	py := numpyPython()
	if py == "" {
		return nil, "no python3 with NumPy found: the OpenBLAS column is left out"
	}
	args := []string{"-c", numpyScript}
	for _, n := range sizes {
		args = append(args, strconv.Itoa(n))
	}
	best := map[int]numpyResult{}
	var wrong []string
	for _, ct := range coreTypes {
		progress(ct)
		cmd := exec.Command(py, args...)
		env := []string{}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") {
				env = append(env, kv)
			}
		}
		if ct != "default" {
			env = append(env, "OPENBLAS_CORETYPE="+ct)
		}
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 {
				continue
			}
			n, err := strconv.Atoi(f[0])
			if err != nil {
				continue
			}
			if f[1] == "WRONG" {
				if !slices.Contains(wrong, ct) {
					wrong = append(wrong, ct)
				}
				continue
			}
			g, err := strconv.ParseFloat(f[1], 64)
			if err == nil && g > best[n].gflops {
				best[n] = numpyResult{g, ct}
			}
		}
	}
	note := fmt.Sprintf("NumPy (%s) under OPENBLAS_CORETYPE %s, the best per size", py, strings.Join(coreTypes, ", "))
	if len(wrong) > 0 {
		note += fmt.Sprintf("; wrong products (dropped) under %s", strings.Join(wrong, ", "))
	}
	return best, note
}
