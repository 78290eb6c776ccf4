/* A C program against NVIDIA's cuda.h, linked with -lcuda: runs tests/corpus's vecadd (PTX from
 * nvcc) through libcuda.so.1 = ptxcross, checks the sums against a CPU loop, and checks the
 * error paths a program relies on. Usage: driver_api VECADD.ptx */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(call)                                                                          \
    do {                                                                                     \
        CUresult r_ = (call);                                                                \
        if (r_ != CUDA_SUCCESS) {                                                            \
            const char *n_ = "?";                                                            \
            cuGetErrorName(r_, &n_);                                                         \
            fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, #call, n_, r_); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define EXPECT(call, code)                                                                   \
    do {                                                                                     \
        CUresult r_ = (call);                                                                \
        if (r_ != (code)) {                                                                  \
            fprintf(stderr, "%s:%d: %s returned %d, expected %s (%d)\n", __FILE__, __LINE__,  \
                    #call, r_, #code, code);                                                 \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n + 1);
    if (fread(buf, 1, n, f) != (size_t)n) { perror(path); exit(1); }
    buf[n] = 0;
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s vecadd.ptx\n", argv[0]); return 2; }
    char *ptx = read_file(argv[1]);

    EXPECT(cuMemAlloc(NULL, 4), CUDA_ERROR_NOT_INITIALIZED);
    CHECK(cuInit(0));
    int version = 0, count = 0, major = 0, minor = 0, warp = 0, threads = 0;
    CHECK(cuDriverGetVersion(&version));
    CHECK(cuDeviceGetCount(&count));
    if (version < 12000 || count != 1) { fprintf(stderr, "version %d, %d devices\n", version, count); failures++; }
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    EXPECT(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
    char name[256];
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    CHECK(cuDeviceComputeCapability(&major, &minor, dev));
    CHECK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
    CHECK(cuDeviceGetAttribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev));
    size_t total_mem = 0;
    CHECK(cuDeviceTotalMem(&total_mem, dev));
    printf("device: %s, compute capability %d.%d, warp %d, %d threads/block, %zu bytes\n", name, major,
           minor, warp, threads, total_mem);
    if (warp != 32 || threads < 64 || total_mem == 0) failures++;

    CUcontext ctx, cur;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    CHECK(cuCtxGetCurrent(&cur));
    if (cur != ctx) { fprintf(stderr, "cuCtxCreate did not make the context current\n"); failures++; }
    size_t free_mem = 0, total = 0;
    CHECK(cuMemGetInfo(&free_mem, &total));
    if (total == 0 || free_mem == 0 || free_mem > total) { fprintf(stderr, "cuMemGetInfo: %zu / %zu\n", free_mem, total); failures++; }

    /* Invalid PTX is refused at load; so is a cubin. */
    CUmodule bad;
    EXPECT(cuModuleLoadData(&bad, ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n"), CUDA_ERROR_INVALID_PTX);
    /* An ELF header that is no cubin (OS/ABI byte 0, not CUDA's 0x33): NVIDIA's driver
     * (580, H200) answers CUDA_ERROR_INVALID_IMAGE; a real cubin is CUDA_ERROR_NO_BINARY_FOR_GPU
     * here (ptxcross runs PTX only: driver/tests/fatbin.rs). */
    EXPECT(cuModuleLoadData(&bad, "\x7f" "ELF\2\1\1"), CUDA_ERROR_INVALID_IMAGE);

    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, ptx));
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, mod, "vecadd"));
    EXPECT(cuModuleGetFunction(&f, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    CHECK(cuModuleGetFunction(&f, mod, "vecadd"));
    EXPECT(cuModuleGetFunction(&f, (CUmodule)f, "vecadd"), CUDA_ERROR_INVALID_HANDLE);

    enum { N = 1000 };
    float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) { a[i] = (float)i * 0.5f; b[i] = 1000.0f - (float)i; }
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, sizeof a));
    CHECK(cuMemAlloc(&db, sizeof b));
    CHECK(cuMemAlloc(&dc, sizeof c));
    CHECK(cuMemcpyHtoD(da, a, sizeof a));
    CHECK(cuMemcpyHtoD(db, b, sizeof b));
    CHECK(cuMemsetD32(dc, 0xdeadbeef, N));
    int n = N;
    void *args[] = {&da, &db, &dc, &n};
    CUstream stream;
    CHECK(cuStreamCreate(&stream, 0));
    CUevent start, stop;
    CHECK(cuEventCreate(&start, 0));
    CHECK(cuEventCreate(&stop, 0));
    CHECK(cuEventRecord(start, stream));
    CHECK(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, stream, args, NULL));
    CHECK(cuEventRecord(stop, stream));
    CHECK(cuStreamSynchronize(stream));
    float ms = -1;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; i++)
        if (c[i] != a[i] + b[i]) { fprintf(stderr, "c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]); failures++; break; }

    /* The same launch through `extra` (the parameter buffer laid out by the C ABI). */
    struct { CUdeviceptr a, b, c; int n; } packed = {db, da, dc, N / 2};
    size_t packed_size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size, CU_LAUNCH_PARAM_END};
    CHECK(cuMemsetD8(dc, 0, sizeof c));
    CHECK(cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, NULL, extra));
    CHECK(cuMemcpyDtoH(c, dc, sizeof c));
    for (int i = 0; i < N; i++) {
        float want = i < N / 2 ? b[i] + a[i] : 0.0f;
        if (c[i] != want) { fprintf(stderr, "extra: c[%d] = %g, expected %g\n", i, c[i], want); failures++; break; }
    }
    CUdeviceptr base; size_t size;
    CHECK(cuMemGetAddressRange(&base, &size, dc + 40));
    if (base != dc || size != sizeof c) { fprintf(stderr, "cuMemGetAddressRange\n"); failures++; }
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 4096, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemFree(dc + 4), CUDA_ERROR_INVALID_VALUE);

    /* A kernel fault (a store through a pointer outside device memory) is reported by the next
     * synchronizing call as CUDA_ERROR_ILLEGAL_ADDRESS, and sticks to the context. */
    CUdeviceptr wild = 64;
    void *bad_args[] = {&da, &db, &wild, &n};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, bad_args, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuMemcpyDtoH(c, da, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(cuCtxDestroy(ctx));

    /* Unimplemented entry points exist and refuse. */
    EXPECT(cuGraphCreate(NULL, 0), CUDA_ERROR_NOT_SUPPORTED);
    const char *text = NULL;
    CHECK(cuGetErrorString(CUDA_ERROR_ILLEGAL_ADDRESS, &text));
    printf("vecadd ok (%.3f ms); %s\n", ms, text);
    if (failures) { fprintf(stderr, "%d check(s) failed\n", failures); return 1; }
    printf("all driver API checks passed\n");
    return 0;
}
