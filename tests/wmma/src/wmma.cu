// nvcuda::wmma kernels for tests/tests/wmma.rs, compiled by regen.sh (nvcc 13.5, sm_80).
// Each warp computes one tile of D = alpha * (A * B) + C; the test multiplies on the CPU.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// Tiled GEMM, f16 -> f32: A row-major M x K (lda = K), B row-major K x N (ldb = N),
// C and D row-major M x N (ldc = N). Warp w of the grid takes tile w (row-major over tiles).
__global__ void gemm_f16_f32(const half *a, const half *b, const float *c, float *d, int m, int n, int k) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_n = n / 16;
    int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm * 16 >= m) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + tm * 16 * n + tn * 16, n, wmma::mem_row_major);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * k + kk, k);
        wmma::load_matrix_sync(fb, b + kk * n + tn * 16, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tm * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}

// int8 -> int32, shape m32n8k16: A column-major M x K (lda = M), B column-major K x N
// (ldb = K), D column-major (ldd = M), starting from zero.
__global__ void gemm_s8_s32(const signed char *a, const signed char *b, int *d, int m, int n, int k) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tiles_m = m / 32;
    int tm = warp % tiles_m, tn = warp / tiles_m;
    if (tn * 8 >= n) return;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, a + kk * m + tm * 32, m);
        wmma::load_matrix_sync(fb, b + tn * 8 * k + kk, k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + tn * 8 * m + tm * 32, acc, m, wmma::mem_col_major);
}

// f16 accumulators, shape m8n32k16, through shared memory: the block's warps stage A
// (row-major 8 x K) and B (column-major K x 32 per tile) in shared memory; C and D are f16,
// row-major 8 x 32 tiles side by side (ldc = 32 * tiles). k <= 64, tiles <= 2.
__global__ void gemm_f16_f16_shared(const half *a, const half *b, const half *c, half *d, int k, int tiles) {
    __shared__ __align__(32) half sa[8 * 64];
    __shared__ __align__(32) half sb[64 * 32 * 2];
    for (int i = threadIdx.x; i < 8 * k; i += blockDim.x) sa[i] = a[i];
    for (int i = threadIdx.x; i < k * 32 * tiles; i += blockDim.x) sb[i] = b[i];
    __syncthreads();
    int t = threadIdx.x / 32;
    if (t >= tiles) return;
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, half> acc;
    wmma::load_matrix_sync(acc, c + t * 32, 32 * tiles, wmma::mem_row_major);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, sa + kk, k);
        wmma::load_matrix_sync(fb, sb + t * 32 * k + kk, k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d + t * 32, acc, 32 * tiles, wmma::mem_row_major);
}

// Element-wise fragment operations (fine whatever the layout, §9.7.15.3.1): A scaled by 2
// before the product, the accumulator by alpha after it; bf16 multiplicands, one 16x16 tile,
// A column-major, B row-major, D column-major.
__global__ void scaled_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *d, float alpha) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 1.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = __float2bfloat16(__bfloat162float(fa.x[i]) * 2.0f);
    wmma::mma_sync(acc, fa, fb, acc);
    for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= alpha;
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_col_major);
}

// u8 -> s32 with a u8 m8n32k16: A row-major, B row-major, C loaded column-major, D row-major.
__global__ void u8_m8n32(const unsigned char *a, const unsigned char *b, const int *c, int *d) {
    wmma::fragment<wmma::matrix_a, 8, 32, 16, unsigned char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, unsigned char, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, int> acc;
    wmma::load_matrix_sync(acc, c, 8, wmma::mem_col_major);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 32);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 32, wmma::mem_row_major);
}

// Every form: one warp computes D = A * B + C for one tile, each matrix a sub-matrix of a
// larger one (lda, ldb, ldc > the default strides), C and D in the layout `col` says
// (0: row-major, 1: column-major; nvcc emits both forms). Integer forms with `.satfinite`
// where SAT.
template <int M, int N, int K, typename T, typename Acc, typename LA, typename LB, int SAT>
__global__ void form(const T *a, const T *b, const Acc *c, Acc *d, int lda, int ldb, int ldc, int col) {
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> acc;
    wmma::layout_t l = col ? wmma::mem_col_major : wmma::mem_row_major;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(acc, c, ldc, l);
    if constexpr (SAT >= 0) {
        wmma::mma_sync(acc, fa, fb, acc, SAT == 1);
    } else {
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d, acc, ldc, l);
}
using R = wmma::row_major;
using C = wmma::col_major;
using bf16 = __nv_bfloat16;
using s8 = signed char;
using u8 = unsigned char;
#define FORM(M, N, T, ACC, LA, LB, SAT) \
    template __global__ void form<M, N, 16, T, ACC, LA, LB, SAT>(const T *, const T *, const ACC *, ACC *, int, int, int, int);
FORM(16, 16, half, float, R, C, -1)
FORM(32, 8, half, float, C, R, -1)
FORM(8, 32, half, float, C, C, -1)
FORM(16, 16, half, half, C, R, -1)
FORM(32, 8, half, half, R, R, -1)
FORM(16, 16, bf16, float, R, R, -1)
FORM(8, 32, bf16, float, C, R, -1)
FORM(32, 8, bf16, float, R, C, -1)
FORM(16, 16, s8, int, C, C, 1)
FORM(8, 32, s8, int, R, C, 0)
FORM(32, 8, u8, int, R, R, 1)
FORM(16, 16, u8, int, R, C, 0)

// Accumulators of two types in one product (`wmma.mma….f32.f16` and `….f16.f32`): D1 (f32) =
// A * B + C (f16), then D2 (f16) = A * B + D1; m16n16k16, everything row-major but B.
__global__ void mixed_accumulators(const half *a, const half *b, const half *c, float *d1, half *d2) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> c16, e16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> f32;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(c16, c, 16, wmma::mem_row_major);
    wmma::mma_sync(f32, fa, fb, c16);
    wmma::store_matrix_sync(d1, f32, 16, wmma::mem_row_major);
    wmma::mma_sync(e16, fa, fb, f32);
    wmma::store_matrix_sync(d2, e16, 16, wmma::mem_row_major);
}
