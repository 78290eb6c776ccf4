/* Everyday CUDA runtime features, as `nvcc app.cu` builds them: streams and events
 * (cudaMemcpyAsync, cudaEventElapsedTime, cudaStreamSynchronize), cudaMemset, dynamic shared
 * memory (<<<g, b, bytes>>>), __device__ symbols, cudaFuncGetAttributes,
 * cudaGetDeviceProperties, device printf, and cudaGetLastError after a launch of 2048 threads
 * per block (refused). Each check prints PASS or FAIL; results are
 * compared with CPU loops. Ends with "runtime features: N checks, all passed" or
 * "runtime features: F of N checks failed". */
#include <cstdio>
#include "checks.h"
#include <cstdint>
#include <cstring>

__device__ int table[64];

/* Reverses each block's slice through dynamic shared memory. */
__global__ void reverse_blocks(const int *in, int *out) {
    extern __shared__ int tile[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    tile[t] = in[base + t];
    __syncthreads();
    out[base + t] = tile[blockDim.x - 1 - t] + table[t & 63];
}

__global__ void scale_add(float *x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a + b;
}

__global__ void say(int k) {
    if (threadIdx.x < 2) printf("device printf: block %d thread %d k=%d\n", (int)blockIdx.x, (int)threadIdx.x, k);
}

__global__ void touch(int *p) { p[threadIdx.x] = 1; }


int main() {
    /* Device properties: what any program asks first. */
    int count = 0;
    check(OK(cudaGetDeviceCount(&count)) && count >= 1, "cudaGetDeviceCount >= 1");
    cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    bool got = OK(cudaGetDeviceProperties(&prop, 0));
    printf("  device: %s, sm_%d%d, %d SMs, warp %d, %zu B shared/block, %d threads/block\n", prop.name, prop.major,
           prop.minor, prop.multiProcessorCount, prop.warpSize, prop.sharedMemPerBlock, prop.maxThreadsPerBlock);
    check(got && prop.name[0] != 0 && prop.major >= 3 && prop.multiProcessorCount >= 1 && prop.warpSize == 32 &&
              prop.maxThreadsPerBlock >= 256 && prop.maxThreadsDim[0] >= 256 && prop.maxGridSize[0] >= 65535 &&
              prop.sharedMemPerBlock >= 16384 && prop.totalGlobalMem > 0,
          "cudaGetDeviceProperties gives a plausible device");
    int attr = 0;
    check(OK(cudaDeviceGetAttribute(&attr, cudaDevAttrWarpSize, 0)) && attr == prop.warpSize,
          "cudaDeviceGetAttribute(WarpSize) agrees with the properties");

    /* cudaMemset and a round trip. */
    const int n = 4096;
    static int host[n], back[n];
    int *d_in, *d_out;
    check(OK(cudaMalloc(&d_in, n * sizeof(int))) && OK(cudaMalloc(&d_out, n * sizeof(int))), "cudaMalloc");
    bool m = OK(cudaMemset(d_out, 0xA5, n * sizeof(int))) && OK(cudaMemcpy(back, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    bool all = m;
    for (int i = 0; i < n && all; i++) all = (uint32_t)back[i] == 0xA5A5A5A5u;
    check(all, "cudaMemset fills every byte");
    m = OK(cudaMemset((char *)d_out + 5, 0x3C, 7)) && OK(cudaMemcpy(back, d_out, 16, cudaMemcpyDeviceToHost));
    unsigned char want_bytes[16];
    memset(want_bytes, 0xA5, 16);
    memset(want_bytes + 5, 0x3C, 7);
    check(m && memcmp(back, want_bytes, 16) == 0, "cudaMemset of 7 bytes at an odd offset");

    /* __device__ symbol + dynamic shared memory. */
    int tab[64];
    for (int i = 0; i < 64; i++) tab[i] = 1000 * i;
    for (int i = 0; i < n; i++) host[i] = i * 7 - 3;
    check(OK(cudaMemcpyToSymbol(table, tab, sizeof tab)), "cudaMemcpyToSymbol");
    int tab_back[64] = {0};
    check(OK(cudaMemcpyFromSymbol(tab_back, table, sizeof tab_back)) && memcmp(tab, tab_back, sizeof tab) == 0,
          "cudaMemcpyFromSymbol reads it back");
    OK(cudaMemcpy(d_in, host, n * sizeof(int), cudaMemcpyHostToDevice));
    const int block = 256;
    reverse_blocks<<<n / block, block, block * sizeof(int)>>>(d_in, d_out);
    bool launched = OK(cudaGetLastError()) && OK(cudaDeviceSynchronize());
    OK(cudaMemcpy(back, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    all = launched;
    for (int i = 0; i < n && all; i++) {
        int b = i / block, t = i % block;
        all = back[i] == host[b * block + block - 1 - t] + tab[t & 63];
    }
    check(all, "dynamic shared memory (<<<16, 256, 1024>>>) reverses each block");

    /* Function attributes. */
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    bool fok = OK(cudaFuncGetAttributes(&fa, reverse_blocks));
    printf("  reverse_blocks: maxThreadsPerBlock %d, sharedSizeBytes %zu, numRegs %d, ptxVersion %d\n",
           fa.maxThreadsPerBlock, fa.sharedSizeBytes, fa.numRegs, fa.ptxVersion);
    check(fok && fa.maxThreadsPerBlock >= 256 && fa.maxThreadsPerBlock <= prop.maxThreadsPerBlock && fa.sharedSizeBytes == 0,
          "cudaFuncGetAttributes(reverse_blocks)");

    /* Streams, async copies and events. */
    const int fn = 1 << 16;
    float *h_x, *h_y;
    check(OK(cudaMallocHost(&h_x, fn * sizeof(float))) && OK(cudaMallocHost(&h_y, fn * sizeof(float))), "cudaMallocHost");
    for (int i = 0; i < fn; i++) h_x[i] = (float)(i % 1000) * 0.5f;
    float *d_x;
    OK(cudaMalloc(&d_x, fn * sizeof(float)));
    cudaStream_t s;
    cudaEvent_t start, stop;
    check(OK(cudaStreamCreate(&s)) && OK(cudaEventCreate(&start)) && OK(cudaEventCreate(&stop)), "stream and events created");
    bool sok = OK(cudaEventRecord(start, s)) && OK(cudaMemcpyAsync(d_x, h_x, fn * sizeof(float), cudaMemcpyHostToDevice, s));
    scale_add<<<(fn + 255) / 256, 256, 0, s>>>(d_x, 2.0f, 1.0f, fn);
    sok = sok && OK(cudaGetLastError());
    sok = sok && OK(cudaMemcpyAsync(h_y, d_x, fn * sizeof(float), cudaMemcpyDeviceToHost, s)) && OK(cudaEventRecord(stop, s));
    sok = sok && OK(cudaStreamSynchronize(s));
    all = sok;
    for (int i = 0; i < fn && all; i++) all = h_y[i] == h_x[i] * 2.0f + 1.0f;
    check(all, "cudaMemcpyAsync + kernel + cudaMemcpyAsync on a stream, cudaStreamSynchronize");
    check(cudaEventQuery(stop) == cudaSuccess, "cudaEventQuery(stop) is cudaSuccess after the stream synchronized");
    float ms = -1.0f;
    bool eok = OK(cudaEventElapsedTime(&ms, start, stop));
    printf("  elapsed %.3f ms\n", ms);
    check(eok && ms >= 0.0f && ms < 60000.0f, "cudaEventElapsedTime gives a time >= 0");
    /* Stream-ordered allocation (cudaMallocAsync, CUB's default memory resource). */
    int *d_async = nullptr;
    bool aok = OK(cudaMallocAsync(&d_async, 4096, s)) && OK(cudaMemsetAsync(d_async, 0x5A, 4096, s)) &&
               OK(cudaMemcpyAsync(back, d_async, 4096, cudaMemcpyDeviceToHost, s)) && OK(cudaFreeAsync(d_async, s)) &&
               OK(cudaStreamSynchronize(s));
    for (int i = 0; i < 1024 && aok; i++) aok = (uint32_t)back[i] == 0x5A5A5A5Au;
    check(aok, "cudaMallocAsync, cudaMemsetAsync, cudaFreeAsync on a stream");
    check(OK(cudaStreamDestroy(s)) && OK(cudaEventDestroy(start)) && OK(cudaEventDestroy(stop)), "stream and events destroyed");

    /* Device printf: lines appear at synchronization. */
    fflush(stdout);
    say<<<2, 32>>>(42);
    check(OK(cudaDeviceSynchronize()), "kernel with printf synchronizes");
    fflush(stdout);

    /* A bad launch configuration: 2048 threads per block. */
    cudaGetLastError();
    touch<<<1, 2048>>>(d_in);
    cudaError_t e = cudaGetLastError();
    printf("  <<<1, 2048>>>: %s\n", cudaGetErrorName(e));
    /* NVIDIA's answer is cudaErrorInvalidConfiguration; ptxcross's cuLaunchKernel refuses with
     * CUDA_ERROR_INVALID_VALUE, which the runtime reports as cudaErrorInvalidValue. Either is
     * a refusal; a launch that runs is the failure. */
    check(e == cudaErrorInvalidConfiguration || e == cudaErrorInvalidValue, "<<<1, 2048>>> is refused (invalid configuration or value)");
    check(cudaGetLastError() == cudaSuccess, "cudaGetLastError then clears it");
    /* Too much dynamic shared memory. */
    reverse_blocks<<<1, 32, 1 << 20>>>(d_in, d_out);
    e = cudaGetLastError();
    printf("  1 MiB dynamic shared memory: %s\n", cudaGetErrorName(e));
    check(e == cudaErrorInvalidValue, "1 MiB of dynamic shared memory is cudaErrorInvalidValue");
    /* The context still works. */
    touch<<<1, 32>>>(d_in);
    check(OK(cudaGetLastError()) && OK(cudaDeviceSynchronize()), "a good launch afterwards still works");

    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_x);
    cudaFreeHost(h_x);
    cudaFreeHost(h_y);
    if (failed == 0) printf("runtime features: %d checks, all passed\n", checks);
    else printf("runtime features: %d of %d checks failed\n", failed, checks);
    return failed != 0;
}
