// Cooperative groups: tiled partitions, cg::reduce, coalesced groups, grid sync, clusters.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void block_reduce(const int *in, int *out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = i < n ? in[i] : 0;
    int s = cg::reduce(warp, v, cg::plus<int>());
    int m = cg::reduce(warp, v, cg::greater<int>());
    int pre = cg::exclusive_scan(warp, v);
    __shared__ int partial[32];
    if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = s;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        int t = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0;
        t = cg::reduce(warp, t, cg::plus<int>());
        if (warp.thread_rank() == 0) atomicAdd(out, t);
    }
    if (i < n) out[1 + i] = m + pre;
}

__global__ void coalesced(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        int rank = active.thread_rank();
        int total = active.num_threads();
        int leader = active.shfl(i, 0);
        cg::thread_block_tile<4> quad = cg::tiled_partition<4>(cg::this_thread_block());
        out[i] = rank * 1000 + total + leader + quad.shfl_down(i, 1) + (int)quad.ballot(in[i] > 3);
    }
}

__global__ void grid_stride_sync(float *data, int n) {
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] *= 2.0f;
    grid.sync();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] += data[(i + 1) % n];
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__global__ void __cluster_dims__(2, 1, 1) cluster_exchange(int *out) {
    __shared__ int smem[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    smem[threadIdx.x] = (int)(rank * 100 + threadIdx.x);
    cluster.sync();
    int *peer = cluster.map_shared_rank(smem, rank ^ 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x];
    cluster.sync();
}
#endif
