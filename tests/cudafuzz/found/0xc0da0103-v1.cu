#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = ((unsigned)(unsigned)cf_bits(2147483648.0f) + (unsigned)__byte_perm(in_u32[(gid + 59u) & 63u], in_u32[(gid + 61u) & 63u], n));
    int v2 = (int)__sad((in_s32[(gid + 14u) & 63u] / (int)(-5)), (int)__sad(in_s32[23], in_s32[(gid + 53u) & 63u], in_u32[13]), min(gid, 2654435769u));
    unsigned long long v3 = 9223372036854775807ull;
    long long v4 = ((long long)((unsigned long long)in_s64[(gid + 15u) & 63u] + (unsigned long long)in_s64[18]) & (long long)((unsigned long long)in_s64[(gid + 0u) & 63u] + (unsigned long long)in_s64[(gid + 12u) & 63u]));
    float v5 = (float)(v2);
    double v6 = __ddiv_rn(__dmul_rn(1.0, in_f64[(gid + 6u) & 63u]), __ddiv_rn(-4.9e-324, in_f64[(gid + 35u) & 63u]));
    int arr7[8];
    for (int j = 0; j < 8; ++j) arr7[j] = in_s32[(gid * 1u + (unsigned)j) & 63u];
    double arr8[4];
    for (int j = 0; j < 4; ++j) arr8[j] = in_f64[(gid * 5u + (unsigned)j) & 63u];
    float v9 = __fmul_rn(__fadd_rn(fminf(in_f32[9], in_f32[(gid + 63u) & 63u]), 0.0f), __uint2float_rd(in_u32[(gid + 5u) & 63u]));
    for (unsigned i10 = 0; i10 < (44739u & 3u); ++i10) {
        long long v11 = ((long long)((long long)(int)__clz(in_s32[58]) * (int)((unsigned)v2 + (unsigned)in_s32[39])) & ((long long)((short)(long long)p64) & (long long)((unsigned long long)(long long)(-656199918661707680ll) * (unsigned long long)in_s64[(gid + 44u) & 63u])));
        v4 = (long long)((long long)(int)(unsigned)cf_bits(in_f32[(gid + 35u) & 63u]) * (int)__popc(v1));
        double v12 = __dmul_rd(__dmul_rn(v6, (-__ull2double_rd((unsigned long long)gid * p64))), (double)(__fadd_rd((float)(v6), __frcp_rn(-1e-3f))));
        if ((v3 > v3)) continue;
    }
    v1 -= (unsigned)__hadd(in_s32[12], v2);
    unsigned long long v13 = 0ull;
    unsigned i14 = cf_urem((unsigned)__popc(v1), ((v1 == v1) ? v1 : 50u)) & 15u;
    while (i14 != 0) {
        v6 = __dmul_ru(__ddiv_rn(__longlong_as_double((long long)0x43efffffffffffffull), v6), v6);
        if ((v1 >= v1)) break;
        int v15 = in_s32[33];
        i14 = i14 >> 1;
    }
    unsigned long long v16 = v13;
    unsigned v17 = ((v1 >> (5 & 31)) & (v1 ^ 1u));
    switch (in_u32[57] & 7u) {
    case 1:
    {
        v16 = in_u64[(gid + 52u) & 63u];
        v3 = ((v2 <= in_s32[(gid + 29u) & 63u]) ? v3 : p64);
    }
        break;
    case 5:
    {
        v4 = (long long)((unsigned long long)(long long)((unsigned long long)32ll + (unsigned long long)v4) + (unsigned long long)(long long)__clzll(in_s64[(gid + 14u) & 63u]));
        unsigned v18 = (unsigned)__brev(2327361040u);
    }
        break;
    case 7:
    {
        v1 = 1u;
        v13 |= (v13 | ((unsigned long long)(((unsigned long long)2u << 32) | in_u32[8]) - v3));
    }
        break;
    default:
    {
        unsigned v19 = min(n, v17);
    }
    }
    float v20 = 1e10f;
    v2 = (int)((unsigned)(int)(unsigned)(((unsigned long long)(in_u32[(gid + 23u) & 63u] ^ gid) * (v17 & 1431655765u)) >> 32) - (unsigned)v2);
    unsigned i21 = in_u32[(gid + 33u) & 63u] & 15u;
    while (i21 != 0) {
        unsigned v22 = (unsigned)__funnelshift_lc(max((unsigned)__brev((unsigned)__byte_perm(2147483647u, 21325u, 0x03a1u)), (unsigned)__clz((int)(v1))), (unsigned)__sad((int)__byte_perm((gid ^ v17), (unsigned)__byte_perm(n, v1, 0xdfb6u), 0x75a7u), (int)__funnelshift_lc((v1 - v17), (unsigned)__uhadd(64u, v17), (unsigned)__uhadd(in_u32[35], 7u)), v1), (max((unsigned)__funnelshift_r(v1, gid, 1u), (7u * v1)) % (unsigned)(7)));
        i21 = i21 & (i21 - 1u);
    }
    switch ((unsigned)((short)(long long)__popcll(v16)) & 7u) {
    case 0:
    {
        v16 = (unsigned long long)((unsigned long long)(unsigned)~v1 * (unsigned)__umulhi(65253u, v17));
        arr7[((unsigned)__mulhi(min(v2, in_s32[(gid + 43u) & 63u]), (int)__urhadd(v1, in_u32[(gid + 42u) & 63u])) & 7u)] = (int)__byte_perm(cf_urem(v17, in_u32[15]), (unsigned)__clz(12), 0x0577u);
    }
        break;
    case 1:
    {
        v9 = __frcp_rd(__uint_as_float(v1));
    }
        break;
    case 2:
    {
        v20 = __fmaf_ru(__fmul_rn(__fmul_rd(in_f32[16], v5), __fmul_rn(2147483648.0f, 1.8446744073709552e19f)), __fsub_rn(9.2233720368547758e18f, in_f32[(gid + 23u) & 63u]), __uint_as_float((unsigned)__byte_perm(v17, 210u, 0xf4dcu)));
    }
        break;
    case 7:
    {
        v6 = __drcp_rn(__longlong_as_double((long long)0xfff0000000000000ull));
        v6 = __ddiv_rn(__longlong_as_double(v4), __dsub_rn(in_f64[(gid + 41u) & 63u], __longlong_as_double((long long)0x41dfffffffc00000ull)));
    }
        break;
    default:
    {
        v20 = (float)(v2);
    }
    }
    out[gid * 6u + 0u] = cf_bits(v5);
    out[gid * 6u + 1u] = cf_bits(v9);
    out[gid * 6u + 2u] = cf_bits(v13);
    out[gid * 6u + 3u] = cf_bits(v20);
    out[gid * 6u + 4u] = cf_bits(v6);
    out[gid * 6u + 5u] = cf_bits(v1);
}
