// Held-out SIMT check (issue #10): real CUDA, compiled by nvcc 13.5 (and, without the CUDA
// headers, by clang-16: the kernels outside HELDOUT_NVCC_ONLY) to PTX; regen.sh beside this
// file. Every kernel is k(out, in, aux) over u32 words; gen.py's t_cuda.py computes the
// expected values from each algorithm's definition.
#ifndef HELDOUT_CLANG
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
namespace cg = cooperative_groups;
#define HELDOUT_NVCC_ONLY 1
#endif

#ifdef HELDOUT_NVCC_ONLY
template <int N>
__device__ void tile_reductions(unsigned *out, unsigned v) {
    cg::thread_block_tile<N> t = cg::tiled_partition<N>(cg::this_thread_block());
    out[0] = cg::reduce(t, v, cg::plus<unsigned>());
    out[1] = (unsigned)cg::reduce(t, (int)v, cg::greater<int>());
}

// Tiles of 4, 8, 16, 32 threads (block 96): sum and signed max of each tile.
extern "C" __global__ void cg_tile_reduce(unsigned *out, const unsigned *in, unsigned *aux) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[g];
    unsigned *o = out + g * 8;
    tile_reductions<4>(o, v);
    tile_reductions<8>(o + 2, v);
    tile_reductions<16>(o + 4, v);
    tile_reductions<32>(o + 6, v);
}

// thread_block_tile<16> members: shfl_down, shfl, any, all, ballot, ranks.
extern "C" __global__ void cg_tile_members(unsigned *out, const unsigned *in, unsigned *aux) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[g];
    cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block());
    unsigned *o = out + g * 7;
    o[0] = t.shfl_down(v, 3);
    o[1] = t.shfl(v, 5);
    o[2] = t.any(v & 1);
    o[3] = t.all(v & 2);
    o[4] = t.ballot(v & 1);
    o[5] = t.thread_rank();
    o[6] = t.meta_group_rank();
}

// coalesced_threads() inside a divergent branch: the lanes with an odd input.
extern "C" __global__ void cg_coalesced(unsigned *out, const unsigned *in, unsigned *aux) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[g];
    unsigned *o = out + g * 4;
    if (v & 1) {
        cg::coalesced_group c = cg::coalesced_threads();
        o[0] = c.size();
        o[1] = c.thread_rank();
        o[2] = cg::reduce(c, v, cg::plus<unsigned>());
        o[3] = c.shfl(v, 0);
    }
}

// labeled_partition of a warp by label v % 3: each group's sum and size.
extern "C" __global__ void cg_labeled(unsigned *out, const unsigned *in, unsigned *aux) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[g];
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
    cg::coalesced_group part = cg::labeled_partition(w, (int)(v % 3));
    out[g * 3] = cg::reduce(part, v, cg::plus<unsigned>());
    out[g * 3 + 1] = part.size();
    out[g * 3 + 2] = part.thread_rank();
}

// this_thread_block().sync() between shared-memory exchanges.
extern "C" __global__ void cg_block_sync(unsigned *out, const unsigned *in, unsigned *aux) {
    __shared__ unsigned s[128];
    cg::thread_block b = cg::this_thread_block();
    unsigned t = b.thread_rank(), n = b.size();
    unsigned v = in[blockIdx.x * n + t];
    for (int r = 0; r < 3; r++) {
        s[t] = v;
        b.sync();
        v = s[(t * 7 + r + 1) % n] + r;
        b.sync();
    }
    out[blockIdx.x * n + t] = v;
}

// atomicAdd on __half2, __nv_bfloat16 and double; atomicCAS on unsigned short.
extern "C" __global__ void half_double_atomics(unsigned *out, const unsigned *in, unsigned *aux) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd((__half2 *)aux, __halves2half2(__float2half(0.5f), __float2half(0.25f)));
    atomicAdd((__nv_bfloat16 *)(aux + 1), __float2bfloat16(0.5f));
    atomicAdd((double *)(aux + 2), (double)(g % 8 + 1) * 0.125);
    unsigned short *h = (unsigned short *)(aux + 4) + (g & 1);
    unsigned short old = *h, seen;
    while ((seen = atomicCAS(h, old, (unsigned short)(old + 3))) != old) old = seen;
    out[g] = 1;
}
#endif

// Warp-aggregated atomics: the lanes with an odd input take tickets through one leader.
extern "C" __global__ void warp_aggregated(unsigned *out, const unsigned *in, unsigned *aux) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[g];
    if (v & 1) {
        unsigned mask = __activemask();
        unsigned lane = threadIdx.x % 32;
        int leader = __ffs(mask) - 1;
        unsigned base = 0;
        if (lane == (unsigned)leader) base = atomicAdd(&aux[0], (unsigned)__popc(mask));
        base = __shfl_sync(mask, base, leader);
        unsigned ticket = base + __popc(mask & ((1u << lane) - 1));
        atomicAdd(&aux[1 + ticket], 1u);
        out[g] = 1;
    }
}

// __reduce_*_sync over the warp (block 100: the last warp holds 4 lanes).
extern "C" __global__ void reduce_sync(unsigned *out, const unsigned *in, unsigned *aux) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[g];
    unsigned *o = out + g * 6;
    o[0] = __reduce_add_sync(0xffffffffu, v);
    o[1] = (unsigned)__reduce_min_sync(0xffffffffu, (int)v);
    o[2] = (unsigned)__reduce_max_sync(0xffffffffu, (int)v);
    o[3] = __reduce_and_sync(0xffffffffu, v);
    o[4] = __reduce_or_sync(0xffffffffu, v);
    o[5] = __reduce_xor_sync(0xffffffffu, v);
}

// atomicMax on unsigned long long; __syncthreads_count/and/or.
extern "C" __global__ void max64_and_sync_reductions(unsigned *out, const unsigned *in, unsigned *aux) {
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[g];
    unsigned long long w = ((unsigned long long)v << 32) | (g * 2654435761u);
    atomicMax((unsigned long long *)aux, w);
    unsigned *o = out + g * 3;
    o[0] = __syncthreads_count(v & 1);
    o[1] = __syncthreads_and(v & 6);
    o[2] = __syncthreads_or(v & 0x80000000u);
}
