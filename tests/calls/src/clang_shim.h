// Minimal CUDA environment for `clang-16 --cuda-device-only -nocudainc -nocudalib` (no CUDA
// SDK headers): clang's builtin variables and the attribute macros these sources use.
#pragma once
#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))

static __device__ __forceinline__ void __trap() { __builtin_trap(); }
#define __shared__ __attribute__((shared))
// __syncthreads is a clang builtin. c = 0x1f: the whole warp, clamped (CUDA's default width).
static __device__ __forceinline__ unsigned __shfl_down_sync(unsigned m, unsigned v, unsigned d) {
    return (unsigned)__nvvm_shfl_sync_down_i32(m, (int)v, (int)d, 0x1f);
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) { return __nvvm_vote_ballot_sync(m, p); }
