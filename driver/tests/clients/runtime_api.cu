/* A CUDA runtime program as `nvcc app.cu` builds it (cudart linked statically, or shared):
 * cudaMalloc, cudaMemcpy, two <<<>>> launches (one on a stream), __constant__ and __device__
 * variables through cudaMemcpyToSymbol/FromSymbol, occupancy queries, cudaDeviceReset,
 * cudaDeviceSynchronize, results checked against CPU loops, then a kernel that stores far
 * outside any allocation, whose fault must come back as an error. Prints "runtime API: all checks passed" and the fault's error name. */
#include <cstdio>
#include <cstdint>
#include <cstring>

__constant__ float scale[2];
__device__ unsigned int counter;

__global__ void axpy(const float *x, const float *y, float *out, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] * scale[i & 1] + y[i];
}

__global__ void mix(const float *in, uint32_t *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = (__float_as_uint(in[i]) ^ (i * 2654435761u)) >> (i & 7);
        atomicAdd(&counter, 1u + (i & 1));
    }
}

__global__ void store_far(int *p) {
    // 1 TiB past the allocation: outside any device memory.
    p[(size_t)1 << 38] = 1;
}

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            printf("%s failed: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main() {
    const int n = 1000;
    static float x[n], y[n], out[n];
    static uint32_t mixed[n];
    for (int i = 0; i < n; i++) {
        x[i] = (float)i;
        y[i] = (float)(n - 3 * i);
    }
    float *dx, *dy, *dout;
    uint32_t *dmixed;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMalloc(&dmixed, n * sizeof(uint32_t)));
    CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice));
    const float scales[2] = {1.0f, -2.0f};
    const unsigned int start = 7;
    CHECK(cudaMemcpyToSymbol(scale, scales, sizeof scales));
    CHECK(cudaMemcpyToSymbol(counter, &start, sizeof start));
    axpy<<<(n + 127) / 128, 128>>>(dx, dy, dout, 2.5f, n);
    CHECK(cudaGetLastError());
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    mix<<<(n + 63) / 64, 64, 0, stream>>>(dout, dmixed, n);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(mixed, dmixed, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    unsigned int count = 0;
    CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof count));
    int bad = 0;
    unsigned int want_count = start;
    for (int i = 0; i < n; i++) {
        /* exact: small integers and halves */
        float want = 2.5f * (float)i * scales[i & 1] + (float)(n - 3 * i);
        want_count += 1 + (i & 1);
        uint32_t bits;
        memcpy(&bits, &want, 4);
        uint32_t want_mixed = (bits ^ ((uint32_t)i * 2654435761u)) >> (i & 7);
        if (out[i] != want || mixed[i] != want_mixed) {
            if (bad++ < 5) printf("element %d: %g %08x, want %g %08x\n", i, out[i], mixed[i], want, want_mixed);
        }
    }
    if (count != want_count) {
        printf("counter %u, want %u\n", count, want_count);
        bad++;
    }
    if (bad) {
        printf("%d wrong elements\n", bad);
        return 1;
    }
    /* Occupancy (cudart calls the driver's ...WithFlags): a 128-thread block of axpy fits. */
    int resident = 0, min_grid = 0, best_block = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, axpy, 128, 0));
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, axpy));
    if (resident < 1 || best_block < 32 || best_block % 32 != 0) {
        printf("occupancy: %d blocks of 128, best block %d\n", resident, best_block);
        return 1;
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    /* After cudaDeviceReset the runtime reuses its kernels in a fresh context, whose __device__
     * variables start from their initial values again. */
    CHECK(cudaDeviceReset());
    CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof count));
    CHECK(cudaMemcpyToSymbol(scale, scales, sizeof scales));
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice));
    axpy<<<(n + 127) / 128, 128>>>(dx, dy, dout, 2.5f, n);
    CHECK(cudaGetLastError());
    float again[n];
    CHECK(cudaMemcpy(again, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    if (count != 0 || memcmp(again, out, sizeof again) != 0) {
        printf("after cudaDeviceReset: counter %u (want 0), results %s\n", count, memcmp(again, out, sizeof again) ? "differ" : "same");
        return 1;
    }
    printf("runtime API: all checks passed\n");
    fflush(stdout);
    int *small;
    CHECK(cudaMalloc(&small, sizeof(int)));
    store_far<<<1, 1>>>(small);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t last = cudaGetLastError();
    printf("fault: launch %s, synchronize %s, last error %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
           cudaGetErrorName(last));
    /* The fault surfaces at the launch or at the synchronization, and as the last error. */
    return (sync != cudaSuccess || launch != cudaSuccess) && last != cudaSuccess ? 0 : 1;
}
