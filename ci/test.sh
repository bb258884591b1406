#!/usr/bin/env bash
# The test command of tessera (the README's second set-up command, and what
# .ci/run calls). It installs the software Vulkan adapter if missing, checks
# formatting, vet and the CPU-only build, then runs every test: the WebGPU
# ones on the software adapter and the OpenGL ones on llvmpipe (gl:software;
# a missing device fails the run), the race
# detector on the packages with shared state, the tensor tests again with
# fusion off (every elementwise op run eagerly), and the CPU backend's and
# the tensor tests again with the portable kernels forced.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
export TESSERA_REQUIRE_WEBGPU="${TESSERA_REQUIRE_WEBGPU:-1}"
export TESSERA_REQUIRE_GL="${TESSERA_REQUIRE_GL:-1}"
export TESSERA_REQUIRE_GLSLANG="${TESSERA_REQUIRE_GLSLANG:-1}"

step() { printf '\n== %s\n' "$*"; }

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "not gofmt-ed:"; echo "$unformatted"; exit 1
fi

step "go vet"
go vet ./...

step "CGO_ENABLED=0 go build ./..."
CGO_ENABLED=0 go build ./...

step "go test ./..."
go test -p 1 -count=1 -timeout 40m ./...

step "go test -race -short (packages with shared state; -short trims the exhaustive sweeps, and a -race build skips the sweeps that run on one goroutine)"
go test -p 1 -count=1 -timeout 40m -short -race ./device/... ./tensor ./transfer

step "go test -short with TESSERA_FUSION=0 (elementwise chains run eagerly, one backend call per op)"
TESSERA_FUSION=0 go test -p 1 -count=1 -timeout 40m -short ./tensor

step "go test with TESSERA_CPU=generic (portable kernels), and =avx2 on AVX-512 machines (each kernel tier the backend can be given)"
# The gemm and vec tests run every kernel tier the CPU has within one
# process (kernelNames, lowpVariants, available), AMX on and off, so the
# run above covered them; here the packages that take the tier from the
# environment run again: the CPU backend, and the tensor tests on the CPU
# device alone (a CPU tier changes nothing a GPU kernel computes).
# Each tier also checks, in gemm and vec, that start-up picked what the
# variable asks for (on AMX machines, =avx512 keeps bf16 off the tiles).
tier_pick='TestPick$|TestKernelName$|TestAMXSwitch$'
TESSERA_CPU=generic TESSERA_TEST_DEVICES=cpu go test -p 1 -count=1 -timeout 40m ./device/cpu ./tensor
TESSERA_CPU=generic go test -count=1 -run "$tier_pick" ./device/cpu/gemm ./device/cpu/vec
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  TESSERA_CPU=avx2 go test -p 1 -count=1 -timeout 40m ./device/cpu
  TESSERA_CPU=avx2 go test -count=1 -run "$tier_pick" ./device/cpu/gemm ./device/cpu/vec
fi
if grep -qw amx_bf16 /proc/cpuinfo 2>/dev/null; then
  TESSERA_CPU=avx512 go test -count=1 -run "$tier_pick" ./device/cpu/gemm ./device/cpu/vec
fi
# The AVX2 and AVX-512 float32 Rsqrt refine an estimate, exact only
# because no input lands near a tie: all 2^32 inputs show it, on each tier
# the machine has (ten to thirty seconds a tier on two cores).
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  TESSERA_EXHAUSTIVE=1 go test -count=1 -timeout 10m -run 'TestExhaustiveExactF32/(avx2|avx512)/Rsqrt$' ./device/cpu/vec
fi

step "CGO_ENABLED=0 go test (the CPU-only build: WebGPU and OpenGL report themselves unavailable)"
CGO_ENABLED=0 TESSERA_REQUIRE_WEBGPU=0 TESSERA_REQUIRE_GL=0 go test -p 1 -count=1 -timeout 40m ./device/webgpu ./device/gl ./tensor ./cmd/...

step "done"
echo "all checks passed"
