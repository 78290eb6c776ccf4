// Block sum with an early-exit guard before the first __syncthreads (threads past n return,
// as in most CUDA code) and __syncthreads inside the reduction loop. Only the CTA's in-range
// threads take part: m of them in the last, partial block.
extern "C" __global__ void reduce_guard(const int *in, int *out, unsigned n) {
    __shared__ int s[1024];
    unsigned tid = threadIdx.x;
    unsigned base = blockIdx.x * blockDim.x;
    unsigned i = base + tid;
    if (i >= n) return;
    unsigned m = n - base < blockDim.x ? n - base : blockDim.x;
    s[tid] = in[i];
    __syncthreads();
    for (unsigned stride = 1; stride < m; stride *= 2) {
        if (tid % (2 * stride) == 0 && tid + stride < m) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
