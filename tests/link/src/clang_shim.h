// Minimal CUDA environment for `clang-16 --cuda-device-only -nocudainc -nocudalib` (no CUDA
// SDK headers): clang's builtin variables and the attribute macros these sources use.
#pragma once
#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))

static __device__ __forceinline__ void __trap() { __builtin_trap(); }
