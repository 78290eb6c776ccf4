// Minimal CUDA environment for `clang-16 --cuda-device-only -nocudainc -nocudalib`: no CUDA SDK
// headers, only clang's builtin variables and NVVM builtins (what the SIMT kernels use).
#pragma once
#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))

// __syncthreads is a clang builtin.
static __device__ __forceinline__ unsigned atomicAdd(unsigned *p, unsigned v) {
    return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
static __device__ __forceinline__ unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
    return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
// Shuffles with CUDA's optional width: c = (32 - width) << 8 | clamp (the segment mask).
static __device__ __forceinline__ int __shfl_down_sync(unsigned m, int v, int d, int w = 32) {
    return __nvvm_shfl_sync_down_i32(m, v, d, (32 - w) << 8 | 0x1f);
}
static __device__ __forceinline__ int __shfl_up_sync(unsigned m, int v, int d, int w = 32) {
    return __nvvm_shfl_sync_up_i32(m, v, d, (32 - w) << 8);
}
static __device__ __forceinline__ int __shfl_sync(unsigned m, int v, int src, int w = 32) {
    return __nvvm_shfl_sync_idx_i32(m, v, src, (32 - w) << 8 | 0x1f);
}
static __device__ __forceinline__ int __shfl_xor_sync(unsigned m, int v, int x, int w = 32) {
    return __nvvm_shfl_sync_bfly_i32(m, v, x, (32 - w) << 8 | 0x1f);
}
static __device__ __forceinline__ int __all_sync(unsigned m, int p) { return __nvvm_vote_all_sync(m, p); }
static __device__ __forceinline__ int __any_sync(unsigned m, int p) { return __nvvm_vote_any_sync(m, p); }
static __device__ __forceinline__ int __uni_sync(unsigned m, int p) { return __nvvm_vote_uni_sync(m, p); }
static __device__ __forceinline__ unsigned __match_any_sync(unsigned m, unsigned v) { return __nvvm_match_any_sync_i32(m, v); }
static __device__ __forceinline__ unsigned __match_all_sync(unsigned m, unsigned v, int *pred) {
    return __nvvm_match_all_sync_i32p(m, v, pred);
}
static __device__ __forceinline__ int __reduce_add_sync(unsigned m, int v) { return __nvvm_redux_sync_add(v, m); }
static __device__ __forceinline__ int __ffs(unsigned a) { return __builtin_ffs(a); }
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) { return __nvvm_vote_ballot_sync(m, p); }
static __device__ __forceinline__ unsigned __activemask() { unsigned m; asm volatile("activemask.b32 %0;" : "=r"(m)); return m; }
static __device__ __forceinline__ int __popc(unsigned a) { return __builtin_popcount(a); }
static __device__ __forceinline__ int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
static __device__ __forceinline__ int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
static __device__ __forceinline__ int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
static __device__ __forceinline__ void __threadfence_block() { __nvvm_membar_cta(); }
static __device__ __forceinline__ unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp,
                                                               unsigned long long v) {
    return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)cmp, (long long)v);
}
static __device__ __forceinline__ unsigned long long atomicMax(unsigned long long *p, unsigned long long v) {
    return __nvvm_atom_max_gen_ull(p, v);
}
static __device__ __forceinline__ double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
static __device__ __forceinline__ double __longlong_as_double(unsigned long long v) { return __nvvm_bitcast_ll2d((long long)v); }
static __device__ __forceinline__ long long __double_as_longlong(double v) { return __nvvm_bitcast_d2ll(v); }
static __device__ __forceinline__ unsigned atomicInc(unsigned *p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
static __device__ __forceinline__ void __threadfence() { __nvvm_membar_gl(); }
static __device__ __forceinline__ void __syncwarp(unsigned m = 0xffffffff) { __nvvm_bar_warp_sync(m); }
