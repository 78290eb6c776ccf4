// CUDA compiled by clang-16 to PTX with only clang_shim.h (no CUDA SDK):
//   clang-16 --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -O2 -S
#include "clang_shim.h"

template <typename T> struct Pair { T a, b; };

__device__ float g_scale = 2.0f;
__constant__ int c_lut[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

template <typename T>
__device__ __noinline__ T combine(Pair<T> p, T k) { return p.a * k + p.b; }

extern "C" __global__ void __launch_bounds__(256) saxpy_pairs(const Pair<float> *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = combine(in[i], g_scale) + (float)c_lut[i & 15];
}

extern "C" __global__ void reduce_warp(const float *in, float *out, int n) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < (blockDim.x + 31) / 32 ? partial[threadIdx.x] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0) atomicAdd(out, v);
    }
}

extern "C" __global__ void bits(const unsigned *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned b = __ballot_sync(0xffffffffu, x & 1);
    int r = __clz((int)x) + __popc(x) * 3 + (int)(__brev(x) >> 28) + __popc(b);
    r ^= __shfl_xor_sync(0xffffffffu, r, 1);
    int old = atomicCAS(out + n, 0, r);
    out[i] = r + old;
}

extern "C" __global__ void fastmath(const double *d, float *f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = (float)__ldg(&d[i]);
        f[i] = __fdividef(rsqrtf(x + 1.0f), __expf(-x)) + (x > 0.5f ? 1.0f : -1.0f);
    }
}
