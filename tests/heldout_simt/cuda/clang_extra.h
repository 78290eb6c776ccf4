// What warp_cuda.cu needs beyond tests/simt/src/clang_shim.h, for clang-16 without CUDA headers.
#pragma once
static __device__ __forceinline__ int __reduce_min_sync(unsigned m, int v) { return __nvvm_redux_sync_min(v, m); }
static __device__ __forceinline__ int __reduce_max_sync(unsigned m, int v) { return __nvvm_redux_sync_max(v, m); }
static __device__ __forceinline__ unsigned __reduce_and_sync(unsigned m, unsigned v) { return __nvvm_redux_sync_and(v, m); }
static __device__ __forceinline__ unsigned __reduce_or_sync(unsigned m, unsigned v) { return __nvvm_redux_sync_or(v, m); }
static __device__ __forceinline__ unsigned __reduce_xor_sync(unsigned m, unsigned v) { return __nvvm_redux_sync_xor(v, m); }
static __device__ __forceinline__ unsigned __reduce_add_sync(unsigned m, unsigned v) { return __nvvm_redux_sync_add(v, m); }
