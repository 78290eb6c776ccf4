// Host shim: just enough of CUDA C to compile ../../src/*.cu as plain C++20 on the CPU.
// A block runs as blockDim threads (std::thread), __syncthreads is a std::barrier, blocks run one
// after another. Float intrinsics map to IEEE single operations; build with -ffp-contract=off
// so the compiler adds no contraction of its own. This is a check on reference/gen.py: both
// must give the same bytes (NaN payloads aside).
#pragma once
#include <barrier>
#include <cmath>
#include <cstdint>

struct dim3 { unsigned x = 1, y = 1, z = 1; };
extern thread_local dim3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
extern std::barrier<> *g_block_barrier;

#define __global__
#define __device__
inline void __syncthreads() { g_block_barrier->arrive_and_wait(); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
using std::fmaf;
