#!/usr/bin/env bash
# Installs what ptxcross needs beyond Rust, when missing, on Debian/Ubuntu:
#   - a Vulkan loader and lavapipe (Mesa's CPU Vulkan driver), so kernels run without a GPU;
#   - spirv-tools (spirv-val validates every SPIR-V module we emit).
# On a machine with a GPU driver, lavapipe is harmless: wgpu prefers the real adapter.
set -euo pipefail
need=()
command -v spirv-val >/dev/null 2>&1 || need+=(spirv-tools)
ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || need+=(libvulkan1)
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
echo "ptxcross: installing ${need[*]}" >&2
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ptxcross: please install: ${need[*]} (a Vulkan loader, lavapipe or a GPU driver, and spirv-tools)" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
