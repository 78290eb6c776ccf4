// 64-bit atomics on __shared__ memory whose results are used (issue 10): per block, a 64-bit
// histogram whose counters start just below 2^32 (so the tickets atomicAdd returns carry into
// the high word midway), a shared ticket counter stepping by 2^32 - 1 (every add carries), a
// double sum with atomicAdd(double), a 64-bit maximum through an atomicCAS loop (the CUDA
// programming guide's pattern), and 32-bit counters in the same shared memory. The last block
// is partial (threads past n take no part). Results: every ticket and old value per thread,
// and the block's final shared values.
#define START 0xffffff00ull

extern "C" __global__ void shared64(const unsigned char *data, unsigned n, unsigned long long *tickets,
                                    unsigned long long *blocks, double *sums, unsigned *counts32) {
    __shared__ unsigned long long bins[16];
    __shared__ unsigned long long counter;
    __shared__ unsigned long long maxv;
    __shared__ double sum;
    __shared__ unsigned bins32[16];
    unsigned t = threadIdx.x;
    if (t < 16) {
        bins[t] = START;
        bins32[t] = 0;
    }
    if (t == 0) {
        counter = 0;
        maxv = 0;
        sum = 0.0;
    }
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + t;
    if (i < n) {
        unsigned d = data[i];
        unsigned b = d & 15;
        tickets[3 * i] = atomicAdd(&bins[b], 1ull);
        tickets[3 * i + 1] = atomicAdd(&counter, 0xffffffffull);
        atomicAdd(&bins32[b], 1u);
        atomicAdd(&sum, (double)d);
        unsigned long long v = (unsigned long long)d << 40 | i;
        unsigned long long old = maxv, assumed;
        do {
            assumed = old;
            if (assumed >= v) break;
            old = atomicCAS(&maxv, assumed, v);
        } while (assumed != old);
        tickets[3 * i + 2] = old;
    }
    __syncthreads();
    if (t < 16) {
        blocks[18 * blockIdx.x + t] = bins[t];
        counts32[16 * blockIdx.x + t] = bins32[t];
    }
    if (t == 0) {
        blocks[18 * blockIdx.x + 16] = counter;
        blocks[18 * blockIdx.x + 17] = maxv;
        sums[blockIdx.x] = sum;
    }
}
