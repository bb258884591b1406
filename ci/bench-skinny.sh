#!/usr/bin/env bash
# Times tessera's skinny products and GEMVs (BenchmarkSkinny in
# device/cpu/gemm: 4x1024x1024, 1024x4x1024, m = 1, n = 1, with transposed
# operands) against two anchors in one run: the machine's read bandwidth
# over the same bytes (AVX-512 loads of A, B and C, AVX2 ones on a machine
# without AVX-512, each goroutine's share read as four streams fetched
# 1 KiB ahead, the fastest read measured; on one goroutine and on all of
# them, in the same benchmark binary) and NumPy's matmul on the same
# shapes (OpenBLAS at its best core type, as in bench-openblas.sh, checked
# against a float64 reference first). Figures are GB/s of the bytes a
# product must move (A and B read, C written once), each the best single
# call (after an untimed one) over the rounds, as for NumPy; rounds
# interleave all sides, so a busy neighbour hurts all alike. Every call
# there reuses one set of operands, so the four-row and four-column shapes
# run from the caches.
#
# The target figures are paired (BenchmarkSkinnyPaired): each product call
# followed or preceded by a read of as many bytes on all cores, the
# ratio taken per pair, its median per round ("paired" columns: the median
# of the rounds' medians, and their range), both with the operands in the
# caches and in memory (each call on another of 256 MiB of copies). The
# memory bandwidth of a shared virtual machine moves by half within
# seconds, so best-of figures of the two sides, taken apart, compare the
# drift. A last table sets the products from memory beside NumPy's matmul
# from memory (each call on the next of 256 MiB of copies, the median
# call), the strongest library anchor for those rows.
#   bash ci/bench-skinny.sh                  # 3 rounds, all cores
#   ROUNDS=5 bash ci/bench-skinny.sh
#   THREADS=1 bash ci/bench-skinny.sh        # one core on every side (steadier
#                                            # on a shared machine)
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS="${THREADS:-}"
goflags=()
if [ -n "$THREADS" ]; then
  export OPENBLAS_NUM_THREADS="$THREADS"
  goflags=(-test.cpu "$THREADS")
fi
. ci/numpy-anchor.sh

# The shapes of BenchmarkSkinny, named as the benchmark names them.
SHAPES="4x1024x1024 4x1024x1024_tB 1024x4x1024 1024x4x1024_tB 1x1024x1024 1x1024x1024_tB 1024x1x1024 1024x1x1024_tA 1x4096x4096 4096x1x4096"

cat > "$tmp/np.py" <<'PYEOF'
# usage: np.py CORETYPE SHAPE... ; prints "shape dtype GB/s" per shape, or
# "shape dtype WRONG" when the product disagrees with the reference, and
# for the four-wide shapes "shape dtype mem GB/s" from memory.
import sys, time
import numpy as np
rng = np.random.default_rng(1)
for name in sys.argv[2:]:
    dims, *flags = name.split("_")
    m, n, k = map(int, dims.split("x"))
    ta, tb = "tA" in flags, "tB" in flags
    for dt in (np.float32, np.float64):
        dn = "float32" if dt == np.float32 else "float64"
        a = rng.standard_normal((k, m) if ta else (m, k)).astype(dt)
        b = rng.standard_normal((n, k) if tb else (k, n)).astype(dt)
        oa = a.T if ta else a
        ob = b.T if tb else b
        c = oa @ ob
        a64, b64 = oa.astype(np.float64), ob.astype(np.float64)
        tol = 1e-5 if dt == np.float32 else 1e-13
        ok = True
        for i, j in rng.integers(0, [m, n], size=(32, 2)):
            prod = a64[i, :] * b64[:, j]
            if abs(float(c[i, j]) - prod.sum()) > tol * np.sqrt(k) * np.abs(prod).sum() + 1e-300:
                ok = False
        if not ok:
            print(name, dn, "WRONG", flush=True)
            continue
        best, runs, start = float("inf"), 0, time.perf_counter()
        while time.perf_counter() - start < 0.3 or runs < 5:
            t0 = time.perf_counter(); oa @ ob; best = min(best, time.perf_counter() - t0)
            runs += 1
        size = np.dtype(dt).itemsize
        bytes_ = size * (m * k + k * n + m * n)
        print(name, dn, bytes_ / best / 1e9, flush=True)
        if m != 4 and n != 4:
            continue
        # From memory, as BenchmarkSkinnyPaired's "mem" rows: each call on
        # the next of as many copies as fill 256 MiB, the median call.
        copies = max(2, (256 << 20) // bytes_)
        ops = [(a.copy(), b.copy(), np.empty((m, n), dt)) for _ in range(copies)]
        times = []
        for i in range(max(40, copies)):
            x, y, z = ops[i % copies]
            ox, oy = (x.T if ta else x), (y.T if tb else y)
            t0 = time.perf_counter(); np.matmul(ox, oy, out=z); times.append(time.perf_counter() - t0)
        del ops
        print(name, dn, "mem", bytes_ / float(np.median(times)) / 1e9, flush=True)
PYEOF

test_binary ./device/cpu/gemm "$tmp/gemm.test"
# go_rows SUFFIX: benchmark lines to "go|read shape+SUFFIX dtype GB/s".
go_rows() {
  awk -v sfx="$1" '/GB\/s/ { split($1, p, "/"); who = (p[4] == "read") ? "read" : "go"
       for (i = 2; i <= NF; i++) if ($i == "GB/s") print who, p[2] sfx, p[3], $(i-1) }'
}
for round in $(seq "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  for ct in $coretypes; do
    with_coretype "$ct" "$PY" "$tmp/np.py" "$ct" $SHAPES | awk -v ct="$ct" '{ print "np", ct, $0 }' >> "$tmp/results"
  done
  (cd device/cpu/gemm && "$tmp/gemm.test" -test.run XXX -test.bench '^BenchmarkSkinny$' -test.benchtime 1x -test.count 60 "${goflags[@]}") |
    go_rows "" >> "$tmp/results"
  # paired: "pair shape dtype where ratio read-GB/s"
  (cd device/cpu/gemm && "$tmp/gemm.test" -test.run XXX -test.bench '^BenchmarkSkinnyPaired$' -test.benchtime 40x -test.count 1 "${goflags[@]}") |
    awk '/x-read/ { split($1, p, "/"); sub(/-[0-9]+$/, "", p[4])
         for (i = 2; i <= NF; i++) { if ($i == "x-read") r = $(i-1); if ($i == "read-GB/s") g = $(i-1); if ($i == "GB/s") t = $(i-1) }
         print "pair", p[2], p[3], p[4], r, g, t }' >> "$tmp/results"
done

wrong=$(awk '$1 == "np" && $5 == "WRONG" { print $2 }' "$tmp/results" | sort -u | tr '\n' ' ')
[ -n "$wrong" ] && echo "OpenBLAS core types with wrong results (not used): $wrong"
echo "$(machine); threads ${THREADS:-all}; best of $ROUNDS rounds; GB/s of A + B + C"
printf '%-16s %-8s %9s %9s %7s %9s %-11s %7s\n' shape dtype tessera read ratio openblas coretype ratio
awk '
  $1 == "np" && $5 != "WRONG" && $5 != "mem" { k = $3 " " $4; if ($5 > np[k]) { np[k] = $5; ct[k] = $2 } }
  $1 == "go" { k = $2 " " $3; if ($4 > go[k]) go[k] = $4 }
  $1 == "read" { k = $2 " " $3; if ($4 > rd[k]) rd[k] = $4 }
  END { for (k in go) { split(k, s, " ")
    if (np[k] > 0) anchor = sprintf("%9.1f %-11s %6.2fx", np[k], ct[k], go[k] / np[k]); else anchor = sprintf("%9s %-11s %7s", "-", "-", "-")
    printf "%-16s %-8s %9.1f %9.1f %6.2fx %s\n", s[1], s[2], go[k], rd[k], (rd[k] > 0 ? go[k] / rd[k] : 0), anchor } }' "$tmp/results" | sort -t' ' -k1,1 -k2,2
echo
echo "paired with a read of as many bytes on all cores (median of each round's median ratio, range over rounds; read GB/s the rounds' medians)"
printf '%-16s %-8s %-6s %8s %-13s %11s\n' shape dtype where paired 'range' 'read GB/s'
awk '$1 == "pair" { k = $2 " " $3 " " $4; n[k]++; r[k, n[k]] = $5; g[k] = g[k] (g[k] == "" ? "" : ",") sprintf("%.0f", $6) }
  END { for (k in n) { m = n[k]
    for (i = 2; i <= m; i++) { v = r[k, i]; for (j = i - 1; j >= 1 && r[k, j] > v; j--) r[k, j+1] = r[k, j]; r[k, j+1] = v }
    med = (m % 2 ? r[k, (m+1)/2] : (r[k, m/2] + r[k, m/2+1]) / 2)
    split(k, s, " ")
    printf "%-16s %-8s %-6s %7.2fx %5.2f-%5.2fx %11s\n", s[1], s[2], s[3], med, r[k, 1], r[k, m], g[k] } }' "$tmp/results" | sort -t' ' -k1,1 -k3,3 -k2,2
echo "target: the four-wide shapes' paired ratio in memory >= 0.80x (issue 13)"
echo
echo "from memory against OpenBLAS from memory (each call on another copy of the operands; best of the rounds' medians, OpenBLAS at its best core type)"
printf '%-16s %-8s %9s %9s %-11s %7s\n' shape dtype tessera openblas coretype ratio
awk '$1 == "pair" && $4 == "mem" { k = $2 " " $3; if ($7 > go[k]) go[k] = $7 }
  $1 == "np" && $5 == "mem" { k = $3 " " $4; if ($6 > np[k]) { np[k] = $6; ct[k] = $2 } }
  END { for (k in go) { split(k, s, " ")
    if (np[k] > 0) printf "%-16s %-8s %9.1f %9.1f %-11s %6.2fx\n", s[1], s[2], go[k], np[k], ct[k], go[k] / np[k]
    else printf "%-16s %-8s %9.1f %9s %-11s %7s\n", s[1], s[2], go[k], "-", "-", "-" } }' "$tmp/results" | sort -t' ' -k1,1 -k2,2
