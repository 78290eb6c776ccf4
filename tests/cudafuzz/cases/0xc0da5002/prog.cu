#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)__brev(cf_urem(gid, (unsigned)((const signed char *)in_s32)[(gid * 5u + 57u) & 255u]));
    int v2 = (int)__sad((int)((unsigned)(int)((const unsigned char *)in_s32)[(gid * 5u + 24u) & 255u] - (unsigned)(int)((const short *)in_s32)[(gid * 3u + 63u) & 127u]), (int)((unsigned)(int)((const unsigned char *)in_u64)[(gid * 1u + 62u) & 511u] * (unsigned)(int)((const short *)in_s64)[(gid * 3u + 15u) & 255u]), (in_u32[(gid + 11u) & 63u] ^ 60902u));
    unsigned long long v3 = ((unsigned long long)__umul64hi((unsigned long long)((const short *)in_u64)[(gid * 3u + 58u) & 255u], 255ull) >> ((int)((unsigned)4 + (unsigned)in_s32[(gid + 20u) & 63u]) & 63));
    long long v4 = (long long)((unsigned)__mulhi((int)((const unsigned short *)in_u32)[(gid * 3u + 62u) & 127u], 810804166));
    float v5 = __fmaf_ru(__fsqrt_rz(in_f32[22]), __int2float_rn(150), __fadd_rn(in_f32[(gid + 38u) & 63u], in_f32[34]));
    double v6 = __dmul_rn(in_f64[(gid + 13u) & 63u], __dsub_rn(in_f64[58], in_f64[1]));
    long long v7 = (0ll & in_s64[(gid + 13u) & 63u]);
    unsigned v8 = cf_urem(in_u32[(gid + 13u) & 63u], (unsigned)((const short *)in_s64)[(gid * 5u + 7u) & 255u]);
    v2 = (int)(unsigned)(((unsigned long long)(((unsigned)__popc(in_u32[(gid + 26u) & 63u]) + v1) - (unsigned)~(v1 + n)) * (unsigned)(unsigned)cf_bits((float)((unsigned long long)((unsigned long long)v1 * 2860993371u)))) >> 32);
    v1 = ((unsigned)(0u - (unsigned)(unsigned)((const unsigned char *)in_u64)[(gid * 5u + 2u) & 511u]) * min(v1, v1));
    v1 = (40u & v8);
    if (isnan((-(__uint_as_float(0x4effffffu))))) {
        double v9 = __fma_rn(v6, __dadd_rn(fmin(v6, v6), 0.0), __fma_rn(in_f64[(gid + 11u) & 63u], __ddiv_rn(v6, 2147483648.0), in_f64[23]));
        if ((in_f32[14] != __fadd_rn(fmaxf(v5, 1e-40f), 0.0f))) {
            double c11 = (double)((int)gid);
            long long v10 = ((long long)((unsigned long long)(unsigned)~min(8u, v8) * (isnan(c11) ? (unsigned)0 : __double2uint_rd(c11))) >> (45 & 63));
        } else {
            v8 = (v8 + v8);
            v5 = ((v1 != 2147483647u) ? -3e-39f : in_f32[(gid + 4u) & 63u]);
        }
        unsigned i12 = ((unsigned)__sad((int)threadIdx.x, v2, v8) + v8) & 7u;
        do {
            v2 = ((int)0x80000000u & (int)((unsigned)(int)threadIdx.x + (unsigned)(int)threadIdx.x));
            v3 = cf_urem64(v3, v3);
            v5 = __int2float_ru(63);
            v2 = (int)((unsigned)v2 * (unsigned)(3 >> (v2 & 31)));
        } while (i12-- > 1u);
    }
    long long v13 = v7;
    v5 = __int2float_rz(((31267 <= 1) ? 1 : 252645135));
    if (((long long)((unsigned long long)240u * n) != (long long)__brevll((unsigned long long)gid * p64))) {
        unsigned v14 = v1;
        int v15 = (int)((unsigned)v2 * (unsigned)min((int)__umulhi(111u, (unsigned)((const short *)in_s64)[(gid * 1u + 1u) & 255u]), v2));
    }
    double v16 = (double)((int)__mulhi((int)__sad(19928, in_s32[19], v8), min(0, v2)));
    if ((__dsqrt_rn(__longlong_as_double((long long)0x3fefffffffffffffull)) != __ll2double_ru(0ll))) {
        v16 = __ddiv_rn(v6, __drcp_rn(v16));
        long long v17 = (long long)__clzll(v4);
        v8 = (unsigned)__popc((unsigned)((unsigned)v8 << (30 & 31)));
    }
    v7 = (long long)((const short *)in_s32)[(gid * 5u + 53u) & 127u];
    v5 = __uint_as_float((unsigned)(unsigned)cf_bits(in_f32[(gid + 1u) & 63u]));
    v1 &= v1;
    float v18 = v5;
    v6 = __longlong_as_double(65535ll);
    v4 = (long long)__popcll((unsigned long long)__ffsll(v13));
    long long v19 = ((long long)(0ull - (unsigned long long)v13) / (long long)(-10ll));
    v13 = (long long)__mul64hi((long long)__brevll((unsigned long long)__popcll((unsigned long long)~2053ull)), (long long)(((unsigned long long)(unsigned)__usad((v8 * 32u), (unsigned)~v1, (unsigned)(unsigned)cf_bits(in_f32[31])) << 32) | (unsigned)__mulhi((int)__hadd(64, v2), (256 & in_s32[1]))));
    switch (64u & 7u) {
    case 3:
    {
        v5 = v18;
        v7 = (long long)((unsigned long long)(32768ll & v19) * (unsigned long long)(long long)((unsigned long long)v1 * in_u32[(gid + 58u) & 63u]));
    }
        break;
    case 5:
    {
        unsigned long long v20 = (v3 * v3);
        v7 = (long long)__clzll((long long)((0ull & ~(0x3fffull << 30)) | ((9223372036854775807ull & 0x3fffull) << 30)));
    }
        break;
    case 6:
    {
        v13 = in_s64[45];
    }
        break;
    default:
    {
        v19 = 7ll;
    }
    }
    out[gid * 6u + 0u] = cf_bits(v3);
    out[gid * 6u + 1u] = cf_bits(v5);
    out[gid * 6u + 2u] = cf_bits(v6);
    out[gid * 6u + 3u] = cf_bits(v2);
    out[gid * 6u + 4u] = cf_bits(v8);
    out[gid * 6u + 5u] = cf_bits(v1);
}
