# Sourced by the benchmark scripts that compare with NumPy: sets
# $coretypes to "default" plus every OPENBLAS_CORETYPE this CPU's flags
# allow (Haswell with AVX2+FMA, SkylakeX with AVX-512, Cooperlake with
# AVX-512 BF16). An old OpenBLAS may not recognise a newer CPU and fall back
# to slow generic kernels (0.3.21 runs its SSE3 "Prescott" kernels on
# Sapphire Rapids), so a fair comparison tries each and keeps the fastest.
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }
coretypes="default"
has avx2 fma && coretypes+=" Haswell"
has avx512f avx512cd avx512bw avx512dq avx512vl && coretypes+=" SkylakeX"
has avx512f avx512cd avx512bw avx512dq avx512vl avx512_bf16 && coretypes+=" Cooperlake"
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
