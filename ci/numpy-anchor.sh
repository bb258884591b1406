# Sourced (from the repository root) by the benchmark scripts that compare
# with NumPy, so that they agree on one anchor:
#   - $PY is Debian's python3, installed with NumPy and the pthreads
#     OpenBLAS when missing (NumPy links the reference BLAS unless OpenBLAS
#     is installed, which then takes over through Debian's alternatives),
#     or $TESSERA_PYTHON when set (a python3 with its own NumPy, taken as
#     it is: a machine without apt);
#   - $ROUNDS defaults to 3; $tmp is a scratch folder removed on exit;
#   - $coretypes is "default" plus every OPENBLAS_CORETYPE this CPU's flags
#     allow (Haswell with AVX2+FMA, SkylakeX with AVX-512, Cooperlake with
#     AVX-512 BF16). An old OpenBLAS may not recognise a newer CPU and fall
#     back to slow generic kernels (0.3.21 runs its SSE3 "Prescott" kernels
#     on Sapphire Rapids), so a fair comparison tries each and keeps the
#     fastest, and with_coretype runs a command under one of them; with
#     TESSERA_CPU=avx2 it is Haswell alone, AVX2 on both sides;
#   - test_binary builds a package's test binary, or copies a prebuilt one;
#   - machine prints the CPU model, the CPU count and the load average, the
#     start of every script's heading.
PY=/usr/bin/python3
if [ -n "${TESSERA_PYTHON:-}" ]; then
  PY=$TESSERA_PYTHON # another NumPy, as it is (a machine without apt)
elif ! "$PY" -c 'import numpy' 2>/dev/null || ! ls /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 >/dev/null 2>&1; then
  echo "installing python3-numpy and libopenblas0-pthread" >&2
  apt-get update -qq && apt-get install -y -qq python3-numpy libopenblas0-pthread >/dev/null
fi
ROUNDS="${ROUNDS:-3}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }
coretypes="default"
has avx2 fma && coretypes+=" Haswell"
has avx512f avx512cd avx512bw avx512dq avx512vl && coretypes+=" SkylakeX"
has avx512f avx512cd avx512bw avx512dq avx512vl avx512_bf16 && coretypes+=" Cooperlake"
# With tessera capped at its AVX2 tier (TESSERA_CPU=avx2, read by the Go
# side too), OpenBLAS is held to the same instruction set, its Haswell
# kernels: a stand-in, on an AVX-512 machine, for an AVX2-only one.
tier=$(echo "${TESSERA_CPU:-}" | tr -d ' ' | tr 'A-Z' 'a-z')
if [ "$tier" = avx2 ]; then
  has avx2 fma || { echo "TESSERA_CPU=avx2 needs AVX2 and FMA" >&2; exit 1; }
  coretypes="Haswell"
fi

# with_coretype CT CMD...: runs CMD with OpenBLAS forced to core type CT
# ("default" lets OpenBLAS detect it).
with_coretype() {
  local ct=$1; shift
  if [ "$ct" = default ]; then
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"
  else
    env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE="$ct" "$@"
  fi
}

# machine: "MODEL, N CPUs, load average A B C".
machine() {
  echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

# test_binary PKG OUT: builds PKG's test binary at OUT, or copies
# $TESSERA_PREBUILT/NAME.test (NAME the package's last element) when that
# is set: a machine without Go runs binaries built elsewhere.
test_binary() {
  if [ -n "${TESSERA_PREBUILT:-}" ]; then
    cp "$TESSERA_PREBUILT/$(basename "$1").test" "$2"
  else
    go test -c -o "$2" "$1"
  fi
}
