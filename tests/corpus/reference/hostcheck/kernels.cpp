// The corpus kernels, compiled for the host, behind a cuLaunchKernel-like entry point for
// ../hostcheck.py (ctypes): hc_launch(name, grid[3], block[3], dynamic_shared_bytes, args),
// where args[i] points at the value of kernel parameter i.
#include "shim.h"
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
std::barrier<> *g_block_barrier;

// Static __shared__ arrays become function-local statics (blocks run one at a time).
#define __shared__ static
#include "../../src/saxpy.cu"
#include "../../src/vecadd.cu"
#include "../../src/transpose.cu"
#include "../../src/mandelbrot.cu"
#include "../../src/hash.cu"
#undef __shared__

// `extern __shared__ float sdata[];` resolves to this array (the dynamic shared window).
#define __shared__
alignas(16) float sdata[48 * 1024 / sizeof(float)];
#include "../../src/reduce.cu"
#undef __shared__

template <class T> static T arg(void **a, int i) { T v; std::memcpy(&v, a[i], sizeof v); return v; }

static void call_saxpy(void **a) { saxpy(arg<int>(a, 0), arg<float>(a, 1), arg<const float *>(a, 2), arg<float *>(a, 3)); }
static void call_vecadd(void **a) { vecadd(arg<const float *>(a, 0), arg<const float *>(a, 1), arg<float *>(a, 2), arg<int>(a, 3)); }
static void call_transpose(void **a) { transpose(arg<float *>(a, 0), arg<const float *>(a, 1), arg<int>(a, 2), arg<int>(a, 3)); }
static void call_reduce(void **a) { reduce(arg<const float *>(a, 0), arg<float *>(a, 1), arg<unsigned>(a, 2)); }
static void call_mandelbrot(void **a)
{
    mandelbrot(arg<unsigned *>(a, 0), arg<int>(a, 1), arg<int>(a, 2), arg<float>(a, 3),
               arg<float>(a, 4), arg<float>(a, 5), arg<float>(a, 6), arg<int>(a, 7));
}
static void call_hash(void **a)
{
    hash(arg<u64 *>(a, 0), arg<unsigned *>(a, 1), arg<s64 *>(a, 2), arg<u64>(a, 3),
         arg<s64>(a, 4), arg<int>(a, 5));
}

struct Entry { const char *name; void (*fn)(void **); };
static const Entry entries[] = {
    {"saxpy", call_saxpy}, {"vecadd", call_vecadd}, {"transpose", call_transpose},
    {"reduce", call_reduce}, {"mandelbrot", call_mandelbrot}, {"hash", call_hash},
};

extern "C" int hc_launch(const char *name, const unsigned *grid, const unsigned *block,
                         unsigned dynamic_shared_bytes, void **args)
{
    void (*fn)(void **) = nullptr;
    for (const Entry &e : entries)
        if (std::strcmp(e.name, name) == 0)
            fn = e.fn;
    if (!fn || dynamic_shared_bytes > sizeof sdata)
        return 1;
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    const unsigned nthreads = block[0] * block[1] * block[2];
    for (unsigned bz = 0; bz < grid[2]; ++bz)
        for (unsigned by = 0; by < grid[1]; ++by)
            for (unsigned bx = 0; bx < grid[0]; ++bx) {
                std::memset(sdata, 0xA5, sizeof sdata);  // shared memory starts undefined
                std::barrier<> bar((std::ptrdiff_t)nthreads);
                g_block_barrier = &bar;
                std::vector<std::thread> threads;
                threads.reserve(nthreads);
                for (unsigned tz = 0; tz < block[2]; ++tz)
                    for (unsigned ty = 0; ty < block[1]; ++ty)
                        for (unsigned tx = 0; tx < block[0]; ++tx)
                            threads.emplace_back([=] {
                                threadIdx = {tx, ty, tz};
                                blockIdx = {bx, by, bz};
                                fn(args);
                            });
                for (std::thread &t : threads)
                    t.join();
            }
    return 0;
}
