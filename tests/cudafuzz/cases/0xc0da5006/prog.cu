#include "cf.h"

extern "C" __global__ void k(const unsigned *__restrict__ in_u32, const int *__restrict__ in_s32, const unsigned long long *__restrict__ in_u64, const long long *__restrict__ in_s64, const float *__restrict__ in_f32, const double *__restrict__ in_f64, unsigned long long *__restrict__ out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (!((long long)(-5986595600603642177ll) > 32768ll) ? in_u32[(gid + 0u) & 63u] : (unsigned)__ffs(in_s32[(gid + 46u) & 63u]));
    int v2 = (int)((const unsigned char *)in_u32)[(gid * 3u + 0u) & 255u];
    unsigned long long v3 = ((unsigned long long)((const signed char *)in_u64)[(gid * 3u + 11u) & 511u] / (unsigned long long)(3ll));
    long long v4 = (long long)((unsigned long long)(v1 * (unsigned)((const unsigned short *)in_u32)[(gid * 5u + 47u) & 127u]) * (unsigned)~gid);
    float v5 = __fmaf_ru(in_f32[26], __fmul_ru(in_f32[(gid + 46u) & 63u], in_f32[41]), in_f32[61]);
    double v6 = __dadd_rn(fmax(__fma_rn(in_f64[3], in_f64[(gid + 35u) & 63u], 3.0), ((in_s64[21] != v4) ? in_f64[(gid + 63u) & 63u] : __longlong_as_double((long long)0x43efffffffffffffull))), 0.0);
    v2 = (int)((unsigned char)(long long)(-7210057400934136925ll));
    float v7 = (float)((long long)((long long)31 * (int)((const unsigned char *)in_u64)[(gid * 3u + 58u) & 511u]));
    switch (((unsigned)__clz(v2) / (unsigned)(65537)) & 7u) {
    case 2:
    {
        v4 = (long long)(((unsigned long long)v1 << 32) | (in_u32[(gid + 44u) & 63u] >> (209u & 31)));
        v5 = in_f32[11];
    }
        break;
    }
    switch ((unsigned)(unsigned)(((unsigned long long)(unsigned)__ffs(33) * (unsigned)__urhadd(in_u32[54], 2u)) >> 32) & 7u) {
    case 0:
    {
        v1 = (unsigned)(unsigned)(((unsigned long long)(unsigned)(((in_u32[(gid + 21u) & 63u] >> (v2 & 31)) >> 7) & 0x1ffffffu) * v1) >> 32);
    }
        break;
    case 4:
    {
        if (((50530ll >= v4) && (3152ll <= v4))) {
            v6 = __dadd_ru(v6, __dsub_rz(__dadd_rn(__ddiv_rn(v6, in_f64[(gid + 18u) & 63u]), __longlong_as_double(8ll)), (-(__dmul_rn(__longlong_as_double((long long)0x3fefffffffffffffull), v6)))));
            unsigned v8 = ((unsigned)__clz(0) - ((in_u32[3] & max(v1, v1)) / (unsigned)(65537)));
        }
    }
        break;
    case 5:
    {
        for (unsigned i9 = 0; i9 < ((cf_udiv(v1, 11u) + 64u) & 3u); ++i9) {
            switch ((unsigned)__mulhi(cf_sdiv(v2, in_s32[(gid + 2u) & 63u]), (v2 ^ in_s32[23])) & 7u) {
            case 2:
            {
                v1 = (((unsigned long long)((const signed char *)in_s64)[(gid * 3u + 3u) & 511u] != 64ull) ? min((unsigned)((const short *)in_s32)[(gid * 3u + 11u) & 127u], i9) : (unsigned)((signed char)v4));
            }
                break;
            default:
            {
                v2 = (int)((unsigned)(int)((unsigned)9191 + (unsigned)in_s32[(gid + 41u) & 63u]) + (unsigned)(int)((unsigned)(int)threadIdx.x << (30 & 31)));
            }
            }
        }
        for (unsigned i10 = 0; i10 < (((131 > v2) ? (unsigned)(unsigned)cf_bits(v7) : (in_u32[(gid + 1u) & 63u] + in_u32[25])) & 15u); ++i10) {
            if (!(1.7976931348623157e308 > -4.9e-324)) {
                unsigned long long v11 = (unsigned long long)__clzll((long long)__mul64hi((long long)__umul64hi(9223372036854775807ull, in_u64[(gid + 9u) & 63u]), (long long)((unsigned long long)v4 * (unsigned long long)3ll)));
                v3 = (unsigned long long)__mul64hi((long long)((long long)(int)gid * 33), (long long)((unsigned long long)v4 << (v2 & 63)));
            }
            v5 = ((64ll != in_s64[(gid + 35u) & 63u]) ? __uint_as_float(0xff800000u) : 2147483648.0f);
            unsigned v12 = in_u32[8];
            if ((v12 > i10)) break;
        }
    }
        break;
    default:
    {
        unsigned i13 = 63u & 15u;
        while (i13 != 0) {
            v7 = __fmul_rn((-(__fadd_rn(fmaxf(__uint_as_float(256u), ((in_f64[(gid + 8u) & 63u] < v6) ? v5 : v5)), 0.0f))), __frcp_rn(((v2 >= v2) ? __fadd_ru(in_f32[14], v7) : __fadd_rn(fmaxf(v7, v5), 0.0f))));
            if (((int)__sad(in_s32[(gid + 22u) & 63u], v2, in_u32[(gid + 38u) & 63u]) < (int)(unsigned)(((unsigned long long)32u * v1) >> 32))) return;
            i13 = i13 - 1u;
        }
    }
    }
    double v14 = (!(__fsub_rn(v7, v7) == 1.8446744073709552e19f) ? (-((double)(__fdiv_rn(v7, v7)))) : (-(__dadd_rn(fmax((((long long)blockIdx.x - 1 < in_s64[42]) ? -2.75 : 0.30000000000000004), 1.0), 0.0))));
    out[gid * 6u + 0u] = cf_bits(v14);
    out[gid * 6u + 1u] = cf_bits(v2);
    out[gid * 6u + 2u] = cf_bits(v1);
    out[gid * 6u + 3u] = cf_bits(v4);
    out[gid * 6u + 4u] = cf_bits(v3);
    out[gid * 6u + 5u] = cf_bits(v5);
}
