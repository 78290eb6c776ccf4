// Warp-level primitives: shuffles, votes, match, warp reductions, lane masks.
// Header-free so NVRTC compiles it too.

extern "C" __global__ void warp_scan(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : 0;
    unsigned mask = __activemask();
    for (int d = 1; d < 32; d <<= 1) {
        int u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += u;
    }
    if (i < n) out[i] = v ^ (int)mask;
}

extern "C" __global__ void warp_reduce_f32(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    v = __shfl_sync(0xffffffffu, v, 0);
    float w = __shfl_down_sync(0x0000ffffu, v, 3, 16);
    if ((threadIdx.x & 31) == 0) out[i >> 5] = v + w;
}

extern "C" __global__ void warp_votes(const int *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? in[i] : -1;
    unsigned b = __ballot_sync(0xffffffffu, x > 0);
    int all = __all_sync(0xffffffffu, x != 0);
    int any = __any_sync(0xffffffffu, x < 0);
    unsigned lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    unsigned rank = __popc(b & lt);
#if __CUDA_ARCH__ >= 700
    unsigned peers = __match_any_sync(0xffffffffu, x);
    int pred;
    unsigned same = __match_all_sync(0xffffffffu, x & 1, &pred);
    rank += __popc(peers) + (pred ? same : 0u);
#endif
#if __CUDA_ARCH__ >= 800
    unsigned s = __reduce_add_sync(0xffffffffu, (unsigned)x);
    unsigned m = __reduce_max_sync(0xffffffffu, (unsigned)x);
    int mn = __reduce_min_sync(0xffffffffu, x);
    unsigned o = __reduce_or_sync(0xffffffffu, (unsigned)x);
    rank += s ^ m ^ (unsigned)mn ^ o;
#endif
    __syncwarp();
    if (i < n) out[i] = b + (unsigned)all * 2u + (unsigned)any * 4u + rank;
}

// 64-bit and double shuffles are split into two 32-bit shuffles.
extern "C" __global__ void warp_shfl64(const double *in, double *out, long long *lo, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? in[i] : 0.0;
    long long k = (long long)i * 0x100000001ll;
    v = __shfl_xor_sync(0xffffffffu, v, 1);
    k = __shfl_sync(0xffffffffu, k, (threadIdx.x + 1) & 31);
    if (i < n) { out[i] = v; lo[i] = k; }
}
