// CUB's block- and warp-level collectives (CUB headers of the PyPI nvidia-cuda-cccl wheel)
// instantiated in small kernels, nvcc only (CUB needs the CUDA headers). Block sizes are
// template parameters in CUB: 128 (whole warps), 100 and 48 (partial last warps).
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/functional>

// cub::WarpReduce: the sum of each 32-lane warp (full) and of each 16-lane logical warp (a
// sub-warp: shuffles with a segment mask); lane 0 of each writes it.
extern "C" __global__ void cub_warp_reduce(const int *in, int *out32, int *out16) {
    using W32 = cub::WarpReduce<int>;
    using W16 = cub::WarpReduce<int, 16>;
    __shared__ typename W32::TempStorage t32[4];
    __shared__ typename W16::TempStorage t16[8];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    int s32 = W32(t32[threadIdx.x / 32]).Sum(v);
    int s16 = W16(t16[threadIdx.x / 16]).Sum(v);
    if (threadIdx.x % 32 == 0) out32[gid / 32] = s32;
    if (threadIdx.x % 16 == 0) out16[gid / 16] = s16;
}

// cub::WarpReduce with valid_items: the max over the
// warp's first `valid` lanes, valid = in-range lanes of the warp (n not a multiple of 32).
extern "C" __global__ void cub_warp_max_partial(const int *in, unsigned n, int *out) {
    using W = cub::WarpReduce<int>;
    __shared__ typename W::TempStorage t[4];
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned wbase = gid - threadIdx.x % 32;
    int valid = n > wbase ? (n - wbase < 32 ? n - wbase : 32) : 0;
    int v = gid < n ? in[gid] : 0;
    int m = W(t[threadIdx.x / 32]).Reduce(v, cuda::maximum<int>{}, valid);
    if (threadIdx.x % 32 == 0 && valid > 0) out[gid / 32] = m;
}

// cub::BlockReduce: each CTA's sum, over all its threads and (Sum with num_valid) over the
// in-range ones of a partial last block.
template <int B> __device__ void block_reduce(const int *in, unsigned n, int *out) {
    using R = cub::BlockReduce<int, B>;
    __shared__ typename R::TempStorage t;
    unsigned gid = blockIdx.x * B + threadIdx.x;
    unsigned base = blockIdx.x * B;
    int valid = n - base < B ? n - base : B;
    int v = gid < n ? in[gid] : 0;
    int s = R(t).Sum(v, valid);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}
extern "C" __global__ void cub_block_reduce_128(const int *in, unsigned n, int *out) { block_reduce<128>(in, n, out); }
extern "C" __global__ void cub_block_reduce_100(const int *in, unsigned n, int *out) { block_reduce<100>(in, n, out); }
extern "C" __global__ void cub_block_reduce_48(const int *in, unsigned n, int *out) { block_reduce<48>(in, n, out); }

// cub::BlockScan: inclusive sum and exclusive max (initial INT_MIN) of 2 items per thread
// (blocked arrangement), and the block aggregate.
template <int B> __device__ void block_scan(const int *in, int *incl, int *excl, int *aggr) {
    using S = cub::BlockScan<int, B>;
    __shared__ typename S::TempStorage t;
    unsigned base = blockIdx.x * B * 2 + threadIdx.x * 2;
    int items[2] = {in[base], in[base + 1]};
    int out[2], agg;
    S(t).InclusiveSum(items, out, agg);
    incl[base] = out[0];
    incl[base + 1] = out[1];
    __syncthreads();
    S(t).ExclusiveScan(items, out, -2147483647 - 1, cuda::maximum<int>{});
    excl[base] = out[0];
    excl[base + 1] = out[1];
    if (threadIdx.x == 0) aggr[blockIdx.x] = agg;
}
extern "C" __global__ void cub_block_scan_128(const int *in, int *incl, int *excl, int *aggr) { block_scan<128>(in, incl, excl, aggr); }
extern "C" __global__ void cub_block_scan_100(const int *in, int *incl, int *excl, int *aggr) { block_scan<100>(in, incl, excl, aggr); }
extern "C" __global__ void cub_block_scan_48(const int *in, int *incl, int *excl, int *aggr) { block_scan<48>(in, incl, excl, aggr); }

// cub::BlockRadixSort: each CTA sorts B * 4 unsigned keys with int values (pairs), blocked
// arrangement in and out.
template <int B> __device__ void radix_sort(const unsigned *keys, const int *vals, unsigned *keys_out, int *vals_out) {
    using S = cub::BlockRadixSort<unsigned, B, 4, int>;
    __shared__ typename S::TempStorage t;
    unsigned base = (blockIdx.x * B + threadIdx.x) * 4;
    unsigned k[4];
    int v[4];
    for (int i = 0; i < 4; i++) {
        k[i] = keys[base + i];
        v[i] = vals[base + i];
    }
    S(t).Sort(k, v);
    for (int i = 0; i < 4; i++) {
        keys_out[base + i] = k[i];
        vals_out[base + i] = v[i];
    }
}
extern "C" __global__ void cub_radix_sort_128(const unsigned *k, const int *v, unsigned *ko, int *vo) { radix_sort<128>(k, v, ko, vo); }
extern "C" __global__ void cub_radix_sort_48(const unsigned *k, const int *v, unsigned *ko, int *vo) { radix_sort<48>(k, v, ko, vo); }
extern "C" __global__ void cub_radix_sort_100(const unsigned *k, const int *v, unsigned *ko, int *vo) { radix_sort<100>(k, v, ko, vo); }
