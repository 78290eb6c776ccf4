// A CUDA C device function that numba_kernels.py links into a @cuda.jit kernel with `link=`:
// numba compiles this file with NVRTC to PTX and hands both PTX modules to cuLinkAddData, so
// ptxcross's PTX linker resolves the kernel's `.extern` call. numba's calling convention for
// foreign functions: the result goes through the first pointer, the return value is a status.
// `mix` is private and has a name numba's own module could also use.
static __device__ __noinline__ int mix(int x) { return (x ^ 0x5a) * 3; }

extern "C" __device__ int clamp_mix(int *ret, int x, int hi) {
    int m = mix(x);
    *ret = m > hi ? hi : m;
    return 0;
}
