#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = ((gid & (unsigned)((const short *)in_s32)[(gid * 3u + 15u) & 127u]) + (unsigned)((const short *)in_s32)[(gid * 1u + 30u) & 127u]);
    int v2 = (int)((const short *)in_s32)[(gid * 1u + 10u) & 127u];
    unsigned long long v3 = ((unsigned long long)__clzll(6847ll) + ((unsigned long long)((const unsigned char *)in_s64)[(gid * 5u + 16u) & 511u] + (unsigned long long)gid * p64));
    long long v4 = (long long)(0ull - (unsigned long long)(long long)((const unsigned char *)in_u32)[(gid * 3u + 14u) & 255u]);
    float v5 = (-((float)(v1)));
    double v6 = (double)(((long long)blockIdx.x - 1 ^ v4));
    float arr7[16];
    for (int j = 0; j < 16; ++j) arr7[j] = (float)in_f32[(gid * 5u + (unsigned)j) & 63u];
    unsigned char arr8[8];
    for (int j = 0; j < 8; ++j) arr8[j] = (unsigned char)in_u32[(gid * 3u + (unsigned)j) & 63u];
    v3 ^= 7ull;
    if ((fabs(0.30000000000000004) < __dsub_rd(__longlong_as_double((long long)0x3fefffffffffffffull), v6))) {
        v4 = (3ll >> (v1 & 63));
        v3 = (unsigned long long)__ffsll(v4);
        v3 = (v3 | (v3 | v3));
    } else {
        v1 = (unsigned)__byte_perm((unsigned)((const signed char *)in_u64)[(gid * 5u + 20u) & 511u], (unsigned)__byte_perm((unsigned)((short)v3), 3817073277u, 0x5aaeu), 0xc629u);
        unsigned long long v9 = (unsigned long long)__umul64hi((v3 | ((unsigned long long)((long long)15713 * in_s32[(gid + 0u) & 63u]) | (unsigned long long)__brevll(in_u64[(gid + 45u) & 63u]))), in_u64[(gid + 13u) & 63u]);
        long long a10 = 64ll;
        v9 = (unsigned long long)__ffsll(llabs(a10 == (long long)0x8000000000000000ull ? 0 : a10));
    }
    v3 = 5ull;
    v3 = (unsigned long long)__ffsll((long long)((const unsigned char *)in_u64)[(gid * 3u + 43u) & 511u]);
    if ((!(31ll != (long long)((const signed char *)in_s64)[(gid * 5u + 48u) & 511u]) && isnan(__uint_as_float(0x7f800000u)))) {
        long long v11 = (long long)((unsigned long long)(long long)((unsigned long long)v4 * (unsigned long long)(long long)((unsigned long long)v4 - (unsigned long long)9ll)) + (unsigned long long)v4);
        double c13 = __ull2double_rn(v3);
        int v12 = (int)__funnelshift_rc((isnan(c13) ? (unsigned)0 : __double2uint_rd(c13)), (unsigned)__funnelshift_rc((unsigned)__byte_perm((unsigned)__popc(v1), (unsigned)__funnelshift_lc(v1, in_u32[(gid + 44u) & 63u], v1), (unsigned)__clz(v2)), (unsigned)__byte_perm((unsigned)__brev(v1), (v1 + in_u32[(gid + 60u) & 63u]), (unsigned)((unsigned)in_u32[(gid + 7u) & 63u] << (255u & 31))), in_u32[61]), (((in_s64[56] != v11) || (((long long)blockIdx.x - 1 & 187ll) != 0)) ? (unsigned)__clz((int)((unsigned)in_s32[50] << (21 & 31))) : (unsigned)__rhadd((v2 / (int)(-10)), cf_sdiv(2, (int)((const short *)in_s32)[(gid * 3u + 11u) & 127u]))));
        v5 = v5;
    } else {
        unsigned v14 = ((unsigned)__popc((v1 - min(v1, v1))) & ((v4 <= 63ll) ? (unsigned)((unsigned long long)__popcll((unsigned long long)((const unsigned char *)in_s64)[(gid * 3u + 4u) & 511u])) : ((unsigned)__popc(v1) * (unsigned)__popc(v1))));
    }
    unsigned i15 = (unsigned)(0u - (unsigned)(unsigned)__mulhi(26662, (int)gid)) & 7u;
    do {
        unsigned long long v16 = (unsigned long long)__clzll((long long)((const unsigned short *)in_s32)[(gid * 3u + 50u) & 127u]);
        for (unsigned i17 = 0; i17 < (min((v1 + v1), 32768u) & 15u); ++i17) {
            switch (in_u32[(gid + 35u) & 63u] & 7u) {
            case 0:
            {
                float v18 = arr7[((unsigned)__brev((unsigned)(0u - (unsigned)in_u32[44])) & 15u)];
                v18 = __fadd_rn(fmaxf(__fadd_rn(__fadd_rn(__fadd_rn(v18, v18), __fadd_rn(fmaxf(__uint_as_float(0x80000001u), in_f32[(gid + 60u) & 63u]), 0.0f)), __uint_as_float((unsigned)__clz((int)((const unsigned short *)in_u64)[(gid * 1u + 52u) & 255u]))), __fadd_rn(fminf(__frcp_rn(__fmul_rn(1e-40f, v18)), __uint_as_float((unsigned)(unsigned)(((unsigned long long)2147483647u * v1) >> 32))), 0.0f)), 0.0f);
            }
                break;
            case 1:
            {
                long long v19 = (long long)((unsigned long long)v4 + (unsigned long long)(long long)((unsigned long long)v4 + (unsigned long long)6ll));
                v19 = (long long)(((unsigned long long)v1 << 32) | ((in_s32[(gid + 46u) & 63u] != v2) ? (i17 | i17) : (3811436749u - 64u)));
            }
                break;
            case 6:
            {
                float v20 = __fdiv_rn(__fmul_ru(__int2float_rn((int)threadIdx.x), v5), v5);
            }
            case 7:
            {
                v6 = fabs(in_f64[(gid + 20u) & 63u]);
            }
                break;
            }
            if (isnan(v5)) break;
            unsigned v21 = 65535u;
            long long a23 = (long long)((unsigned long long)8174950164862341957ll + (unsigned long long)v4);
            long long v22 = max((long long)blockIdx.x - 1, (long long)((unsigned long long)(long long)((unsigned long long)((in_f64[(gid + 46u) & 63u] < in_f64[(gid + 8u) & 63u]) ? v4 : 63ll) * (unsigned long long)(long long)__umul64hi(v3, p64)) + (unsigned long long)llabs(a23 == (long long)0x8000000000000000ull ? 0 : a23)));
        }
        v16 ^= max(v16, in_u64[41]);
        v2 = (int)(0u - (unsigned)in_s32[60]);
        v1 = cf_urem(((v1 - in_u32[(gid + 17u) & 63u]) >> (8 & 31)), 71u);
    } while (i15-- > 1u);
    out[gid * 6u + 0u] = cf_bits(v6);
    out[gid * 6u + 1u] = cf_bits(v2);
    out[gid * 6u + 2u] = cf_bits(v5);
    out[gid * 6u + 3u] = cf_bits(v4);
    out[gid * 6u + 4u] = cf_bits(v3);
    out[gid * 6u + 5u] = cf_bits(v1);
}
