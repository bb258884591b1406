#!/usr/bin/env bash
# Installs what tessera's tests need on a Debian machine: Mesa's software
# Vulkan driver (lavapipe), so the WebGPU backend runs without a GPU, and
# the Vulkan loader; the EGL/OpenGL libraries and Mesa's DRI drivers
# (llvmpipe), so the OpenGL backend runs headless as gl:software;
# glslangValidator, which compiles the GLSL translations
# of the kernels; and NumPy, which reads back the files tessera writes. Go
# modules come from the module proxy on first build.
# Safe to run repeatedly: it installs only what is missing.
set -euo pipefail

need=()
[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] || ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || need+=(libvulkan1)
# The OpenGL backend opens libEGL with dlopen and finds GL functions through
# eglGetProcAddress, so only the run-time libraries are needed (no -dev
# packages, no link-time GL dependency).
ldconfig -p 2>/dev/null | grep -q 'libEGL\.so\.1' || need+=(libegl1)
ldconfig -p 2>/dev/null | grep -q 'libGL\.so\.1' || need+=(libgl1)
ls /usr/lib/*/dri/swrast_dri.so /usr/lib/dri/swrast_dri.so >/dev/null 2>&1 || need+=(libgl1-mesa-dri)
command -v glslangValidator >/dev/null 2>&1 || need+=(glslang-tools)
# NumPy (Debian's) checks that files tessera writes read back in NumPy.
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)

if [ ${#need[@]} -gt 0 ]; then
  echo "ci/install-deps.sh: installing ${need[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
