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
