// Half and bfloat16 arithmetic through cuda_fp16.h / cuda_bf16.h, and fp8 conversions.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

__global__ void hfma2_kernel(const __half2 *a, const __half2 *b, __half2 *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 x = a[i], y = b[i];
        __half2 r = __hfma2(x, y, c[i]);
        r = __hmul2_sat(r, __float2half2_rn(0.5f));
        r = __hmax2(r, __hneg2(x));
        c[i] = h2sqrt(__habs2(r));
    }
}

__global__ void half_convert(const float *in, __half *h, __nv_bfloat16 *bf, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = in[i];
    __half x = __float2half_rn(f);
    __half y = __float2half_rz(f * 3.0f);
    __nv_bfloat16 z = __float2bfloat16(f);
    __half s = __hadd(x, y);
    if (__hlt(s, __float2half(1.0f))) s = __hmul(s, hexp(x));
    h[i] = s;
#if __CUDA_ARCH__ >= 800
    bf[i] = __hfma(z, __float2bfloat16(2.0f), __float2bfloat16(-1.0f));
#else
    bf[i] = __float2bfloat16(__bfloat162float(z) * 2.0f - 1.0f);
#endif
    out[i] = __half2float(s) + __bfloat162float(bf[i]) + __half2float(hrcp(y));
    int k = __half2int_rn(x);
    unsigned short u = __half_as_ushort(y);
    out[i] += (float)k + (float)u;
}

__global__ void bf16x2_dot(const __nv_bfloat162 *a, const __nv_bfloat162 *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat162 p = __hmul2(a[i], b[i]);
        float2 f = __bfloat1622float2(p);
        out[i] = f.x + f.y;
    }
}

__global__ void fp8_roundtrip(const float2 *in, float2 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_fp8x2_e4m3 a(in[i]);
        __nv_fp8x2_e5m2 b(in[i]);
        float2 x = (float2)a;
        float2 y = (float2)b;
        out[i] = make_float2(x.x + y.x, x.y - y.y);
    }
}
