// Tensor cores: the <mma.h> WMMA API, and inline-asm mma.sync / ldmatrix / cp.async (sm_80),
// wgmma / mbarrier / setmaxnreg (sm_90a only).
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
using namespace nvcuda;

__global__ void wmma_gemm_16x16x16(const half *a, const half *b, const float *c, float *d,
                                   int lda, int ldb, int ldc) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c, ldc, wmma::mem_row_major);
    for (int k = 0; k < lda; k += 16) {
        wmma::load_matrix_sync(fa, a + k, lda);
        wmma::load_matrix_sync(fb, b + k, ldb);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int t = 0; t < acc.num_elements; t++) acc.x[t] *= 0.5f;
    wmma::store_matrix_sync(d, acc, ldc, wmma::mem_row_major);
}

__global__ void wmma_int8(const signed char *a, const signed char *b, int *d) {
#if __CUDA_ARCH__ >= 720
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_col_major);
#endif
}

// One m16n8k16 bf16 MMA with operands loaded from shared memory by ldmatrix.
__global__ void mma_bf16_ldmatrix(const unsigned *ga, const unsigned *gb, float *out) {
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(16) unsigned sa[16 * 8];
    __shared__ __align__(16) unsigned sb[8 * 8];
    int t = threadIdx.x;
    // cp.async: global -> shared without registers
    __pipeline_memcpy_async(&sa[t * 4], &ga[t * 4], 16);
    if (t < 16) __pipeline_memcpy_async(&sb[t * 4], &gb[t * 4], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    unsigned a0, a1, a2, a3, b0, b1;
    unsigned sa_addr = (unsigned)__cvta_generic_to_shared(&sa[(t % 16) * 8]);
    unsigned sb_addr = (unsigned)__cvta_generic_to_shared(&sb[(t % 8) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(sa_addr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b0), "=r"(b1) : "r"(sb_addr));
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    int r0, r1;
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "=r"(r0), "=r"(r1) : "r"(a0), "r"(b0));
    out[t * 4 + 0] = d0 + (float)r0;
    out[t * 4 + 1] = d1 + (float)r1;
    out[t * 4 + 2] = d2;
    out[t * 4 + 3] = d3;
#endif
}

// Hopper: mbarrier, fences, wgmma (descriptors built by hand), setmaxnreg.
__global__ void hopper_wgmma(const unsigned long long *descs, float *out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ __align__(8) unsigned long long bar;
    unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar_addr), "r"(128));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(bar_addr));
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(bar_addr), "l"(state));
    }
    float d[4] = {0, 0, 0, 0};
    unsigned long long da = descs[0], db = descs[1];
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
        "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n\t}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "l"(da), "l"(db), "r"(1));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    out[threadIdx.x] = d[0] + d[1] + d[2] + d[3];
#endif
}
