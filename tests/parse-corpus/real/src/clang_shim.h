// Minimal CUDA environment for `clang --cuda-device-only -nocudainc -nocudalib`: no CUDA SDK
// headers, only clang's builtin variables and NVVM builtins.
#pragma once
#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

typedef unsigned long long size_t_u64;

// __syncthreads is a clang builtin.
static __device__ __forceinline__ void __syncwarp(unsigned m = 0xffffffffu) { __nvvm_bar_warp_sync(m); }
static __device__ __forceinline__ int __shfl_xor_sync(unsigned m, int v, int lane) {
    return __nvvm_shfl_sync_bfly_i32(m, v, lane, 0x1f);
}
static __device__ __forceinline__ float __shfl_down_sync(unsigned m, float v, int d) {
    return __nvvm_shfl_sync_down_f32(m, v, d, 0x1f);
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) {
    return __nvvm_vote_ballot_sync(m, p);
}
static __device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ int atomicCAS(int *p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
static __device__ __forceinline__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
static __device__ __forceinline__ float rsqrtf(float a) { return __nvvm_rsqrt_approx_f(a); }
static __device__ __forceinline__ float __expf(float a) { return __nvvm_ex2_approx_f(a * 1.4426950408889634f); }
static __device__ __forceinline__ int __clz(int a) { return __builtin_clz((unsigned)a); }
static __device__ __forceinline__ int __popc(unsigned a) { return __builtin_popcount(a); }
static __device__ __forceinline__ unsigned __brev(unsigned a) { return __builtin_bitreverse32(a); }
static __device__ __forceinline__ double __ldg(const double *p) { return __nvvm_ldg_d(p); }
