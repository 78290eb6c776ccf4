// reduce: per-block tree sum in dynamic shared memory; out[blockIdx.x] = sum of the block's slice.
// Threads past n load 0.0f; no thread leaves before the barriers.
// The addition order is fixed by the tree: step s adds sdata[tid + s] into sdata[tid] for tid < s.
extern "C" __global__ void reduce(const float *in, float *out, unsigned int n)
{
    extern __shared__ float sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
