// Warp-level building blocks with expected results from their definitions.

// Sum of each warp's values with __shfl_down_sync; lane 0 writes it. Partial last warps (block
// sizes 48, 100) sum only their existing lanes: the full mask is not valid there, so the mask
// is the warp's existing lanes.
extern "C" __global__ void warp_reduce(const int *in, int *out) {
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    unsigned gid = blockIdx.x * blockDim.x + tid;
    unsigned in_warp = blockDim.x - warp * 32 < 32 ? blockDim.x - warp * 32 : 32;
    unsigned mask = in_warp == 32 ? 0xffffffffu : (1u << in_warp) - 1;
    int v = in[gid];
    for (int offset = 16; offset > 0; offset /= 2) {
        int other = __shfl_down_sync(mask, v, offset);
        if (lane + offset < in_warp) v += other;
    }
    if (lane == 0) out[blockIdx.x * ((blockDim.x + 31) / 32) + warp] = v;
}

// Inclusive scan inside each warp with __shfl_up_sync (full warps).
extern "C" __global__ void warp_scan(const int *in, int *out) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x % 32;
    int v = in[gid];
    for (int d = 1; d < 32; d *= 2) {
        int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    out[gid] = v;
}

// Block inclusive scan: warp scans, warp totals through shared memory, scanned by warp 0.
extern "C" __global__ void block_scan(const int *in, int *out) {
    __shared__ int totals[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    unsigned gid = blockIdx.x * blockDim.x + tid;
    int v = in[gid];
    for (int d = 1; d < 32; d *= 2) {
        int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    if (lane == 31) totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int t = lane < blockDim.x / 32 ? totals[lane] : 0;
        for (int d = 1; d < 32; d *= 2) {
            int up = __shfl_up_sync(0xffffffffu, t, d);
            if (lane >= d) t += up;
        }
        totals[lane] = t;
    }
    __syncthreads();
    if (warp > 0) v += totals[warp - 1];
    out[gid] = v;
}

// Stream compaction inside each warp: keep positive values, in order, with __ballot_sync and
// __popc; the warp's count goes to counts[]. Threads past n return first (a divergent exit).
extern "C" __global__ void compact(const int *in, unsigned n, int *out, unsigned *counts) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x % 32;
    unsigned warp_global = gid / 32;
    if (gid >= n) return;
    int v = in[gid];
    unsigned keep = __ballot_sync(__activemask(), v > 0);
    unsigned pos = __popc(keep & ((1u << lane) - 1));
    if (v > 0) out[warp_global * 32 + pos] = v;
    if (lane == 0) counts[warp_global] = __popc(keep);
}
