#!/usr/bin/env bash
# Installs what ptxcross needs beyond Rust, when missing, on Debian/Ubuntu:
#   - a Vulkan loader and lavapipe (Mesa's CPU Vulkan driver), so kernels run without a GPU;
#   - spirv-tools (Khronos' SPIR-V validator: backend-spirv links its static library through
#     pkg-config and the C++ runtime (g++'s libstdc++.so), and validates every module in-process);
#   - for the driver library's client tests (driver/tests/clients.rs): a C compiler and a Python
#     venv at target/pyenv ($PTXCROSS_PYENV) with numba-cuda, cuda-python's bindings, NVIDIA's
#     NVVM and NVRTC and cuda.h from PyPI (pinned; ~60 s and ~700 MB on a fresh machine).
#     PTXCROSS_SKIP_PYENV=1 skips it.
#   - for the browser check (tests/tests/browser_tint.rs): Chromium, Node.js and npm, and
#     playwright-core (pinned) in target/tint-check, to compile the webgpu-profile WGSL of every
#     corpus kernel with Chromium's WebGPU (Tint). PTXCROSS_SKIP_BROWSER=1 skips it.
# On a machine with a GPU driver, lavapipe is harmless: wgpu prefers the real adapter.
set -euo pipefail
cd "$(dirname "$0")/.."

# The driver's client tests. numba-cuda is installed without its [cu13] extra on purpose: that
# extra brings nvJitLink, and with nvJitLink present numba links to a cubin (machine code),
# while ptxcross needs the PTX that numba hands to the driver's cuLink* calls otherwise.
PYENV_PACKAGES=(
    numba-cuda==0.30.4 numba==0.68.1 numpy==2.4.6
    cuda-bindings==13.4.4 cuda-core==1.2.2
    nvidia-nvvm==13.5.37 nvidia-cuda-nvrtc==13.5.37 nvidia-cuda-runtime==13.5.37
    # nvcc, for the CUDA runtime client (a plain `nvcc app.cu` program, cudart static and shared).
    nvidia-cuda-nvcc==13.5.37 nvidia-cuda-crt==13.5.37 nvidia-cuda-cccl==13.3.5.0.6
)
install_pyenv() {
    local env="${PTXCROSS_PYENV:-$PWD/target/pyenv}" stamp
    stamp="$env/.ptxcross-packages"
    if [ -x "$env/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "${PYENV_PACKAGES[*]}" ]; then
        return 0
    fi
    echo "ptxcross: creating $env (numba-cuda, cuda-python, NVVM, NVRTC, cuda.h from PyPI)" >&2
    local t0=$SECONDS
    python3 -m venv "$env"
    "$env/bin/pip" install -q --disable-pip-version-check "${PYENV_PACKAGES[@]}"
    echo "${PYENV_PACKAGES[*]}" > "$stamp"
    echo "ptxcross: $env ready in $((SECONDS - t0)) s" >&2
}

PLAYWRIGHT=playwright-core@1.65.1
install_tint_check() {
    local dir="$PWD/target/tint-check"
    if [ "$(cat "$dir/.ptxcross-packages" 2>/dev/null)" = "$PLAYWRIGHT" ] && [ -d "$dir/node_modules/playwright-core" ]; then
        return 0
    fi
    mkdir -p "$dir"
    npm install --prefix "$dir" --silent --no-audit --no-fund --no-save "$PLAYWRIGHT" >/dev/null
    echo "$PLAYWRIGHT" > "$dir/.ptxcross-packages"
}

main() {
need=()
command -v spirv-val >/dev/null 2>&1 && [ -f /usr/include/spirv-tools/libspirv.h ] || need+=(spirv-tools)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# The link file of the C++ runtime that the static libSPIRV-Tools.a needs (libstdc++6 alone has
# only the versioned .so); g++ brings it.
case "$(c++ -print-file-name=libstdc++.so 2>/dev/null)" in
    /*) ;;
    *) need+=(g++) ;;
esac
ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1' || need+=(libvulkan1)
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
command -v cc >/dev/null 2>&1 || need+=(gcc libc6-dev)
if [ "${PTXCROSS_SKIP_PYENV:-0}" != 1 ]; then
    command -v python3 >/dev/null 2>&1 || need+=(python3)
    python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
fi
if [ "${PTXCROSS_SKIP_BROWSER:-0}" != 1 ]; then
    [ -x /usr/lib/chromium/chromium ] || need+=(chromium)
    command -v node >/dev/null 2>&1 || need+=(nodejs)
    command -v npm >/dev/null 2>&1 || need+=(npm)
fi
if [ ${#need[@]} -ne 0 ]; then
    install_apt "${need[@]}"
fi
if [ "${PTXCROSS_SKIP_BROWSER:-0}" != 1 ]; then
    install_tint_check
fi
if [ "${PTXCROSS_SKIP_PYENV:-0}" != 1 ]; then
    install_pyenv
fi
exit 0
}

install_apt() {
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
}

main
