// mbarrier kernels for tests/tests/mbarrier.rs (PTX ISA 8.5 §9.7.14.15), compiled by regen.sh.
#include <cuda/barrier>
#include <cuda/std/utility>

#pragma nv_diag_suppress static_var_with_dynamic_init
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// A three-point stencil over `phases` phases, double-buffered in shared memory; every phase
// ends with arrive_and_wait on a block-scope barrier (mbarrier.arrive + a wait loop).
extern "C" __global__ void stencil(const unsigned *in, unsigned *out, int phases) {
    __shared__ block_barrier bar;
    __shared__ unsigned buf[2][256];
    unsigned t = threadIdx.x, n = blockDim.x;
    if (t == 0) init(&bar, n);
    buf[0][t] = in[blockIdx.x * n + t];
    __syncthreads();
    for (int p = 0; p < phases; ++p) {
        unsigned *src = buf[p & 1], *dst = buf[(p + 1) & 1];
        unsigned l = src[(t + n - 1) % n], r = src[(t + 1) % n];
        dst[t] = l * 3u + src[t] * 5u + (r ^ (unsigned)p);
        bar.arrive_and_wait();
    }
    out[blockIdx.x * n + t] = buf[phases & 1][t];
}

// Each thread copies one word into shared memory with memcpy_async completing on the barrier,
// then reads its neighbour's word after the wait.
extern "C" __global__ void copy_async(const unsigned *in, unsigned *out) {
    __shared__ block_barrier bar;
    __shared__ unsigned sm[256];
    unsigned t = threadIdx.x, n = blockDim.x;
    if (t == 0) init(&bar, n);
    __syncthreads();
    cuda::memcpy_async(&sm[t], &in[blockIdx.x * n + t], cuda::aligned_size_t<4>(sizeof(unsigned)), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * n + t] = sm[(t + 1) % n] * 2u + sm[t];
}

// Token-based split arrive/wait with independent work in between; threads t >= keep drop out
// of the barrier after the first phase (arrive_and_drop), the others run `phases` phases.
extern "C" __global__ void split_and_drop(const unsigned *in, unsigned *out, unsigned keep, int phases) {
    __shared__ block_barrier bar;
    __shared__ unsigned sm[2][256];
    unsigned t = threadIdx.x, n = blockDim.x;
    if (t == 0) init(&bar, n);
    sm[0][t] = in[blockIdx.x * n + t];
    __syncthreads();
    unsigned acc = t * 7u;
    if (t >= keep) {
        sm[1][t] = sm[0][t] + 1u;
        (void)bar.arrive_and_drop();
        out[blockIdx.x * n + t] = sm[1][t];
        return;
    }
    for (int p = 0; p < phases; ++p) {
        unsigned *src = sm[p & 1], *dst = sm[(p + 1) & 1];
        dst[t] = src[(t + 1) % keep] + (unsigned)p;
        auto token = bar.arrive();
        for (int k = 0; k < 5; ++k) acc = acc * 1664525u + 1013904223u;  // work before waiting
        bar.wait(cuda::std::move(token));
    }
    out[blockIdx.x * n + t] = sm[phases & 1][t] ^ acc;
}

__device__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// Parity waits: one arrive per phase, then mbarrier.test_wait.parity in a loop.
extern "C" __global__ void parity(const unsigned *in, unsigned *out, int phases) {
    __shared__ __align__(8) unsigned long long bar;
    __shared__ unsigned buf[2][256];
    unsigned t = threadIdx.x, n = blockDim.x, b = smem_addr(&bar);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"(n) : "memory");
    buf[0][t] = in[blockIdx.x * n + t];
    __syncthreads();
    for (int p = 0; p < phases; ++p) {
        buf[(p + 1) & 1][t] = buf[p & 1][(t + 3) % n] + buf[p & 1][t];
        unsigned long long state;
        asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
        unsigned done = 0;
        while (!done)
            asm volatile("{ .reg .pred q; mbarrier.test_wait.parity.shared.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }"
                         : "=r"(done) : "r"(b), "r"(p & 1) : "memory");
    }
    out[blockIdx.x * n + t] = buf[phases & 1][t];
}

// pending_count: the barrier expects n + 1 arrivals; every thread arrives with .noComplete
// (count 1) and records the pending count before its arrival; thread 0 then completes the
// phase with one more arrive and everyone waits on it.
extern "C" __global__ void pending(unsigned *out) {
    __shared__ __align__(8) unsigned long long bar;
    unsigned t = threadIdx.x, n = blockDim.x, b = smem_addr(&bar);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"(n + 2) : "memory");
    __syncthreads();
    unsigned long long state;
    unsigned count;
    asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], 1;" : "=l"(state) : "r"(b) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(count) : "l"(state));
    __syncthreads();
    if (t == 0) asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], 1;" : "=l"(state) : "r"(b) : "memory");
    __syncthreads();
    if (t == 0) asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred q; mbarrier.test_wait.parity.shared.b64 q, [%1], 0; selp.u32 %0, 1, 0, q; }"
                     : "=r"(done) : "r"(b) : "memory");
    (void)state;
    out[blockIdx.x * n + t] = count;
}
