// __syncthreads_count/and/or (bar.red.popc/and/or) over the CTA's non-exited threads: threads
// past n return first and are not counted.
extern "C" __global__ void bar_red(const int *in, unsigned n, int *out) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    int v = in[gid];
    int count = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > -900);
    int any = __syncthreads_or(v > 990);
    out[3 * gid] = count;
    out[3 * gid + 1] = all;
    out[3 * gid + 2] = any;
}

// __threadfence_block (membar.cta) in a branch only even threads take, then a barrier.
extern "C" __global__ void fence_block(const int *in, int *out) {
    __shared__ int s[1024];
    unsigned t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    if (t % 2 == 0) {
        s[t] = in[blockIdx.x * blockDim.x + t] * 3;
        __threadfence_block();
        s[t + 1] = 7;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[t] + s[(t + 2) % blockDim.x];
}
