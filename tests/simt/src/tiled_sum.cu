// Tiles staged through shared memory with two __syncthreads per tile; the tile count is read
// from memory (the same for every thread, but no compiler can prove it), and threads whose
// `limit` is reached stop accumulating (but keep staging, so the barriers stay matched).
extern "C" __global__ void tiled_sum(const int *in, const unsigned *ntiles_p, const unsigned *limit,
                                     int *out) {
    __shared__ int tile[1024];
    unsigned tid = threadIdx.x;
    unsigned ntiles = *ntiles_p;
    unsigned my_limit = limit[blockIdx.x * blockDim.x + tid];
    int acc = 0;
    for (unsigned t = 0; t < ntiles; ++t) {
        tile[tid] = in[(blockIdx.x * ntiles + t) * blockDim.x + tid];
        __syncthreads();
        if (t < my_limit) acc += tile[(tid + 1) % blockDim.x] * (int)(t + 1);
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = acc;
}
