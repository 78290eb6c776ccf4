#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (80u & (unsigned)((const short *)in_s32)[(gid * 1u + 45u) & 127u]);
    int v2 = (int)__brev((32768u + v1));
    unsigned long long v3 = (unsigned long long)((unsigned long long)(unsigned)((unsigned)n << (13 & 31)) * in_u32[1]);
    long long v4 = (long long)__ffsll((long long)__mul64hi((long long)((const unsigned short *)in_u32)[(gid * 5u + 13u) & 127u], (long long)((const unsigned short *)in_u32)[(gid * 1u + 4u) & 127u]));
    float v5 = (-(__fmaf_rn(65504.0f, 0.1f, in_f32[7])));
    double v6 = __dsqrt_rn(__longlong_as_double(37506ll));
    short arr7[16];
    for (int j = 0; j < 16; ++j) arr7[j] = (short)in_s32[(gid * 3u + (unsigned)j) & 63u];
    short arr8[8];
    for (int j = 0; j < 8; ++j) arr8[j] = (short)in_s32[(gid * 3u + (unsigned)j) & 63u];
    unsigned long long v9 = (unsigned long long)~3ull;
    v4 = (!((v4 & 65ll) != 0) ? (long long)((unsigned long long)(v4 | 3ll) - (unsigned long long)min(v4, v4)) : (long long)p64);
    v5 = __uint_as_float(0x00000001u);
    v6 = v6;
    unsigned v10 = n;
    if ((((v2 >> (203u & 31)) & (int)(-1640531527)) != 0)) return;
    v1 = (unsigned)(unsigned)(((unsigned long long)((unsigned)(unsigned)cf_bits(__fsub_rn(in_f32[18], -1.0f)) * (unsigned)__mulhi(min(v2, v2), min(31, v2))) * (unsigned)((const unsigned char *)in_s64)[(gid * 1u + 10u) & 511u]) >> 32);
    v5 = ((v4 > v4) ? __fmul_rn(v5, v5) : __uint_as_float((unsigned)((const unsigned char *)in_s64)[(gid * 1u + 0u) & 511u]));
    arr8[(29329u & 7u)] = ((0.49999997f <= __uint_as_float(0x80000001u)) ? min((int)threadIdx.x, v2) : (int)__clz(32768));
    long long v11 = v4;
    arr7[(3713184092u & 15u)] = (int)(unsigned)(((unsigned long long)(in_u32[13] & v1) * (n + gid)) >> 32);
    v4 = max(255ll, in_s64[(gid + 22u) & 63u]);
    unsigned v12 = v1;
    v12 |= ((unsigned)__popc(v10) + (unsigned)~n);
    unsigned i13 = (((unsigned)((const short *)in_u64)[(gid * 3u + 4u) & 255u] & v10) >> (15 & 31)) & 7u;
    do {
        v5 = in_f32[(gid + 20u) & 63u];
    } while (i13-- > 1u);
    if (((int)__popc(6u) > ((in_u64[(gid + 44u) & 63u] > 140ull) ? 256 : v2))) {
        v11 = 56692ll;
        v3 &= ((((unsigned)__mulhi((int)__clz(252645135), (int)__rhadd((int)((const unsigned short *)in_u64)[(gid * 1u + 45u) & 255u], in_s32[15])) & 64u) != 0) ? v3 : (unsigned long long)((unsigned long long)(unsigned)__umulhi((unsigned)__hadd(v2, (int)((const signed char *)in_u32)[(gid * 1u + 45u) & 255u]), (in_u32[20] * (unsigned)((const unsigned short *)in_u32)[(gid * 3u + 45u) & 127u])) * (unsigned)__sad((int)__brev(255u), ((v9 <= in_u64[(gid + 41u) & 63u]) ? 50118 : 256), (v1 >> (in_s32[(gid + 26u) & 63u] & 31)))));
        v3 = in_u64[(gid + 35u) & 63u];
    } else {
        unsigned i14 = (unsigned)__funnelshift_l((v10 - v1), (unsigned)__funnelshift_r(33u, 255u, in_u32[44]), (v12 - v1)) & 7u;
        do {
            v4 = min((long long)((unsigned long long)32768ll - (unsigned long long)(v4 | (long long)__clzll(9223372036854775807ll))), (in_s64[(gid + 7u) & 63u] >> (14 & 63)));
            if ((v3 <= (v3 & v9))) {
                v2 = (int)(0u - (unsigned)(int)((unsigned)in_s32[(gid + 0u) & 63u] + (unsigned)256));
            }
        } while (i14-- > 1u);
    }
    int v15 = arr7[(in_u32[30] & 15u)];
    if (((unsigned long long)((19589ull & ~(0x3ffffffull << 38)) | ((v9 & 0x3ffffffull) << 38)) < (unsigned long long)~(unsigned long long)((const signed char *)in_u32)[(gid * 3u + 61u) & 255u])) {
        long long a16 = min((long long)((const unsigned char *)in_s64)[(gid * 1u + 27u) & 511u], (long long)(0ull - (unsigned long long)v11));
        v4 = llabs(a16 == (long long)0x8000000000000000ull ? 0 : a16);
        v6 = __longlong_as_double((long long)0xfff0000000000000ull);
    } else {
        v3 &= (unsigned long long)((unsigned long long)(unsigned)__clz((int)__mulhi(42258, (int)((unsigned)(int)(-809304426) + (unsigned)v2))) * (unsigned)__rhadd(((int)((unsigned)v15 + (unsigned)v15) / (int)(-5)), (int)__sad(2147483647, (int)((3u & ~(0x3fffu << 3)) | ((v10 & 0x3fffu) << 3)), max(3058649396u, in_u32[(gid + 25u) & 63u]))));
        v15 = in_s32[19];
    }
    out[gid * 6u + 0u] = cf_bits(v4);
    out[gid * 6u + 1u] = cf_bits(v15);
    out[gid * 6u + 2u] = cf_bits(v9);
    out[gid * 6u + 3u] = cf_bits(v12);
    out[gid * 6u + 4u] = cf_bits(v6);
    out[gid * 6u + 5u] = cf_bits(v5);
}
