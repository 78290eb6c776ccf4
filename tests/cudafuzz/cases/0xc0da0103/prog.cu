#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = ((unsigned)(unsigned)cf_bits(2147483648.0f) + (unsigned)__byte_perm(in_u32[(gid + 59u) & 63u], (unsigned)((const signed char *)in_s64)[(gid * 1u + 38u) & 511u], 0xd6abu));
    int v2 = (int)__sad(((int)((const unsigned char *)in_u32)[(gid * 5u + 14u) & 255u] / (int)(-5)), (int)__sad((int)((const signed char *)in_s32)[(gid * 3u + 26u) & 255u], 0, 14u), (unsigned)__ffs((int)gid));
    unsigned long long v3 = (unsigned long long)__popcll((unsigned long long)__popcll((unsigned long long)((const signed char *)in_s32)[(gid * 3u + 14u) & 255u]));
    long long v4 = (((__longlong_as_double((long long)0xc3e0000000000000ull) == in_f64[15]) || (__longlong_as_double((long long)0x7ff0000000000000ull) < in_f64[(gid + 22u) & 63u])) ? ((long long)((const signed char *)in_s32)[(gid * 1u + 63u) & 255u] | (long long)((const unsigned short *)in_s32)[(gid * 1u + 14u) & 127u]) : (long long)((unsigned long long)12u * v1));
    float v5 = __frcp_rz(9.2233720368547758e18f);
    double v6 = in_f64[51];
    unsigned char arr7[16];
    for (int j = 0; j < 16; ++j) arr7[j] = (unsigned char)in_u32[(gid * 3u + (unsigned)j) & 63u];
    v6 = __dsub_rn((-(__dmul_rn(__dadd_rn(fmin(in_f64[9], in_f64[(gid + 63u) & 63u]), 0.0), (double)(in_u32[(gid + 5u) & 63u])))), __longlong_as_double(v4));
    v1 = (unsigned)(unsigned)(((unsigned long long)3u * in_u32[52]) >> 32);
    arr7[((unsigned)(unsigned)cf_bits(__fsub_rz(v5, __uint_as_float(0xcf000000u))) & 15u)] = min((unsigned)((short)(long long)p64), (2458343520u * 32768u));
    if (((unsigned long long)(((unsigned long long)(unsigned)((const unsigned short *)in_u64)[(gid * 5u + 7u) & 255u] << 32) | v1) >= (unsigned long long)((long long)in_s32[(gid + 40u) & 63u] * v2))) {
        if ((((unsigned)(v2) & 70u) != 0)) {
            v4 = 0ll;
        }
        unsigned i8 = (unsigned)(unsigned)(((unsigned long long)4162517976u * (unsigned)__mulhi((int)threadIdx.x, in_s32[(gid + 0u) & 63u])) >> 32) & 7u;
        do {
            v6 = -2147483904.0;
            int v9 = (int)__urhadd((unsigned)(0u - (unsigned)v1), (unsigned)__funnelshift_l((n * v1), (v1 + v1), (v1 * in_u32[(gid + 16u) & 63u])));
            if (((in_u64[40] & 4ull) != 0)) break;
            unsigned long long v10 = ((max((v1 >> (8 & 31)), n) == (unsigned)__umulhi(in_u32[(gid + 15u) & 63u], (4294967295u * v1))) ? v3 : (((unsigned long long)~v3 & (unsigned long long)((v3 & ~(0x3ull << 62)) | ((1ull & 0x3ull) << 62))) - (unsigned long long)((unsigned long long)v1 * (unsigned)__popc(gid))));
            long long v11 = (long long)((unsigned long long)in_s64[10] << (24 & 63));
        } while (i8-- > 1u);
        v3 = (((1431655765u <= v1) || (v4 != 255ll)) ? (unsigned long long)((unsigned long long)(unsigned long long)((long long)in_s32[(gid + 54u) & 63u] * v2) << ((v1 * v1) & 63)) : (unsigned long long)((unsigned short)((in_u32[12] == v1) ? 32768ull : 2ull)));
    }
    for (unsigned i12 = 0; i12 < ((unsigned)__clz((int)((in_u32[41] & ~(0x7ffu << 21)) | ((gid & 0x7ffu) << 21))) & 7u); ++i12) {
        switch ((unsigned)__byte_perm((i12 | i12), in_u32[48], 0x7279u) & 7u) {
        case 0:
        {
            v1 = v1;
            unsigned v13 = (min((unsigned)__ffs(v2), i12) | 55005u);
        }
        case 5:
        {
            v1 = ((unsigned)(unsigned)(((unsigned long long)v1 * i12) >> 32) - (unsigned)((const signed char *)in_u32)[(gid * 3u + 44u) & 255u]);
        }
            break;
        case 6:
        {
            float v14 = __fmul_rz(__fsqrt_rn(__uint_as_float((4294967295u * 255u))), __fmaf_rn(__fadd_rn(fmaxf(__fdiv_rn(1e10f, v5), 1.0f), 0.0f), __fmaf_rd(in_f32[38], __fmul_rd(in_f32[(gid + 18u) & 63u], 1.0f), in_f32[34]), __fsqrt_rd(__fsub_rn(1.0f, v5))));
        }
            break;
        }
        int a15 = 252645135;
        v2 = cf_srem((int)__sad(abs(a15 == (int)0x80000000u ? 0 : a15), (int)__brev(33u), v1), v2);
        int v16 = ((v2 & (int)(-176191984)) % (int)(-1000));
        unsigned v17 = v1;
    }
    for (unsigned i18 = 0; i18 < (((unsigned)__usad(2147483648u, in_u32[62], gid) | (unsigned)__umulhi(v1, 3986351775u)) & 15u); ++i18) {
        v3 = ((unsigned long long)((v3 & ~(0x7fffffull << 41)) | ((37073ull & 0x7fffffull) << 41)) + (((unsigned long long)((const short *)in_u64)[(gid * 1u + 27u) & 255u] == v3) ? in_u64[(gid + 43u) & 63u] : 45906ull));
        v5 = ((v3 <= v3) ? -3e-39f : v5);
    }
    v5 = __fadd_rn(in_f32[(gid + 46u) & 63u], v5);
    switch ((unsigned)__byte_perm((unsigned)(unsigned)(((unsigned long long)v1 * (unsigned)((const unsigned char *)in_u32)[(gid * 3u + 24u) & 255u]) >> 32), (unsigned)(0u - (unsigned)v1), 0x4ff6u) & 7u) {
    case 4:
    {
        v2 = (int)(-1);
    }
        break;
    case 6:
    {
        long long v19 = ((long long)((signed char)1431655765ll) | (long long)((unsigned long long)v4 * (unsigned long long)(long long)(-1ll)));
    }
    case 7:
    {
        v5 = v5;
        v3 = (unsigned long long)((unsigned short)(unsigned long long)gid * p64);
    }
    default:
    {
        v5 = (float)(v6);
    }
    }
    out[gid * 6u + 0u] = cf_bits(v2);
    out[gid * 6u + 1u] = cf_bits(v1);
    out[gid * 6u + 2u] = cf_bits(v4);
    out[gid * 6u + 3u] = cf_bits(v6);
    out[gid * 6u + 4u] = cf_bits(v5);
    out[gid * 6u + 5u] = cf_bits(v3);
}
