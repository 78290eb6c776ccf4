/* A C program linked with -lcuda (declaring the few driver entry points it calls, so it needs
 * no cuda.h): launches tests/printf's `flood` kernel (nvcc PTX; each thread printf's its
 * number) and checks by its own stdout that the text appears at cuCtxSynchronize, not before.
 * Usage: printf_client PRINTF.ptx */
#include <stdio.h>
#include <stdlib.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuModuleLoadData(CUmodule *mod, const void *image);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void **params, void **extra);
CUresult cuCtxSynchronize(void);

#define CHECK(call)                                                              \
    do {                                                                         \
        CUresult r_ = (call);                                                    \
        if (r_ != 0) {                                                           \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, r_); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s printf.ptx\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *ptx = malloc(n + 1);
    if (fread(ptx, 1, n, f) != (size_t)n) { perror(argv[1]); return 1; }
    ptx[n] = 0;
    fclose(f);

    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction flood;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate_v2(&ctx, 0, dev));
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&flood, mod, "_Z5floodi"));
    int per_thread = 1;
    void *params[] = {&per_thread};
    CHECK(cuLaunchKernel(flood, 2, 1, 1, 4, 1, 1, 0, NULL, params, NULL));
    printf("launched\n");
    fflush(stdout);
    CHECK(cuCtxSynchronize());
    printf("synchronized\n");
    fflush(stdout);
    CHECK(cuCtxSynchronize());
    CHECK(cuCtxDestroy_v2(ctx));
    return 0;
}
