#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)((((unsigned)((const signed char *)in_s32)[(gid * 5u + 55u) & 255u] + 252645135u) >> 5) & 0x7u);
    int v2 = (int)__clz((int)__umulhi(v1, v1));
    unsigned long long v3 = (unsigned long long)((min((unsigned long long)((const unsigned short *)in_s32)[(gid * 1u + 23u) & 127u], (unsigned long long)((const unsigned char *)in_s32)[(gid * 3u + 14u) & 255u]) & ~(0x3full << 58)) | (((256ull >> (4 & 63)) & 0x3full) << 58));
    float c5 = __uint_as_float(0x7f800000u);
    long long v4 = (long long)((unsigned long long)(long long)__umul64hi(v3, in_u64[(gid + 45u) & 63u]) - (unsigned long long)(isnan(c5) ? (long long)0 : __float2ll_rn(c5)));
    float v6 = __uint_as_float(0x80000001u);
    double v7 = 1e-310;
    unsigned long long arr8[16];
    for (int j = 0; j < 16; ++j) arr8[j] = (unsigned long long)in_u64[(gid * 5u + (unsigned)j) & 63u];
    if (!((v1 & 1u) != 0)) {
        v2 = (int)(unsigned)cf_bits(__fsub_rd(v6, __uint_as_float(0x4effffffu)));
        v1 *= v1;
        for (unsigned i9 = 0; i9 < ((unsigned)__byte_perm(2147483647u, (598895738u & 63u), 0x42b5u) & 15u); ++i9) {
            v4 = (long long)((long long)v2 * v2);
            v3 *= (unsigned long long)__brevll(max(v3, in_u64[(gid + 53u) & 63u]));
            v7 = __dadd_rn(__dsqrt_rn(-1.0), __dadd_ru(-4.9e-324, in_f64[(gid + 3u) & 63u]));
            unsigned long long v10 = (v3 >> (v1 & 63));
        }
    }
    v2 = 33;
    switch ((unsigned)__ffs((int)~in_s32[(gid + 40u) & 63u]) & 7u) {
    case 0:
    {
        int a11 = (v2 % (int)(-2147483647));
        v2 = (int)((unsigned)abs(a11 == (int)0x80000000u ? 0 : a11) - (unsigned)(int)__popc((unsigned)__brev(v1)));
    }
        break;
    case 2:
    {
        v7 = (-((-(__ddiv_rn(2147483648.0, in_f64[17])))));
    }
        break;
    case 3:
    {
        v1 = (unsigned)__sad(64, v2, 2147483648u);
        unsigned i12 = min(1812613538u, v1) & 7u;
        do {
            v1 = (unsigned)__mulhi((int)gid, (int)__funnelshift_rc(2147483647u, (unsigned)((const unsigned short *)in_u64)[(gid * 1u + 48u) & 255u], 1189260569u));
            unsigned v13 = v1;
            if ((in_s32[51] <= 125)) break;
            v7 = ((9223372036854775807ll >= (long long)blockIdx.x - 1) ? __ddiv_rn(1.5, v7) : 4294967296.0);
            int v14 = (int)__umulhi(((unsigned)__funnelshift_lc(v13, v1, v1) * v13), (2427u + (v1 + v1)));
        } while (i12-- > 1u);
    }
        break;
    default:
    {
        if (isnan(in_f64[22])) {
            unsigned long long v15 = arr8[(255u & 15u)];
        } else {
            v3 = (((unsigned)((const signed char *)in_s32)[(gid * 1u + 7u) & 255u] == 1431655765u) ? ((in_f64[(gid + 37u) & 63u] > __longlong_as_double((long long)0x7ff0000000000000ull)) ? p64 : (unsigned long long)gid * p64) : (unsigned long long)((long long)(int)threadIdx.x * 73));
            int v16 = (int)__byte_perm((unsigned)__sad((int)((v1 & ~(0x7fu << 25)) | ((v1 & 0x7fu) << 25)), (int)__usad(v1, in_u32[(gid + 13u) & 63u], in_u32[8]), (unsigned)(unsigned)cf_bits(in_f32[55])), ((unsigned)__ffs(2) & (v1 * v1)), 0x4cdeu);
            double v17 = __fma_rn(v7, in_f64[57], in_f64[(gid + 8u) & 63u]);
        }
    }
    }
    long long v18 = (long long)((long long)v2 * ((__dadd_rz(__longlong_as_double((long long)0x7ff0000000000000ull), v7) <= __dsqrt_rn(v7)) ? (int)((unsigned)(int)((unsigned)(int)gid << (in_s32[45] & 31)) * (unsigned)(int)__umulhi(v1, 1637385161u)) : cf_sdiv((int)__funnelshift_rc(v1, 2147483647u, (unsigned)((const unsigned short *)in_u64)[(gid * 3u + 2u) & 255u]), v2)));
    if ((v4 < in_s64[(gid + 49u) & 63u])) {
        switch (((unsigned)__brev(252645135u) - (unsigned)__ffs(7)) & 7u) {
        case 0:
        {
            if (!isnan(-2147483904.0)) return;
        }
            break;
        case 7:
        {
            v6 = __fmaf_rn(__uint_as_float(0x4b7fffffu), __fdiv_rn(__ll2float_rn(v4), v6), __uint_as_float(0x3f7fffffu));
        }
        }
        unsigned long long v19 = (((unsigned long long)~p64 < v3) ? (p64 ^ (unsigned long long)__brevll(v3)) : (unsigned long long)((long long)(int)__sad(v2, (int)threadIdx.x, v1) * (int)__clz(v2)));
        v18 = (((unsigned long long)__popcll(2654435769ull) == (in_u64[16] >> (54 & 63))) ? (long long)((unsigned char)min(v1, v1)) : (long long)__mul64hi((long long)((unsigned long long)0ll * (unsigned long long)(long long)p64), v18));
    } else {
        unsigned long long v20 = 12435335613827293683ull;
        v7 = __longlong_as_double((long long)(((unsigned long long)(unsigned)__ffs((int)((in_u32[62] & ~(0xfffffu << 12)) | ((in_u32[58] & 0xfffffu) << 12))) << 32) | ((256u >> (2107159706 & 31)) & 256u)));
        v18 = (long long)(((unsigned long long)v1 << 32) | n);
    }
    for (unsigned i21 = 0; i21 < (v1 & 7u); ++i21) {
        if ((18446744073709551615ull <= (unsigned long long)__mul64hi(v4, v18))) {
            unsigned long long v22 = arr8[(256u & 15u)];
            v2 = (int)(unsigned)cf_bits((float)(v18));
        } else {
            unsigned v23 = ((v2 != (int)gid) ? v1 : in_u32[(gid + 50u) & 63u]);
            v23 = (unsigned)(unsigned)(((unsigned long long)(unsigned)__clz(in_s32[(gid + 18u) & 63u]) * cf_urem((unsigned)__brev(10u), (unsigned)__popc(v23))) >> 32);
        }
        unsigned long long v24 = ((12ull - in_u64[36]) * v3);
        long long v25 = (isnan(__fadd_rn(in_f32[(gid + 0u) & 63u], v6)) ? v18 : (long long)~(long long)__clzll(v18));
    }
    out[gid * 6u + 0u] = cf_bits(v18);
    out[gid * 6u + 1u] = cf_bits(v2);
    out[gid * 6u + 2u] = cf_bits(v6);
    out[gid * 6u + 3u] = cf_bits(v3);
    out[gid * 6u + 4u] = cf_bits(v7);
    out[gid * 6u + 5u] = cf_bits(v1);
}
