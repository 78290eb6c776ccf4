#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)((const unsigned short *)in_u64)[(gid * 3u + 9u) & 255u];
    int v2 = (int)((unsigned)(int)__usad(v1, in_u32[42], 2654435769u) * (unsigned)(1 & (int)((const signed char *)in_u64)[(gid * 1u + 14u) & 511u]));
    unsigned long long v3 = 13495668026660969916ull;
    long long v4 = ((long long)((const unsigned char *)in_u64)[(gid * 1u + 37u) & 511u] % (long long)(1000ll));
    float v5 = __fmul_rz(__fadd_rn(in_f32[(gid + 60u) & 63u], in_f32[46]), __fdiv_rn(in_f32[(gid + 22u) & 63u], 65504.0f));
    double v6 = fabs(__dadd_rn(__longlong_as_double((long long)0x7ff8000000000000ull), in_f64[13]));
    int v7 = (int)((unsigned)(int)__funnelshift_r(v1, v1, gid) * (unsigned)min(v2, 6));
    v5 = __fsqrt_rd((-(v5)));
    if (((unsigned)__urhadd(v1, v1) < (unsigned)__umulhi(gid, v1))) {
        v2 = (v7 >> (v7 & 31));
        v1 = (unsigned)__ffs((int)((unsigned)v7 + (unsigned)v7));
        unsigned long long v8 = (isnan(__double2float_rd(1.5)) ? (unsigned long long)__ffsll(v4) : (unsigned long long)__mul64hi((long long)p64, (long long)__umul64hi(in_u64[(gid + 15u) & 63u], v3)));
    } else {
        unsigned v9 = 2u;
        int v10 = (int)__mulhi((int)__popc((unsigned)((signed char)(unsigned long long)gid * p64)), min((1534517907 ^ v2), min((int)(-1), v7)));
        v9 = in_u32[(gid + 43u) & 63u];
    }
    long long v11 = (long long)__popcll(in_u64[(gid + 38u) & 63u]);
    if ((((unsigned long long)((v3 & ~(0x7fffffffffull << 7)) | ((v3 & 0x7fffffffffull) << 7)) & 11ull) != 0)) {
        v4 = (long long)((unsigned long long)(long long)((long long)min((int)__ffs(v7), (int)((const unsigned char *)in_u32)[(gid * 3u + 50u) & 255u]) * ((v6 > 1.8446744073709552e19) ? ((int)threadIdx.x % (int)(-10)) : (int)__clz(v7))) - (unsigned long long)cf_srem64((long long)__popcll((unsigned long long)__popcll(31ull)), (long long)(((unsigned long long)(38634u | gid) << 32) | (unsigned)(unsigned)cf_bits(__uint_as_float(0x80000001u)))));
    } else {
        if ((cf_udiv(7u, 255u) < (unsigned)__popc(v1))) {
            unsigned long long v12 = (unsigned long long)__brevll(252645135ull);
            long long v13 = v4;
            if (isnan(in_f32[25])) {
                v5 = __int2float_rd((int)((signed char)v13));
                v4 = (long long)((unsigned long long)(long long)__ffsll(v4) * (unsigned long long)(long long)((unsigned long long)2654435769u * 255u));
                v2 = ((32768 >> (21929 & 31)) ^ ((int)gid | in_s32[33]));
            }
        } else {
            v11 = (long long)(((unsigned long long)gid << 32) | (unsigned)__rhadd(v7, (int)__brev((v1 | 32768u))));
            int v14 = (int)__clz((int)(-1051425894));
            v6 = (double)(v1);
        }
        v5 = __fmul_ru(-3e-39f, v5);
    }
    unsigned i15 = (unsigned)__ffs(33) & 15u;
    while (i15 != 0) {
        if (!!(v7 >= in_s32[21])) {
            v3 = (unsigned long long)((long long)v2 * 1431655765);
        } else {
            v2 = (int)((unsigned)13 * (unsigned)((int)__umulhi((unsigned)(unsigned)cf_bits(9.2233720368547758e18f), 2u) & 156));
        }
        if ((v5 <= v5)) break;
        i15 = i15 >> 1;
    }
    if (isnan(__frcp_rz(v5))) {
        int v16 = (int)(unsigned)(((unsigned long long)(unsigned)((const signed char *)in_u32)[(gid * 5u + 2u) & 255u] * v1) >> 32);
        float c17 = v5;
        v11 = ((long long)((unsigned long long)max((long long)(((unsigned long long)(unsigned)((const unsigned char *)in_u64)[(gid * 1u + 3u) & 511u] << 32) | (unsigned)((const signed char *)in_s64)[(gid * 1u + 10u) & 511u]), (isnan(c17) ? (long long)0 : __float2ll_rd(c17))) - (unsigned long long)(long long)(((unsigned long long)max(in_u32[(gid + 23u) & 63u], 256u) << 32) | (v1 * v1))) ^ (long long)((unsigned long long)(unsigned)__funnelshift_l((gid & 2831145907u), (unsigned)(unsigned)cf_bits(__uint_as_float(0x4b7fffffu)), (v1 - 256u)) * ((unsigned)__brev(in_u32[(gid + 27u) & 63u]) + (unsigned)__umulhi(2071467386u, n))));
    }
    if (isnan(in_f64[(gid + 59u) & 63u])) {
        for (unsigned i18 = 0; i18 < (min(v1, v1) & 7u); ++i18) {
            v1 -= (n + 11678u);
            v11 = v4;
        }
    } else {
        unsigned v19 = (v1 - 2147483648u);
    }
    out[gid * 6u + 0u] = cf_bits(v6);
    out[gid * 6u + 1u] = cf_bits(v7);
    out[gid * 6u + 2u] = cf_bits(v11);
    out[gid * 6u + 3u] = cf_bits(v1);
    out[gid * 6u + 4u] = cf_bits(v3);
    out[gid * 6u + 5u] = cf_bits(v4);
}
