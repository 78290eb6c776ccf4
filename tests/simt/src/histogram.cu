// Histogram of bytes: per-CTA counts in shared memory with shared atomics, merged into the
// global histogram with global atomics; the total weight is a 64-bit atomicAdd. A grid-stride
// loop covers any n; the last block may be partial.
extern "C" __global__ void histogram(const unsigned char *data, unsigned n, unsigned *bins,
                                     unsigned long long *total) {
    __shared__ unsigned local[256];
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    unsigned long long weight = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[data[i]], 1u);
        weight += data[i] * 0x100000001ull;
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) {
        if (local[i]) atomicAdd(&bins[i], local[i]);
    }
    atomicAdd(total, weight);
}
