// Atomics of every width and scope, fences, shared-memory histogram. Header-free (NVRTC too).

__device__ unsigned long long g_counter;
__device__ float g_sum;
__device__ int g_flag = 0;
__device__ int *g_ptr_table[2] = {0, 0};

extern "C" __global__ void histogram(const unsigned char *data, unsigned *bins, int n) {
    __shared__ unsigned local_bins[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local_bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local_bins[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local_bins[b]) atomicAdd(&bins[b], local_bins[b]);
}

extern "C" __global__ void atomic_mix(int *ip, unsigned *up, float *fp, double *dp,
                                      unsigned long long *ullp, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(ip, 1);
    atomicSub(ip + 1, 2);
    atomicMax(ip + 2, i);
    atomicMin(ip + 3, -i);
    atomicAnd(up, ~(1u << (i & 31)));
    atomicOr(up + 1, 1u << (i & 31));
    atomicXor(up + 2, (unsigned)i);
    atomicInc(up + 3, 100u);
    atomicDec(up + 4, 100u);
    atomicExch(up + 5, (unsigned)i);
    atomicCAS(up + 6, 0u, (unsigned)i);
    atomicAdd(fp, 1.5f);
    atomicExch(fp + 1, (float)i);
#if __CUDA_ARCH__ >= 600
    atomicAdd(dp, 0.25);
    atomicAdd_block(ip + 4, 1);
    atomicAdd_system(ip + 5, 1);
    atomicCAS_block(up + 7, 1u, 2u);
#endif
    atomicAdd(ullp, 3ull);
    atomicCAS(ullp + 1, 0ull, (unsigned long long)i);
    atomicMax(ullp + 2, (unsigned long long)i);
    atomicAdd(&g_counter, 1ull);
    atomicAdd(&g_sum, 0.5f);
}

// double atomicAdd through a CAS loop (the pre-sm_60 idiom)
__device__ double atomic_add_cas(double *address, double val) {
    unsigned long long *a = (unsigned long long *)address;
    unsigned long long old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}

extern "C" __global__ void publish(double *acc, const double *x, volatile int *ready, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_add_cas(acc, x[i]);
    __threadfence();
    if (threadIdx.x == 0) {
        __threadfence_block();
        __threadfence_system();
        atomicExch((int *)ready, 1);
        g_flag = 1;
    }
    while (i == 0 && ready[1] == 0) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(100);
#endif
    }
}
