/* texture_probe: texture and surface objects' bits on whatever libcuda.so.1 is on the library
 * path (NVIDIA's, or ptxcross's `target/release/libcuda.so.1`).
 *
 *   gcc -O2 -std=gnu11 -I<dir of cuda.h> texture_probe.c -o texture_probe -ldl   (build.sh)
 *   ./texture_probe texture.nvcc.ptx out.bin
 *   python3 compare.py nvidia.bin other.bin      (differences, grouped by config)
 *
 * It loads tests/texture/ptx/texture.nvcc.ptx (argv[1]) plus a small embedded PTX module
 * (`tex.2d.v4.f32.s32`, `txq`, `sust.b.2d.v4.b8.clamp`), creates arrays / pitched / linear resources with texture and
 * surface objects for a matrix of formats, address modes, filters and coordinate kinds, runs
 * each case's coordinates and writes every result's raw bits to argv[2].
 *
 * Output format (little-endian, all u32):
 *   header: "TXPROBE1" (8 bytes), version (1), record count, config count
 *   config table: config count × { id, 60-byte NUL-padded name }              (64 bytes)
 *   records: record count × { config, kernel, index, status, in[4], out[4] } (48 bytes)
 * `status` is a CUresult: a failed call fills its config's records with the call's result and
 * zero outputs (and the call is printed); the probe never stops on an error. After a launch
 * error (a sticky fault) the context is recreated and the next config runs.
 * `in` holds the coordinates' bits as given (floats or ints); `out` the four result words
 * (surface reads: out[0] = .zero read, out[1] = .clamp read as 4 packed bytes; surface
 * write read-back: out[0] = the texel's 4 bytes).
 * `kernel` numbers the kernels of `kernel_names` below. The file is about 3.7 MB; the run
 * takes 16 s on lavapipe through ptxcross.
 * The set of configs and coordinates is deterministic (no clock, no rand()), so two runs on
 * two drivers compare record by record.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define API(name) static __typeof__(&name) p_##name;
#define API_LIST                                                                                  \
    X(cuInit) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxReset_v2) X(cuCtxSetCurrent) X(cuModuleLoadData)             \
    X(cuModuleUnload) X(cuModuleGetFunction) X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemcpyHtoD_v2)  \
    X(cuMemcpyDtoH_v2) X(cuMemAllocPitch_v2) X(cuMemcpy2D_v2) X(cuMemcpy3D_v2) X(cuMemsetD8_v2)    \
    X(cuArrayCreate_v2) X(cuArray3DCreate_v2) X(cuArrayDestroy) X(cuMemcpyHtoA_v2)                \
    X(cuMemcpyAtoH_v2) X(cuTexObjectCreate) X(cuTexObjectDestroy) X(cuSurfObjectCreate)           \
    X(cuSurfObjectDestroy) X(cuLaunchKernel) X(cuCtxSynchronize) X(cuGetErrorName)
#define X(n) API(n)
API_LIST
#undef X

/* ---------------------------------------------------------------------------------------- */

enum kernel {
    K_FETCH1D = 1, K_FETCH1D_INT, K_SAMPLE1D, K_SAMPLE2D, K_SAMPLE2D_UINT, K_SAMPLE2D_LOD,
    K_SAMPLE3D, K_SURF_READ, K_SURF_WRITE, K_TEX2D_S32, K_TXQ, K_SURF_WRITE_CLAMP, K_COUNT
};
static const char *kernel_names[K_COUNT] = {
    "", "fetch1d", "fetch1d_int", "sample1d", "sample2d", "sample2d_uint", "sample2d_lod",
    "sample3d", "surface_read", "surface_write", "tex2d_s32", "txq", "surface_write_clamp",
};

/* Extra kernels (hand-written PTX): tex.2d with .s32 coordinates, txq, sust.clamp. */
static const char *extra_ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry tex2d_s32(.param .u64 t, .param .u64 c, .param .u64 o, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .f32 %f<5>; .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [c]; ld.param.u64 %rd3, [o]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.s32 %p1, %r5, %r1; @%p1 bra DONE;\n"
    "  mul.wide.s32 %rd4, %r5, 8; add.s64 %rd5, %rd2, %rd4; ld.global.v2.u32 {%r6, %r7}, [%rd5];\n"
    "  tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r6, %r7}];\n"
    "  mul.wide.s32 %rd6, %r5, 16; add.s64 %rd7, %rd3, %rd6; st.global.v4.f32 [%rd7], {%f1, %f2, %f3, %f4};\n"
    "DONE:\n  ret;\n}\n"
    ".visible .entry txq(.param .u64 t, .param .u64 c, .param .u64 o, .param .u32 n)\n{\n"
    "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [t]; ld.param.u64 %rd3, [o];\n"
    "  txq.width.b32 %r1, [%rd1]; txq.height.b32 %r2, [%rd1]; txq.depth.b32 %r3, [%rd1];\n"
    "  st.global.v2.u32 [%rd3], {%r1, %r2}; st.global.u32 [%rd3+8], %r3;\n"
    "  ret;\n}\n"
    ".visible .entry surface_write_clamp(.param .u64 s, .param .u64 c, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b16 %rs<9>; .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [s]; ld.param.u64 %rd2, [c]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.s32 %p1, %r5, %r1; @%p1 bra DONE;\n"
    "  mul.wide.s32 %rd3, %r5, 8; add.s64 %rd4, %rd2, %rd3; ld.global.v2.u32 {%r6, %r7}, [%rd4];\n"
    "  cvt.u16.u32 %rs1, %r5; add.s16 %rs2, %rs1, 1; add.s16 %rs3, %rs1, 2; add.s16 %rs4, %rs1, 3;\n"
    "  and.b16 %rs5, %rs1, 255; and.b16 %rs6, %rs2, 255; and.b16 %rs7, %rs3, 255; and.b16 %rs8, %rs4, 255;\n"
    "  sust.b.2d.v4.b8.clamp [%rd1, {%r6, %r7}], {%rs5, %rs6, %rs7, %rs8};\n"
    "DONE:\n  ret;\n}\n";

/* ---------------------------------------------------------------------------------------- */

typedef struct {
    uint32_t config, kernel, index, status, in[4], out[4];
} record;
typedef struct {
    uint32_t id;
    char name[60];
} config_name;

static record *records;
static size_t n_records, cap_records;
static config_name *configs;
static size_t n_configs, cap_configs;
static uint32_t config_id;
static size_t failures;

static CUcontext ctx;
static CUmodule mod_main, mod_extra;
static CUfunction fns[K_COUNT];

static void push(record r) {
    if (n_records == cap_records) {
        cap_records = cap_records ? 2 * cap_records : 4096;
        records = realloc(records, cap_records * sizeof(record));
        if (!records) { fprintf(stderr, "out of memory\n"); exit(2); }
    }
    records[n_records++] = r;
}

static void new_config(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void new_config(const char *fmt, ...) {
    if (n_configs == cap_configs) {
        cap_configs = cap_configs ? 2 * cap_configs : 256;
        configs = realloc(configs, cap_configs * sizeof(config_name));
        if (!configs) { fprintf(stderr, "out of memory\n"); exit(2); }
    }
    config_name c;
    memset(&c, 0, sizeof c);
    c.id = (uint32_t)n_configs;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c.name, sizeof c.name, fmt, ap);
    va_end(ap);
    configs[n_configs++] = c;
    config_id = c.id;
}

static const char *err_name(CUresult r) {
    const char *s = NULL;
    if (p_cuGetErrorName && p_cuGetErrorName(r, &s) == CUDA_SUCCESS && s) return s;
    return "?";
}

/* Checks a call; on failure prints it (with the config) and returns the result. */
#define TRY(call)                                                                                 \
    do {                                                                                          \
        CUresult r_ = (call);                                                                     \
        if (r_ != CUDA_SUCCESS) {                                                                 \
            fprintf(stderr, "config %u (%s): %s failed: %d %s\n", config_id,                       \
                    configs[config_id].name, #call, (int)r_, err_name(r_));                       \
            failures++;                                                                           \
            return r_;                                                                            \
        }                                                                                         \
    } while (0)

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* (Re)creates the (primary) context and loads both modules. */
static const char *main_ptx;
static CUresult setup_context(void) {
    CUdevice dev;
    memset(fns, 0, sizeof fns);
    TRY(p_cuDeviceGet(&dev, 0));
    if (ctx) { p_cuDevicePrimaryCtxReset_v2(dev); ctx = NULL; }
    TRY(p_cuDevicePrimaryCtxRetain(&ctx, dev));
    TRY(p_cuCtxSetCurrent(ctx));
    TRY(p_cuModuleLoadData(&mod_main, main_ptx));
    for (int k = K_FETCH1D; k <= K_SURF_WRITE; k++)
        TRY(p_cuModuleGetFunction(&fns[k], mod_main, kernel_names[k]));
    TRY(p_cuModuleLoadData(&mod_extra, extra_ptx));
    TRY(p_cuModuleGetFunction(&fns[K_TEX2D_S32], mod_extra, "tex2d_s32"));
    TRY(p_cuModuleGetFunction(&fns[K_TXQ], mod_extra, "txq"));
    TRY(p_cuModuleGetFunction(&fns[K_SURF_WRITE_CLAMP], mod_extra, "surface_write_clamp"));
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------------------------------- */
/* Coordinates. `coord` is up to 3 values (float bits or ints). */

typedef struct { uint32_t v[4]; } coord;
static coord *coords;
static size_t n_coords, cap_coords;
static void add_coord(uint32_t a, uint32_t b, uint32_t c) {
    if (n_coords == cap_coords) {
        cap_coords = cap_coords ? 2 * cap_coords : 1024;
        coords = realloc(coords, cap_coords * sizeof(coord));
        if (!coords) { fprintf(stderr, "out of memory\n"); exit(2); }
    }
    coord k = {{a, b, c, 0}};
    coords[n_coords++] = k;
}
static void addf(float x, float y, float z) { add_coord(fbits(x), fbits(y), fbits(z)); }

/* Special single coordinates (unnormalized, texel units for an extent n). */
static int specials(float n, float *out) {
    float s[] = {0.5f, 1.5f, n - 0.5f, 0.0f, -0.0f, 1.0f, 2.0f, n - 1.0f, n, n + 0.5f, n + 1.0f,
                 -0.5f, -1.0f, -1.5f, -0.25f, -n, -n - 0.5f, -n + 0.5f, 2 * n, 2 * n + 0.25f,
                 2 * n - 0.25f, 3 * n + 0.75f, -2 * n - 0.75f, 0.5f - 1.0f / 256, 0.5f + 1.0f / 256,
                 0.5f + 1.0f / 512, 0.5f + 3.0f / 512, 0.5f + 1.0f / 1024, 1.0f / 4096,
                 8388608.5f /* 2^23 + .5 */, 16777216.0f, 2147483648.0f, 4294967296.0f, 1e30f,
                 -1e30f, 3.0e38f, INFINITY, -INFINITY, NAN, -NAN, 1e-40f /* subnormal */,
                 1.00000012f /* 1 + 2^-23 */, 0.99999994f /* 1 - 2^-24 */};
    int k = sizeof s / sizeof s[0];
    memcpy(out, s, sizeof s);
    return k;
}

/* A fixed pseudo-random sequence (xorshift), so runs are reproducible. */
static uint32_t rng_state = 0x12345678u;
static uint32_t rnd(void) {
    uint32_t x = rng_state;
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    return rng_state = x;
}

/* ---------------------------------------------------------------------------------------- */
/* Texel data: format, channels, content chosen so rounding choices show. */

typedef struct {
    CUarray_format fmt;
    int channels;
    int bytes; /* per channel */
    const char *name;
} format;

static const format F_F32x4 = {CU_AD_FORMAT_FLOAT, 4, 4, "f32x4"};
static const format F_F32x1 = {CU_AD_FORMAT_FLOAT, 1, 4, "f32x1"};
static const format F_U8x4 = {CU_AD_FORMAT_UNSIGNED_INT8, 4, 1, "u8x4"};
static const format F_U8x2 = {CU_AD_FORMAT_UNSIGNED_INT8, 2, 1, "u8x2"};
static const format F_S8x4 = {CU_AD_FORMAT_SIGNED_INT8, 4, 1, "s8x4"};
static const format F_U16x4 = {CU_AD_FORMAT_UNSIGNED_INT16, 4, 2, "u16x4"};
static const format F_S16x4 = {CU_AD_FORMAT_SIGNED_INT16, 4, 2, "s16x4"};
static const format F_F16x4 = {CU_AD_FORMAT_HALF, 4, 2, "f16x4"};
static const format F_U32x4 = {CU_AD_FORMAT_UNSIGNED_INT32, 4, 4, "u32x4"};

static const float f32_values[] = {0.1f, -0.3f, 3.0e20f, 1e-30f, 1.17549435e-38f, 1e-40f,
                                   -2.5f, 1000.125f, 0.333333343f, 65504.0f, 7.0f, -1.0f,
                                   0.7f, 0.99999994f, 1.00000012f, -123456.789f};

/* Fills `n` texels of format f; texel i's channels: c0 alternates 0/max (α visible), c1
 * pseudo-random, c2 alternates 1.0/1+2^-23 (float) or two adjacent values, c3 mixed. */
static void fill_texels(const format *f, size_t n, uint8_t *buf) {
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < f->channels; c++) {
            uint8_t *p = buf + (i * f->channels + c) * f->bytes;
            uint32_t r = rnd();
            switch (f->fmt) {
            case CU_AD_FORMAT_FLOAT: {
                float v;
                if (c == 0) v = (i & 1) ? 1.0f : 0.0f;
                else if (c == 1) v = (float)(r % 2000000) / 1000.0f - 1000.0f + 0.1f;
                else if (c == 2) v = (i & 1) ? 1.00000012f : 1.0f;
                else v = f32_values[(i * 7 + 3) % 16];
                if (f->channels == 1) v = f32_values[i % 16];
                memcpy(p, &v, 4);
                break;
            }
            case CU_AD_FORMAT_HALF: {
                uint16_t h;
                if (c == 0) h = (i & 1) ? 0x3c00 : 0x0000;
                else if (c == 2) h = (i & 1) ? 0x3c01 : 0x3c00;
                else { h = r & 0xffff; if ((h & 0x7c00) == 0x7c00) h &= 0xbfff; }
                memcpy(p, &h, 2);
                break;
            }
            case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: {
                uint8_t b;
                if (c == 0) b = (i & 1) ? 0xff : 0x00;
                else if (c == 2) b = (i & 1) ? 0x80 : 0x7f;
                else b = r & 0xff;
                *p = b;
                break;
            }
            case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: {
                uint16_t h;
                if (c == 0) h = (i & 1) ? 0xffff : 0x0000;
                else if (c == 2) h = (i & 1) ? 0x8000 : 0x7fff;
                else h = r & 0xffff;
                memcpy(p, &h, 2);
                break;
            }
            default: {
                uint32_t w = c == 0 ? ((i & 1) ? 0xffffffffu : 0) : r;
                memcpy(p, &w, 4);
            }
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------- */

typedef struct {
    int kernel;
    int dims;        /* 1, 2, 3 */
    int resource;    /* 0 array, 2 linear, 3 pitch2d */
    format fmt;
    size_t w, h, d;
    int address;     /* CUaddress_mode, all dimensions */
    int filter;      /* 0 point, 1 linear */
    int normalized;
    int integer;     /* read as integer */
} tcase;

static void fail_records(int kernel, CUresult st) {
    for (size_t i = 0; i < n_coords; i++) {
        record r;
        memset(&r, 0, sizeof r);
        r.config = config_id; r.kernel = (uint32_t)kernel; r.index = (uint32_t)i; r.status = st;
        memcpy(r.in, coords[i].v, 16);
        push(r);
    }
}

/* Launches kernel k over the coordinate buffer (element size `esz` taken from each coord's
 * first words) and returns the `osz`-byte results per coordinate in `out`. */
static CUresult launch(int k, CUdeviceptr handle, size_t esz, size_t osz, uint8_t *out) {
    size_t n = n_coords;
    uint8_t *host = calloc(n ? n : 1, esz);
    for (size_t i = 0; i < n; i++) memcpy(host + i * esz, coords[i].v, esz);
    CUdeviceptr dc = 0, dout = 0;
    CUresult r = CUDA_SUCCESS;
#define STEP(call) do { if (r == CUDA_SUCCESS) { r = (call); if (r != CUDA_SUCCESS) { \
    fprintf(stderr, "config %u (%s): %s failed: %d %s\n", config_id, configs[config_id].name, #call, (int)r, err_name(r)); failures++; } } } while (0)
    STEP(p_cuMemAlloc_v2(&dc, n * esz + 16));
    STEP(p_cuMemcpyHtoD_v2(dc, host, n * esz));
    STEP(p_cuMemAlloc_v2(&dout, n * osz + 16));
    STEP(p_cuMemsetD8_v2(dout, 0xcd, n * osz + 16));
    int n32 = (int)n;
    void *args3[] = {&handle, &dc, &n32};
    void *args4[] = {&handle, &dc, &dout, &n32};
    unsigned grid = (unsigned)((n + 127) / 128);
    if (r == CUDA_SUCCESS && !fns[k]) { r = CUDA_ERROR_NOT_FOUND; failures++; }
    STEP(p_cuLaunchKernel(fns[k], grid ? grid : 1, 1, 1, 128, 1, 1, 0, NULL,
                          k == K_SURF_WRITE || k == K_SURF_WRITE_CLAMP ? args3 : args4, NULL));
    STEP(p_cuCtxSynchronize());
    if (k != K_SURF_WRITE && k != K_SURF_WRITE_CLAMP) STEP(p_cuMemcpyDtoH_v2(out, dout, n * osz));
#undef STEP
    CUresult launch_result = r;
    if (dc) p_cuMemFree_v2(dc);
    if (dout) p_cuMemFree_v2(dout);
    free(host);
    return launch_result;
}

static size_t coord_size(int k) {
    switch (k) {
    case K_FETCH1D: case K_FETCH1D_INT: case K_SAMPLE1D: return 4;
    case K_SAMPLE3D: return 16;
    default: return 8;
    }
}

/* After a launch failure the context may hold a sticky error: start a fresh one. */
static void recover(CUresult r) {
    if (r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED ||
        r == CUDA_ERROR_HARDWARE_STACK_ERROR || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
        r == CUDA_ERROR_MISALIGNED_ADDRESS || r == CUDA_ERROR_INVALID_ADDRESS_SPACE ||
        r == CUDA_ERROR_INVALID_PC || r == CUDA_ERROR_LAUNCH_TIMEOUT ||
        r == CUDA_ERROR_UNKNOWN || r == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
        r == CUDA_ERROR_ASSERT) {
        fprintf(stderr, "config %u: recreating the context after %s\n", config_id, err_name(r));
        CUresult s = setup_context();
        if (s != CUDA_SUCCESS) fprintf(stderr, "context recreation failed: %d\n", (int)s);
    }
}

static const float border[4] = {0.3f, -1.75f, 1e20f, 0.1f};

/* Creates the resource of case t, a texture object over it, runs the coordinates. */
static CUresult run_texture_case(const tcase *t) {
    const format *f = &t->fmt;
    size_t w = t->w, h = t->dims >= 2 ? t->h : 1, d = t->dims == 3 ? t->d : 1;
    size_t elem = (size_t)f->channels * f->bytes;
    size_t n_texels = w * h * d;
    uint8_t *texels = malloc(n_texels * elem);
    rng_state = 0x9e3779b9u ^ (uint32_t)(f->fmt * 131 + f->channels * 7 + t->dims);
    fill_texels(f, n_texels, texels);

    CUarray arr = NULL;
    CUdeviceptr mem = 0;
    CUtexObject tex = 0;
    CUresult r = CUDA_SUCCESS;
    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
#define STEP(call) do { if (r == CUDA_SUCCESS) { r = (call); if (r != CUDA_SUCCESS) { \
    fprintf(stderr, "config %u (%s): %s failed: %d %s\n", config_id, configs[config_id].name, #call, (int)r, err_name(r)); failures++; } } } while (0)
    if (t->resource == 0) {
        CUDA_ARRAY3D_DESCRIPTOR ad;
        memset(&ad, 0, sizeof ad);
        ad.Width = w; ad.Height = t->dims >= 2 ? h : 0; ad.Depth = t->dims == 3 ? d : 0;
        ad.Format = f->fmt; ad.NumChannels = (unsigned)f->channels;
        STEP(p_cuArray3DCreate_v2(&arr, &ad));
        CUDA_MEMCPY3D c;
        memset(&c, 0, sizeof c);
        c.srcMemoryType = CU_MEMORYTYPE_HOST; c.srcHost = texels; c.srcPitch = w * elem; c.srcHeight = h;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY; c.dstArray = arr;
        c.WidthInBytes = w * elem; c.Height = h; c.Depth = d;
        STEP(p_cuMemcpy3D_v2(&c));
        res.resType = CU_RESOURCE_TYPE_ARRAY;
        res.res.array.hArray = arr;
    } else if (t->resource == 3) {
        size_t pitch = 0;
        STEP(p_cuMemAllocPitch_v2(&mem, &pitch, w * elem, h, 16));
        CUDA_MEMCPY2D c;
        memset(&c, 0, sizeof c);
        c.srcMemoryType = CU_MEMORYTYPE_HOST; c.srcHost = texels; c.srcPitch = w * elem;
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE; c.dstDevice = mem; c.dstPitch = pitch;
        c.WidthInBytes = w * elem; c.Height = h;
        STEP(p_cuMemcpy2D_v2(&c));
        res.resType = CU_RESOURCE_TYPE_PITCH2D;
        res.res.pitch2D.devPtr = mem; res.res.pitch2D.format = f->fmt;
        res.res.pitch2D.numChannels = (unsigned)f->channels;
        res.res.pitch2D.width = w; res.res.pitch2D.height = h; res.res.pitch2D.pitchInBytes = pitch;
    } else {
        STEP(p_cuMemAlloc_v2(&mem, n_texels * elem));
        STEP(p_cuMemcpyHtoD_v2(mem, texels, n_texels * elem));
        res.resType = CU_RESOURCE_TYPE_LINEAR;
        res.res.linear.devPtr = mem; res.res.linear.format = f->fmt;
        res.res.linear.numChannels = (unsigned)f->channels; res.res.linear.sizeInBytes = n_texels * elem;
    }
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    for (int i = 0; i < 3; i++) td.addressMode[i] = (CUaddress_mode)t->address;
    td.filterMode = t->filter ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
    td.flags = (t->normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0) | (t->integer ? CU_TRSF_READ_AS_INTEGER : 0);
    memcpy(td.borderColor, border, sizeof border);
    STEP(p_cuTexObjectCreate(&tex, &res, &td, NULL));
#undef STEP
    uint8_t *out = calloc(n_coords ? n_coords : 1, 16);
    if (r == CUDA_SUCCESS) {
        r = launch(t->kernel, tex, coord_size(t->kernel), 16, out);
    }
    if (r == CUDA_SUCCESS) {
        for (size_t i = 0; i < n_coords; i++) {
            record rec;
            memset(&rec, 0, sizeof rec);
            rec.config = config_id; rec.kernel = (uint32_t)t->kernel; rec.index = (uint32_t)i;
            memcpy(rec.in, coords[i].v, 16);
            memcpy(rec.out, out + 16 * i, 16);
            push(rec);
        }
    } else {
        fail_records(t->kernel, r);
    }
    free(out);
    if (tex) p_cuTexObjectDestroy(tex);
    if (arr) p_cuArrayDestroy(arr);
    if (mem) p_cuMemFree_v2(mem);
    free(texels);
    recover(r);
    return r;
}

static const char *mode_names[] = {"wrap", "clamp", "mirror", "border"};

/* Coordinate sets. `n` per dimension (unnormalized extents); normalized divides by it
 * (extents are powers of two, so the division is exact). */
static void coords_1d(float n, int normalized, int dense) {
    n_coords = 0;
    float s[64];
    int k = specials(n, s);
    float scale = normalized ? 1.0f / n : 1.0f;
    for (int i = 0; i < k; i++) addf(s[i] * scale, 0, 0);
    if (dense) {
        /* 1/1024 steps across the first two texels: α's rounding. */
        for (int i = 0; i <= 2 * 1024; i++) addf((float)i / 1024.0f * scale, 0, 0);
    } else {
        for (int i = -4 * (int)n; i <= 8 * (int)n + 4; i++) addf((float)i / 4.0f * scale, 0, 0);
        for (int i = 0; i < 64; i++) addf(((float)(rnd() % 65536) / 4096.0f - 4.0f) * scale, 0, 0);
    }
}

static void coords_2d(float w, float h, int normalized) {
    n_coords = 0;
    float xs[] = {-1.3f, -0.5f, 0.0f, 0.25f, 0.5f, 1.0f, 1.5f, 2.3f, w - 0.5f, w, w + 0.5f, w + 1.7f,
                  2 * w + 0.25f, NAN, INFINITY, -INFINITY, 0.5f + 1.0f / 512};
    float ys[] = {-1.3f, -0.5f, 0.0f, 0.25f, 0.5f, 1.0f, 1.5f, h - 0.5f, h, h + 0.5f, h + 1.7f, NAN,
                  -INFINITY, 0.5f + 3.0f / 512};
    float sx = normalized ? 1.0f / w : 1.0f, sy = normalized ? 1.0f / h : 1.0f;
    for (size_t i = 0; i < sizeof xs / 4; i++)
        for (size_t j = 0; j < sizeof ys / 4; j++) addf(xs[i] * sx, ys[j] * sy, 0);
    for (int i = 0; i < 96; i++) {
        float x = (float)(rnd() % 8192) / 512.0f - 4.0f, y = (float)(rnd() % 4096) / 512.0f - 2.0f;
        addf(x * sx, y * sy, 0);
    }
}

static void coords_3d(float w, float h, float d, int normalized) {
    n_coords = 0;
    float sx = normalized ? 1.0f / w : 1.0f, sy = normalized ? 1.0f / h : 1.0f, sz = normalized ? 1.0f / d : 1.0f;
    float pts[][3] = {{0.5f, 0.5f, 0.5f}, {1.5f, 2.5f, 1.5f}, {1.0f, 1.0f, 1.0f}, {-0.5f, 0.5f, 0.5f},
                      {w, h, d}, {w + 0.5f, -1.0f, d + 0.25f}, {NAN, 0.5f, 0.5f}, {0.5f, 0.5f, NAN},
                      {0.5f, 0.5f, INFINITY}, {1.25f, 1.75f, 0.75f}};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) addf(pts[i][0] * sx, pts[i][1] * sy, pts[i][2] * sz);
    for (int i = 0; i < 150; i++) {
        float x = (float)(rnd() % 4096) / 256.0f - 4.0f, y = (float)(rnd() % 4096) / 256.0f - 4.0f,
              z = (float)(rnd() % 2048) / 256.0f - 2.0f;
        addf(x * sx, y * sy, z * sz);
    }
}

static void texture_cases(void) {
    /* 1D array, width 8: every format, mode, filter, coordinate kind. */
    const format *fmts[] = {&F_F32x4, &F_F32x1, &F_U8x4, &F_U8x2, &F_S8x4, &F_U16x4, &F_S16x4, &F_F16x4};
    for (size_t fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++)
        for (int mode = 0; mode < 4; mode++)
            for (int filter = 0; filter < 2; filter++)
                for (int norm = 0; norm < 2; norm++) {
                    tcase t = {K_SAMPLE1D, 1, 0, *fmts[fi], 8, 1, 1, mode, filter, norm, 0};
                    new_config("1d %s %s %s %s", fmts[fi]->name, mode_names[mode],
                               filter ? "linear" : "point", norm ? "norm" : "unnorm");
                    rng_state = 1000 + (uint32_t)n_configs;
                    coords_1d(8.0f, norm, 0);
                    run_texture_case(&t);
                }
    /* Dense 1/1024 sweeps: α's rounding and the blend, per format. */
    const format *dense[] = {&F_F32x4, &F_U8x4, &F_U16x4, &F_F16x4, &F_S8x4};
    for (size_t fi = 0; fi < sizeof dense / sizeof dense[0]; fi++)
        for (int norm = 0; norm < 2; norm++) {
            if (norm && fi > 1) continue;
            tcase t = {K_SAMPLE1D, 1, 0, *dense[fi], 8, 1, 1, CU_TR_ADDRESS_MODE_CLAMP, 1, norm, 0};
            new_config("1d dense %s clamp linear %s", dense[fi]->name, norm ? "norm" : "unnorm");
            coords_1d(8.0f, norm, 1);
            run_texture_case(&t);
        }
    /* Integer reads (point only: linear filtering of integers is invalid). */
    const format *ints[] = {&F_U8x4, &F_S8x4, &F_U16x4, &F_U32x4};
    for (size_t fi = 0; fi < sizeof ints / sizeof ints[0]; fi++)
        for (int mode = 0; mode < 4; mode++)
            for (int norm = 0; norm < 2; norm++) {
                tcase t = {K_SAMPLE2D_UINT, 2, 0, *ints[fi], 8, 4, 1, mode, 0, norm, 1};
                new_config("2d int %s %s point %s", ints[fi]->name, mode_names[mode], norm ? "norm" : "unnorm");
                rng_state = 2000 + (uint32_t)n_configs;
                coords_2d(8.0f, 4.0f, norm);
                run_texture_case(&t);
            }
    /* 2D arrays: f32, u8 normalized, f16. */
    const format *f2[] = {&F_F32x4, &F_U8x4, &F_F16x4};
    for (size_t fi = 0; fi < 3; fi++)
        for (int mode = 0; mode < 4; mode++)
            for (int filter = 0; filter < 2; filter++)
                for (int norm = 0; norm < 2; norm++) {
                    tcase t = {K_SAMPLE2D, 2, 0, *f2[fi], 8, 4, 1, mode, filter, norm, 0};
                    new_config("2d %s %s %s %s", f2[fi]->name, mode_names[mode], filter ? "linear" : "point",
                               norm ? "norm" : "unnorm");
                    rng_state = 3000 + (uint32_t)n_configs;
                    coords_2d(8.0f, 4.0f, norm);
                    run_texture_case(&t);
                }
    /* Pitched 2D (non power of two width, normalized coordinates multiply by 5). */
    for (int mode = 0; mode < 4; mode++)
        for (int filter = 0; filter < 2; filter++) {
            tcase t = {K_SAMPLE2D, 2, 3, F_F32x4, 5, 3, 1, mode, filter, 1, 0};
            new_config("pitch2d f32x4 5x3 %s %s norm", mode_names[mode], filter ? "linear" : "point");
            rng_state = 4000 + (uint32_t)n_configs;
            coords_2d(5.0f, 3.0f, 1);
            run_texture_case(&t);
        }
    /* tex2DLod on a plain array (level 0 is the only level). */
    {
        tcase t = {K_SAMPLE2D_LOD, 2, 0, F_F32x4, 8, 4, 1, CU_TR_ADDRESS_MODE_CLAMP, 1, 0, 0};
        new_config("2d lod2.5 f32x4 clamp linear unnorm");
        coords_2d(8.0f, 4.0f, 0);
        run_texture_case(&t);
    }
    /* tex.2d with .s32 coordinates. */
    for (int mode = 0; mode < 4; mode++)
        for (int filter = 0; filter < 2; filter++) {
            tcase t = {K_TEX2D_S32, 2, 0, F_F32x4, 8, 4, 1, mode, filter, 0, 0};
            new_config("2d s32 coords f32x4 %s %s", mode_names[mode], filter ? "linear" : "point");
            n_coords = 0;
            int v[] = {0, 1, 3, 7, 8, 9, -1, -2, -8, 15, 16, 17, 100, -100, 2147483647, (int)0x80000000u};
            for (size_t i = 0; i < 16; i++)
                for (size_t j = 0; j < 16; j += 3) add_coord((uint32_t)v[i], (uint32_t)v[j], 0);
            run_texture_case(&t);
        }
    /* 3D arrays 4×4×2. */
    const format *f3[] = {&F_F32x4, &F_U8x4};
    for (size_t fi = 0; fi < 2; fi++)
        for (int mode = 0; mode < 4; mode++)
            for (int filter = 0; filter < 2; filter++)
                for (int norm = 0; norm < 2; norm++) {
                    if (fi == 1 && norm == 0 && mode != 1) continue;
                    tcase t = {K_SAMPLE3D, 3, 0, *f3[fi], 4, 4, 2, mode, filter, norm, 0};
                    new_config("3d %s %s %s %s", f3[fi]->name, mode_names[mode], filter ? "linear" : "point",
                               norm ? "norm" : "unnorm");
                    rng_state = 5000 + (uint32_t)n_configs;
                    coords_3d(4.0f, 4.0f, 2.0f, norm);
                    run_texture_case(&t);
                }
    /* Linear memory, tex1Dfetch: in range, out of range, extremes. */
    const format *fl[] = {&F_F32x4, &F_U8x4, &F_F16x4, &F_U16x4};
    for (size_t fi = 0; fi < 4; fi++)
        for (int filter = 0; filter < 2; filter++) {
            tcase t = {K_FETCH1D, 1, 2, *fl[fi], 16, 1, 1, CU_TR_ADDRESS_MODE_CLAMP, filter, 0, 0};
            new_config("linear fetch %s %s", fl[fi]->name, filter ? "linear" : "point");
            n_coords = 0;
            int v[] = {0, 1, 7, 15, 16, 17, 31, 32, 1000, -1, -2, -16, 2147483647, (int)0x80000000u};
            for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) add_coord((uint32_t)v[i], 0, 0);
            run_texture_case(&t);
        }
    for (size_t fi = 0; fi < 2; fi++) {
        const format *f = fi ? &F_S8x4 : &F_U8x4;
        tcase t = {K_FETCH1D_INT, 1, 2, *f, 16, 1, 1, CU_TR_ADDRESS_MODE_BORDER, 0, 0, 1};
        new_config("linear fetch int %s", f->name);
        n_coords = 0;
        int v[] = {0, 1, 7, 15, 16, 17, -1, 2147483647, (int)0x80000000u};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) add_coord((uint32_t)v[i], 0, 0);
        run_texture_case(&t);
    }
    /* txq: width/height/depth of 1D, 2D, 3D arrays, pitched and linear. */
    struct { int dims, res; size_t w, h, d; } q[] = {{1, 0, 7, 1, 1}, {2, 0, 5, 3, 1}, {3, 0, 4, 3, 2},
                                                      {2, 3, 5, 3, 1}, {1, 2, 100, 1, 1}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        tcase t = {K_TXQ, q[i].dims, q[i].res, F_F32x4, q[i].w, q[i].h, q[i].d, 1, 0, 0, 0};
        new_config("txq %dd res%d %zux%zux%zu", q[i].dims, q[i].res, q[i].w, q[i].h, q[i].d);
        n_coords = 0;
        add_coord(0, 0, 0);
        run_texture_case(&t);
    }
}

/* Surfaces: an 8×4 u8x4 array made for surface loads/stores. x is a byte offset. */
static CUresult surface_case(int write, int misaligned) {
    CUarray arr = NULL;
    CUsurfObject s = 0;
    CUresult r = CUDA_SUCCESS;
    uint8_t texels[8 * 4 * 4];
    for (int i = 0; i < 128; i++) texels[i] = (uint8_t)(i * 37 + 11);
    int kernel = write == 2 ? K_SURF_WRITE_CLAMP : write ? K_SURF_WRITE : K_SURF_READ;
    n_coords = 0;
    int ys[] = {0, 1, 3, 4, -1, 100};
    if (misaligned && !write) {
        int xs[] = {1, 2, 3, 5, 6, 7, 29, 30, 31};
        for (size_t i = 0; i < 9; i++)
            for (size_t j = 0; j < 3; j++) add_coord((uint32_t)xs[i], (uint32_t)ys[j], 0);
    } else if (misaligned) {
        /* Writes whose 4 bytes never overlap and whose aligned texels differ, so no two
         * threads race for a byte whichever rule applies. */
        int xs[] = {1, 6, 11, 18, 23, 29};
        for (size_t i = 0; i < 6; i++)
            for (size_t j = 0; j < 3; j++) add_coord((uint32_t)xs[i], (uint32_t)ys[j], 0);
    } else if (write == 2) {
        /* Clamped writes whose clamped texels all differ (x clamped to 0 or 28, y to 0 or 3),
         * so no two threads race for a texel. */
        int xy[][2] = {{-4, 0}, {36, 1}, {8, -1}, {12, 5}, {-100, 2}, {2147483644, 3}, {16, -1000},
                       {20, 4}, {4, 1}, {24, 2}};
        for (size_t i = 0; i < 10; i++) add_coord((uint32_t)xy[i][0], (uint32_t)xy[i][1], 0);
    } else {
        int xs[] = {0, 4, 8, 28, 32, 36, 64, -4, -8, -32, 2147483644, (int)0x80000000u};
        for (size_t i = 0; i < 12; i++)
            for (size_t j = 0; j < 6; j++) {
                if (write && !(xs[i] >= 0 && xs[i] < 32 && ys[j] >= 0 && ys[j] < 4) && (i + j) % 2) continue;
                add_coord((uint32_t)xs[i], (uint32_t)ys[j], 0);
            }
    }
#define STEP(call) do { if (r == CUDA_SUCCESS) { r = (call); if (r != CUDA_SUCCESS) { \
    fprintf(stderr, "config %u (%s): %s failed: %d %s\n", config_id, configs[config_id].name, #call, (int)r, err_name(r)); failures++; } } } while (0)
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = 8; ad.Height = 4; ad.Format = CU_AD_FORMAT_UNSIGNED_INT8; ad.NumChannels = 4;
    ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    STEP(p_cuArray3DCreate_v2(&arr, &ad));
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST; c.srcHost = texels; c.srcPitch = 32; c.srcHeight = 4;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY; c.dstArray = arr;
    c.WidthInBytes = 32; c.Height = 4; c.Depth = 1;
    STEP(p_cuMemcpy3D_v2(&c));
    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = arr;
    STEP(p_cuSurfObjectCreate(&s, &res));
    uint8_t *out = calloc(n_coords ? n_coords : 1, 8);
    if (r == CUDA_SUCCESS) r = launch(kernel, s, 8, 8, out);
    uint8_t back[128];
    memset(back, 0, sizeof back);
    if (r == CUDA_SUCCESS && write) {
        memset(&c, 0, sizeof c);
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY; c.srcArray = arr;
        c.dstMemoryType = CU_MEMORYTYPE_HOST; c.dstHost = back; c.dstPitch = 32; c.dstHeight = 4;
        c.WidthInBytes = 32; c.Height = 4; c.Depth = 1;
        STEP(p_cuMemcpy3D_v2(&c));
    }
#undef STEP
    if (r != CUDA_SUCCESS) {
        fail_records(kernel, r);
    } else if (write) {
        for (uint32_t i = 0; i < 32; i++) {
            record rec;
            memset(&rec, 0, sizeof rec);
            rec.config = config_id; rec.kernel = (uint32_t)kernel; rec.index = i;
            rec.in[0] = i % 8 * 4; rec.in[1] = i / 8;
            memcpy(rec.out, back + 4 * i, 4);
            push(rec);
        }
    } else {
        for (size_t i = 0; i < n_coords; i++) {
            record rec;
            memset(&rec, 0, sizeof rec);
            rec.config = config_id; rec.kernel = K_SURF_READ; rec.index = (uint32_t)i;
            memcpy(rec.in, coords[i].v, 16);
            memcpy(rec.out, out + 8 * i, 8);
            push(rec);
        }
    }
    free(out);
    if (s) p_cuSurfObjectDestroy(s);
    if (arr) p_cuArrayDestroy(arr);
    recover(r);
    return r;
}

/* ---------------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s texture.nvcc.ptx out.bin\n", argv[0]);
        return 2;
    }
    FILE *pf = fopen(argv[1], "rb");
    if (!pf) { perror(argv[1]); return 2; }
    fseek(pf, 0, SEEK_END);
    long len = ftell(pf);
    fseek(pf, 0, SEEK_SET);
    char *ptx = calloc((size_t)len + 1, 1);
    if (fread(ptx, 1, (size_t)len, pf) != (size_t)len) { perror("read ptx"); return 2; }
    fclose(pf);
    /* nvcc 13.5 writes `.version 9.5`; driver 580 (CUDA 13.0) JITs PTX ISA 9.0 at most and
     * refuses the module (CUDA_ERROR_UNSUPPORTED_PTX_VERSION), 8.0 is too old for what nvcc
     * emitted (CUDA_ERROR_INVALID_PTX). Every run uses `.version 9.0`, so both drivers see
     * the same text. */
    char *ver = strstr(ptx, ".version ");
    if (ver) {
        char *eol = strchr(ver, '\n');
        size_t tail = eol ? strlen(eol) : 0;
        char *patched = calloc((size_t)(ver - ptx) + 16 + tail + 1, 1);
        memcpy(patched, ptx, (size_t)(ver - ptx));
        strcat(patched, ".version 9.0");
        if (eol) strcat(patched, eol);
        free(ptx);
        ptx = patched;
    }
    main_ptx = ptx;

    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) h = dlopen("libcuda.so", RTLD_NOW);
    if (!h) { fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror()); return 2; }
#define X(n)                                                                                      \
    p_##n = (__typeof__(&n))dlsym(h, #n);                                                         \
    if (!p_##n) { fprintf(stderr, "missing %s\n", #n); return 2; }
    API_LIST
#undef X

    new_config("setup");
    CUresult r0 = p_cuInit(0);
    if (r0 != CUDA_SUCCESS) { fprintf(stderr, "cuInit: %d\n", (int)r0); return 2; }
    if (setup_context() != CUDA_SUCCESS) fprintf(stderr, "setup failed; continuing, cases will record errors\n");

    texture_cases();
    for (int write = 0; write < 3; write++) {
        new_config("surface u8x4 8x4 %s", write == 2 ? "write clamp" : write ? "write zero" : "read zero+clamp");
        surface_case(write, 0);
    }
    /* Misaligned byte x: NVIDIA faults (CUDA_ERROR_MISALIGNED_ADDRESS on the read, which no
     * context reset clears), so these come last. */
    for (int write = 0; write < 2; write++) {
        new_config("surface u8x4 8x4 misaligned %s", write ? "write zero" : "read zero+clamp");
        surface_case(write, 1);
    }

    FILE *o = fopen(argv[2], "wb");
    if (!o) { perror(argv[2]); return 2; }
    uint32_t hdr[3] = {1, (uint32_t)n_records, (uint32_t)n_configs};
    fwrite("TXPROBE1", 1, 8, o);
    fwrite(hdr, 4, 3, o);
    fwrite(configs, sizeof(config_name), n_configs, o);
    fwrite(records, sizeof(record), n_records, o);
    if (fclose(o) != 0) { perror(argv[2]); return 2; }
    size_t bad = 0;
    for (size_t i = 0; i < n_records; i++) bad += records[i].status != 0;
    printf("texture_probe: %zu configs, %zu records (%zu with an error status), %zu failed calls -> %s\n",
           n_configs, n_records, bad, failures, argv[2]);
    return 0;
}
