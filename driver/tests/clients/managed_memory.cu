/* Managed memory (cudaMallocManaged) as people use it: NVIDIA's "An Even Easier Introduction to
 * CUDA" (add over 1M floats with a grid-stride loop, the host reading and writing the same
 * pointer), host writes between launches, kernels writing and the host reading after
 * cudaDeviceSynchronize, cudaMemcpy and cudaMemset with managed memory on either side,
 * cudaMemPrefetchAsync, pointer attributes, free and reallocate, many small allocations,
 * __managed__ variables.
 * Every result is checked against a CPU loop. Ends with "managed memory: N checks, all passed"
 * or "managed memory: F of N checks failed". */
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include "checks.h"

/* The tutorial's kernel. */
__global__ void add(int n, float *x, float *y) {
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int i = index; i < n; i += stride) y[i] = x[i] + y[i];
}

__global__ void fill(int n, uint32_t *p, uint32_t salt) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        p[i] = (uint32_t)i * 2654435761u ^ salt;
}

__global__ void copy_words(int n, const uint32_t *src, uint32_t *dst) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) dst[i] = src[i];
}

/* Adds k + 1 to every element of the k-th small array; the array of pointers is managed too. */
__global__ void bump_all(int count, int **arrays, const int *lengths) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += blockDim.x * gridDim.x)
        for (int j = 0; j < lengths[k]; j++) arrays[k][j] += k + 1;
}

/* __managed__ variables: one initialized, one not. */
__managed__ int hits[4];
__managed__ float weight = 2.5f;

__global__ void count_hits(int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&hits[i % 4], (int)weight);
}

static uint32_t fill_ref(int i, uint32_t salt) { return (uint32_t)i * 2654435761u ^ salt; }

int main() {
    cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    int concurrent = -1;
    check(OK(cudaGetDeviceProperties(&prop, 0)) && prop.managedMemory == 1 &&
              OK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0)) && concurrent == 0,
          "the device reports managed memory without concurrent access");

    /* The tutorial, with values that differ per element. */
    const int N = 1 << 20;
    float *x = nullptr, *y = nullptr;
    bool got = OK(cudaMallocManaged(&x, N * sizeof(float))) && OK(cudaMallocManaged(&y, N * sizeof(float)));
    check(got, "cudaMallocManaged of two 4 MiB arrays");
    if (!got) {
        printf("managed memory: cannot continue\n");
        return 1;
    }
    std::vector<float> want(N);
    for (int i = 0; i < N; i++) {
        x[i] = 1.0f + (float)i * 0.5f;
        y[i] = 2.0f - (float)(i % 1000) * 0.25f;
        want[i] = x[i] + y[i];
    }
    int blockSize = 256;
    int numBlocks = 64; /* fewer blocks than elements / blockSize: every thread loops */
    add<<<numBlocks, blockSize>>>(N, x, y);
    bool ran = OK(cudaGetLastError()) && OK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < N; i++) bad += y[i] != want[i];
    if (bad) printf("  %d of %d wrong, y[1] = %g (want %g)\n", bad, N, y[1], want[1]);
    check(ran && bad == 0, "tutorial: add<<<64, 256>>> over 1M managed floats, grid-stride loop, read on the host");

    /* The host writes between two launches; the second launch sees them. */
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 4096) - 100.0f;
        want[i] = x[i] + y[i];
    }
    add<<<(N + blockSize - 1) / blockSize, blockSize>>>(N, x, y);
    ran = OK(cudaGetLastError()) && OK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < N; i++) bad += y[i] != want[i];
    check(ran && bad == 0, "host writes between two launches are seen by the second");

    /* A kernel writes, the host reads after synchronizing. */
    const int M = 100003; /* not a multiple of anything */
    uint32_t *w = nullptr;
    got = OK(cudaMallocManaged(&w, M * sizeof(uint32_t)));
    fill<<<37, 128>>>(M, w, 0x5a5a1234u);
    ran = got && OK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; ran && i < M; i++) bad += w[i] != fill_ref(i, 0x5a5a1234u);
    check(ran && bad == 0, "a kernel writes managed memory, the host reads it after cudaDeviceSynchronize");

    /* cudaMemcpy with managed memory on either side, in each direction. */
    std::vector<uint32_t> host(M), back(M);
    for (int i = 0; i < M; i++) host[i] = fill_ref(i, 0xC0FFEEu);
    uint32_t *d = nullptr, *m2 = nullptr;
    got = OK(cudaMalloc(&d, M * sizeof(uint32_t))) && OK(cudaMallocManaged(&m2, M * sizeof(uint32_t)));
    bool c = got && OK(cudaMemcpy(w, host.data(), M * sizeof(uint32_t), cudaMemcpyHostToDevice));
    check(c && memcmp(w, host.data(), M * sizeof(uint32_t)) == 0, "cudaMemcpy host -> managed, read on the host");
    for (int i = 0; i < M; i++) w[i] = fill_ref(i, 7u);
    c = OK(cudaMemcpy(back.data(), w, M * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < M; i++) bad += back[i] != fill_ref(i, 7u);
    check(c && bad == 0, "cudaMemcpy managed (written by the host) -> host");
    fill<<<16, 256>>>(M, d, 99u);
    c = OK(cudaMemcpy(w, d, M * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
    bad = 0;
    for (int i = 0; c && i < M; i++) bad += w[i] != fill_ref(i, 99u);
    check(c && bad == 0, "cudaMemcpy device -> managed (DeviceToDevice), read on the host");
    for (int i = 0; i < M; i++) w[i] = fill_ref(i, 1234u);
    c = OK(cudaMemcpy(d, w, M * sizeof(uint32_t), cudaMemcpyDefault)) &&
        OK(cudaMemcpy(back.data(), d, M * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < M; i++) bad += back[i] != fill_ref(i, 1234u);
    check(c && bad == 0, "cudaMemcpy managed -> device (Default)");
    c = OK(cudaMemcpy(m2, w, M * sizeof(uint32_t), cudaMemcpyDefault));
    check(c && memcmp(m2, w, M * sizeof(uint32_t)) == 0, "cudaMemcpy managed -> managed (Default)");
    /* A kernel sees what a copy put in managed memory. */
    for (int i = 0; i < M; i++) host[i] = fill_ref(i, 0xABCDu);
    c = OK(cudaMemcpy(m2, host.data(), M * sizeof(uint32_t), cudaMemcpyDefault));
    copy_words<<<16, 256>>>(M, m2, d);
    c = c && OK(cudaDeviceSynchronize()) && OK(cudaMemcpy(back.data(), d, M * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    check(c && back == host, "a kernel reads what cudaMemcpy wrote into managed memory");

    /* cudaMemset on managed memory: the host and a kernel see it. */
    c = OK(cudaMemset(m2, 0xA7, M * sizeof(uint32_t))) && OK(cudaMemset((char *)m2 + 5, 0x3C, 7));
    unsigned char want_bytes[16];
    memset(want_bytes, 0xA7, 16);
    memset(want_bytes + 5, 0x3C, 7);
    bad = 0;
    for (int i = 4; i < M; i++) bad += m2[i] != 0xA7A7A7A7u;
    check(c && memcmp(m2, want_bytes, 16) == 0 && bad == 0, "cudaMemset on managed memory, read on the host");
    copy_words<<<16, 256>>>(M, m2, d);
    c = OK(cudaDeviceSynchronize()) && OK(cudaMemcpy(back.data(), d, M * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    check(c && memcmp(back.data(), want_bytes, 16) == 0 && back[M - 1] == 0xA7A7A7A7u, "a kernel reads what cudaMemset wrote into managed memory");

    /* Prefetches are hints: accepted on managed memory, the data stays right. */
    cudaMemLocation to_gpu = {cudaMemLocationTypeDevice, 0}, to_cpu = {cudaMemLocationTypeHost, 0};
    c = OK(cudaMemPrefetchAsync(x, N * sizeof(float), to_gpu, 0, 0)) && OK(cudaMemPrefetchAsync(y, N * sizeof(float), to_gpu, 0, 0));
    for (int i = 0; i < N; i++) want[i] = x[i] + y[i];
    add<<<numBlocks, blockSize>>>(N, x, y);
    c = c && OK(cudaDeviceSynchronize()) && OK(cudaMemPrefetchAsync(y, N * sizeof(float), to_cpu, 0, 0)) && OK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < N; i++) bad += y[i] != want[i];
    check(c && bad == 0, "cudaMemPrefetchAsync to the GPU and back, add reads and writes right");
    c = OK(cudaMemAdvise(x, N * sizeof(float), cudaMemAdviseSetReadMostly, to_gpu));
    check(c, "cudaMemAdvise(SetReadMostly) on managed memory");

    /* Pointer attributes. */
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    c = OK(cudaPointerGetAttributes(&a, y + 5));
    check(c && a.type == cudaMemoryTypeManaged && a.devicePointer == (void *)(y + 5) && a.hostPointer == (void *)(y + 5),
          "cudaPointerGetAttributes: managed, the same address on both sides");
    memset(&a, 0, sizeof a);
    c = OK(cudaPointerGetAttributes(&a, d));
    check(c && a.type == cudaMemoryTypeDevice, "cudaPointerGetAttributes of cudaMalloc memory: device");

    /* Free and allocate again. */
    c = OK(cudaFree(x)) && OK(cudaFree(y)) && OK(cudaFree(w));
    float *z = nullptr;
    c = c && OK(cudaMallocManaged(&z, N * sizeof(float))) && OK(cudaMallocManaged(&x, N * sizeof(float)));
    for (int i = 0; c && i < N; i++) {
        z[i] = (float)i;
        x[i] = 0.5f;
    }
    add<<<numBlocks, blockSize>>>(N, x, z);
    c = c && OK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; c && i < N; i++) bad += z[i] != (float)i + 0.5f;
    check(c && bad == 0, "cudaFree of managed memory, then cudaMallocManaged again");

    /* Many small allocations, reached through a managed array of pointers. */
    const int K = 500;
    int **arrays = nullptr, *lengths = nullptr;
    c = OK(cudaMallocManaged(&arrays, K * sizeof(int *))) && OK(cudaMallocManaged(&lengths, K * sizeof(int)));
    for (int k = 0; c && k < K; k++) {
        lengths[k] = 1 + k % 13;
        c = OK(cudaMallocManaged(&arrays[k], lengths[k] * sizeof(int)));
        for (int j = 0; c && j < lengths[k]; j++) arrays[k][j] = 1000 * k + j;
    }
    bump_all<<<4, 128>>>(K, arrays, lengths);
    c = c && OK(cudaDeviceSynchronize());
    bad = 0;
    for (int k = 0; c && k < K; k++)
        for (int j = 0; j < lengths[k]; j++) bad += arrays[k][j] != 1000 * k + j + k + 1;
    for (int k = 0; c && k < K; k++) c = OK(cudaFree(arrays[k]));
    check(c && bad == 0, "500 small managed allocations through a managed array of pointers");

    /* __managed__ variables: the host sees the initial value, its writes reach the kernel, the
     * kernel's atomics reach the host. */
    bool initial = weight == 2.5f && hits[0] == 0 && hits[3] == 0;
    for (int k = 0; k < 4; k++) hits[k] = 10 * (k + 1);
    weight = 3.0f;
    count_hits<<<4, 64>>>(1000);
    c = OK(cudaDeviceSynchronize());
    if (c && !(hits[0] == 760 && hits[1] == 770 && hits[2] == 780 && hits[3] == 790))
        printf("  hits = %d %d %d %d (want 760 770 780 790)\n", hits[0], hits[1], hits[2], hits[3]);
    check(initial && c && hits[0] == 10 + 250 * 3 && hits[1] == 20 + 750 && hits[2] == 30 + 750 && hits[3] == 40 + 750,
          "__managed__ variables: initial value, host writes, kernel atomics");

    /* Refusals the runtime passes on. */
    void *none = nullptr;
    check(cudaMallocManaged(&none, 64, 0x10) == cudaErrorInvalidValue, "cudaMallocManaged with bad flags: cudaErrorInvalidValue");
    cudaGetLastError();

    c = OK(cudaFree(arrays)) && OK(cudaFree(lengths)) && OK(cudaFree(z)) && OK(cudaFree(x)) && OK(cudaFree(m2)) && OK(cudaFree(d));
    check(c, "cudaFree of the rest");
    if (failed)
        printf("managed memory: %d of %d checks failed\n", failed, checks);
    else
        printf("managed memory: %d checks, all passed\n", checks);
    return failed != 0;
}
