#include "cf.h"

extern "C" __global__ void k(const unsigned *__restrict__ in_u32, const int *__restrict__ in_s32, const unsigned long long *__restrict__ in_u64, const long long *__restrict__ in_s64, const float *__restrict__ in_f32, const double *__restrict__ in_f64, unsigned long long *__restrict__ out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)~2147483647u;
    int v2 = (int)__umulhi(v1, (3946005202u % (unsigned)(13)));
    unsigned long long v3 = (unsigned long long)((const signed char *)in_u32)[(gid * 5u + 40u) & 255u];
    long long v4 = (long long)((v3 & ~(0xffull << 56)) | (((unsigned long long)__popcll(in_u64[36]) & 0xffull) << 56));
    float v5 = __fsqrt_rn(((204u != 2u) ? in_f32[(gid + 25u) & 63u] : __uint_as_float(0x00000001u)));
    double v6 = __dsub_ru(__ddiv_rz(in_f64[(gid + 6u) & 63u], in_f64[(gid + 27u) & 63u]), (double)(-2147483904.0f));
    unsigned arr7[8];
    for (int j = 0; j < 8; ++j) arr7[j] = (unsigned)in_u32[(gid * 3u + (unsigned)j) & 63u];
    float arr8[8];
    for (int j = 0; j < 8; ++j) arr8[j] = (float)in_f32[(gid * 5u + (unsigned)j) & 63u];
    unsigned i9 = (unsigned)__rhadd(v2, ((int)((const short *)in_s32)[(gid * 3u + 43u) & 127u] & v2)) & 7u;
    do {
        v2 = (in_s32[(gid + 4u) & 63u] ^ 1221378736);
        if ((in_f32[(gid + 17u) & 63u] <= in_f32[(gid + 0u) & 63u])) break;
        v5 = ((max(n, v1) == (unsigned)(0u - (unsigned)in_u32[(gid + 12u) & 63u])) ? __fadd_rn(fminf(__uint_as_float(0x80000001u), ((in_f32[(gid + 32u) & 63u] <= __uint_as_float(0x4effffffu)) ? v5 : v5)), 0.0f) : __frcp_rz(__fmul_rn(__uint_as_float(0xcf000000u), in_f32[61])));
        v2 = (int)__usad(((in_u32[48] >> (10 & 31)) * (unsigned)(unsigned)cf_bits(v5)), (cf_urem((unsigned)((const signed char *)in_s32)[(gid * 5u + 49u) & 255u], n) | (unsigned)(0u - (unsigned)v1)), (unsigned)(unsigned)(((unsigned long long)(in_u32[9] | in_u32[(gid + 5u) & 63u]) * (unsigned)__popc(1u)) >> 32));
    } while (i9-- > 1u);
    for (unsigned i10 = 0; i10 < ((unsigned)(unsigned)(((unsigned long long)(unsigned)__clz(v2) * (unsigned)__clz(v2)) >> 32) & 15u); ++i10) {
        v6 = v6;
        v4 = (long long)((((unsigned long long)__ffsll((long long)blockIdx.x - 1) + (unsigned long long)gid * p64) & ~(0x3ffffffffffffull << 13)) | (((unsigned long long)__ffsll((long long)((unsigned long long)v4 + (unsigned long long)v4)) & 0x3ffffffffffffull) << 13));
        unsigned v11 = ((unsigned)__umulhi((unsigned)__hadd(v2, in_s32[(gid + 51u) & 63u]), (unsigned)(unsigned)(((unsigned long long)i10 * i10) >> 32)) + (unsigned)__byte_perm(in_u32[30], (v1 * v1), 0x23f3u));
    }
    v6 = (-(__dadd_rn(v6, v6)));
    unsigned i12 = (unsigned)__urhadd((v1 ^ v1), (6681u - v1)) & 15u;
    while (i12 != 0) {
        unsigned v13 = arr7[(v1 & 7u)];
        double v14 = ((in_s32[23] > in_s32[3]) ? v6 : in_f64[47]);
        if (!(256ll >= in_s64[(gid + 27u) & 63u])) break;
        i12 = i12 >> 1;
    }
    float v15 = arr8[(v1 & 7u)];
    unsigned long long v16 = 9ull;
    v3 = ((in_f64[(gid + 5u) & 63u] <= v6) ? in_u64[63] : v3);
    unsigned i17 = (unsigned)(unsigned)cf_bits(__fmul_rn(v5, v15)) & 7u;
    do {
        unsigned v18 = (64u | in_u32[(gid + 44u) & 63u]);
        if (((v5 < v5) && (v4 != in_s64[(gid + 55u) & 63u]))) break;
        v4 = (long long)__ffsll((long long)(((unsigned long long)n << 32) | v1));
        v16 = cf_urem64(((unsigned long long)gid * p64 % (unsigned long long)(5ll)), 252ull);
    } while (i17-- > 1u);
    v4 = (long long)((const signed char *)in_s32)[(gid * 3u + 36u) & 255u];
    v3 = v16;
    if (((0 | (int)threadIdx.x) == 0)) {
        float v19 = __fsqrt_rn(__uint_as_float(0x3f7fffffu));
        unsigned i20 = min((((int)threadIdx.x == in_s32[30]) ? v1 : 33u), (v1 ^ 31u)) & 15u;
        while (i20 != 0) {
            v6 = (-(((((long long)((unsigned long long)v4 * (unsigned long long)(long long)((const short *)in_u64)[(gid * 3u + 7u) & 255u]) & 4ll) != 0) ? __dadd_rn(fmin(__dmul_rn(0.49999997, v6), __ddiv_rn(v6, 16777217.0)), 0.0) : (double)(65535u))));
            v5 = __fdiv_rd(__double2float_ru(v6), __fadd_rn(fminf(v15, v19), 0.0f));
            v2 = (int)gid;
            if ((v1 != v1)) break;
            v5 = __uint_as_float(7u);
            i20 = i20 - 1u;
        }
    } else {
        for (unsigned i21 = 0; i21 < ((((long long)p64 == v4) ? (unsigned)__mulhi(v2, v2) : (unsigned)__umulhi(in_u32[39], 64u)) & 3u); ++i21) {
            double c23 = __longlong_as_double(v4);
            int v22 = (int)__usad(((isnan(c23) ? (unsigned)0 : __double2uint_rd(c23)) * (unsigned)__mulhi(v2, (int)__clz(149))), (i21 >> (26 & 31)), min((((v2 < (int)threadIdx.x) || (v15 < v15)) ? n : (unsigned)__ffs(7)), (unsigned)__usad(min(3u, 152u), in_u32[(gid + 33u) & 63u], (unsigned)__popc(i21))));
            if (((long long)p64 > 66ll)) continue;
            v6 = __ull2double_rd((v3 + (unsigned long long)gid * p64));
            v2 = (int)__popc(v1);
        }
    }
    out[gid * 6u + 0u] = cf_bits(v15);
    out[gid * 6u + 1u] = cf_bits(v4);
    out[gid * 6u + 2u] = cf_bits(v3);
    out[gid * 6u + 3u] = cf_bits(v1);
    out[gid * 6u + 4u] = cf_bits(v5);
    out[gid * 6u + 5u] = cf_bits(v6);
}
