// FP8 quantization as CUDA's own headers write it (cuda_fp8.h's inline PTX): pairs of floats
// to e4m3x2 and e5m2x2 with saturation, back to half2, a tf32 conversion, and packed half
// comparisons (__hlt2 / __hble2). Checked by tests/tests/half_sweep.rs (`nvcc_fp8_kernel`).
#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <stdint.h>

extern "C" __global__ void fp8_roundtrip(const float2 *in, uint16_t *q4, uint16_t *q5, __half2 *back4,
                                         __half2 *back5, uint32_t *tf, uint32_t *cmp, const int *np) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= *np) return;
    float2 v = in[i];
    // x goes to the low byte, y to the high one.
    __nv_fp8x2_storage_t a = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
    __nv_fp8x2_storage_t b = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E5M2);
    q4[i] = a;
    q5[i] = b;
    __half2_raw h4 = __nv_cvt_fp8x2_to_halfraw2(a, __NV_E4M3);
    __half2_raw h5 = __nv_cvt_fp8x2_to_halfraw2(b, __NV_E5M2);
    back4[i] = __half2(h4);
    back5[i] = __half2(h5);
    uint32_t t;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(v.x));
    tf[i] = t;
    __half2 x = __half2(h4), y = __half2(h5);
    __half2 lt = __hlt2(x, y);   // 1.0 in each lane where x < y
    bool both = __hble2(x, y);   // x <= y in both lanes
    cmp[i] = (*(uint32_t *)&lt) ^ (both ? 0x80000000u : 0);
}
