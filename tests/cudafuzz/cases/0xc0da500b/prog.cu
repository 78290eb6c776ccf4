#include "cf.h"

extern "C" __global__ void k(const unsigned *__restrict__ in_u32, const int *__restrict__ in_s32, const unsigned long long *__restrict__ in_u64, const long long *__restrict__ in_s64, const float *__restrict__ in_f32, const double *__restrict__ in_f64, unsigned long long *__restrict__ out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = ((unsigned)((const unsigned short *)in_u32)[(gid * 5u + 14u) & 127u] & (in_u32[(gid + 10u) & 63u] - (unsigned)((const signed char *)in_u32)[(gid * 1u + 0u) & 255u]));
    int v2 = (int)__popc((unsigned)__hadd((int)((const unsigned char *)in_u32)[(gid * 3u + 49u) & 255u], (int)((const short *)in_u32)[(gid * 3u + 15u) & 127u]));
    unsigned long long v3 = (unsigned long long)__brevll((1ull * (unsigned long long)((const unsigned char *)in_u32)[(gid * 3u + 28u) & 255u]));
    long long v4 = (long long)((long long)(int)__popc(v1) * v2);
    float v5 = __fdiv_rz(__fadd_rd(in_f32[(gid + 41u) & 63u], in_f32[(gid + 21u) & 63u]), in_f32[13]);
    double v6 = __dadd_rn(fmax(__drcp_rz(1.0), (double)(v1)), 0.0);
    unsigned i7 = (unsigned)(unsigned)cf_bits((((long long)0x8000000000000000ull > v4) ? in_f32[(gid + 30u) & 63u] : v5)) & 7u;
    do {
        v5 = __double2float_rz(4294967296.0);
        unsigned i8 = ((2u + v1) >> (31 & 31)) & 15u;
        while (i8 != 0) {
            v5 = v5;
            i8 = i8 & (i8 - 1u);
        }
        if ((v4 < in_s64[10])) break;
        for (unsigned i9 = 0; i9 < (((unsigned)__uhadd(v1, n) | (unsigned)((unsigned)4294967295u << (8 & 31))) & 3u); ++i9) {
            v3 = (2654435769ull % (unsigned long long)(5ll));
            v4 = v4;
            v2 = ((int)__uhadd(4294967295u, i9) % (int)(3));
            v6 = __fma_rn(__drcp_rz(v6), (double)(i9), __dsqrt_rd(v6));
        }
        v1 = v1;
    } while (i7-- > 1u);
    if ((__fdiv_rz(v5, v5) > ((v3 != v3) ? 0.0f : __uint_as_float(0x80000001u)))) {
        v5 = __fadd_rz(__uint_as_float(in_u32[28]), __fmaf_rn(__uint_as_float(0xff800000u), v5, v5));
        v5 = __fmaf_rd(__fmaf_rz((float)(v3), v5, __fmaf_rn(v5, 1e-40f, __uint_as_float(0x4effffffu))), __fadd_rn((((int)((const short *)in_u64)[(gid * 1u + 5u) & 255u] <= (int)(-1)) ? 3.0f : in_f32[(gid + 1u) & 63u]), __fmaf_rd(v5, v5, in_f32[(gid + 38u) & 63u])), __fadd_rn(fmaxf(__fmaf_ru(v5, v5, 1.5f), __fsub_rz(1.0f, in_f32[(gid + 60u) & 63u])), 0.0f));
    } else {
        switch ((unsigned)(unsigned)cf_bits(__ull2float_rd(33ull)) & 7u) {
        case 4:
        {
            v4 = (long long)((const signed char *)in_u64)[(gid * 3u + 39u) & 511u];
        }
            break;
        case 6:
        {
            v5 = __fmaf_rn(__fmul_rn(__fdiv_rn(__fdiv_rn(0.0f, v5), __ll2float_ru(v4)), (isnan(v6) ? __fmul_rn(in_f32[(gid + 46u) & 63u], -2.75f) : __fdiv_rn(v5, v5))), __fmul_rd(__fdiv_ru(__fdiv_rn(v5, __uint_as_float(0x5f7fffffu)), v5), __fdiv_rd(v5, __fmul_ru(4294967296.0f, v5))), __fmaf_rn(fabsf(in_f32[(gid + 19u) & 63u]), (((in_u64[15] >= v3) && (v3 <= v3)) ? v5 : __fdiv_ru(in_f32[20], -1.0f)), (float)((int)(unsigned)(((unsigned long long)n * n) >> 32))));
            v6 = ((256 == (v2 / (int)(7))) ? __dadd_rd(__longlong_as_double(2ll), __ddiv_rn(v6, __longlong_as_double((long long)0x433fffffffffffffull))) : __dadd_rn(fmax(((in_s32[(gid + 7u) & 63u] >= 256) ? v6 : in_f64[30]), __ll2double_rd(59679ll)), 0.0));
        }
            break;
        default:
        {
            if ((v6 < v6)) {
                int v10 = (int)__funnelshift_rc((unsigned)(unsigned)cf_bits(v5), (60869u ^ v1), (unsigned)__byte_perm(v1, 56933u, 0x6841u));
                v5 = __fsqrt_rd(__fmul_rn(v5, 2147483648.0f));
            }
        }
        }
        unsigned i11 = (unsigned)(((unsigned)__hadd(v2, (int)0x80000000u) & ~(0xfffffu << 12)) | (((unsigned)((unsigned)v1 << (15 & 31)) & 0xfffffu) << 12)) & 7u;
        do {
            unsigned i12 = n & 15u;
            while (i12 != 0) {
                v1 = v1;
                v6 = (double)(v1);
                v5 = __fadd_rn(in_f32[(gid + 22u) & 63u], __frcp_rn((float)((int)__byte_perm(n, v1, 2147483647u))));
                v2 = (int)__mulhi((int)__hadd((2147483647 | 31), in_s32[60]), (int)__clz((int)(26725ll)));
                i12 = i12 & (i12 - 1u);
            }
            if ((v4 <= v4)) break;
            int v13 = (int)(-1640531527);
        } while (i11-- > 1u);
    }
    if ((v4 != ((long long)blockIdx.x - 1 >> (in_u32[(gid + 62u) & 63u] & 63)))) {
        v4 = (long long)((long long)(int)((unsigned short)p64) * (int)__brev(64u));
        v5 = __ull2float_rz((unsigned long long)__umul64hi((unsigned long long)((unsigned long long)v3 << (59 & 63)), cf_urem64(v3, (unsigned long long)((const unsigned char *)in_s64)[(gid * 5u + 39u) & 511u])));
        long long v14 = (long long)(((unsigned long long)__umul64hi((unsigned long long)((unsigned long long)0ull << (15 & 63)), (unsigned long long)((unsigned long long)3u * 7u)) >> 44) & 0xfffffull);
    } else {
        if (((v6 < __longlong_as_double((long long)0x3fefffffffffffffull)) || ((7ull & 18446744073709551615ull) != 0))) {
            double v15 = __dadd_rn(fmax(fabs(__drcp_rz(v6)), (-(((v4 != in_s64[27]) ? v6 : -2147483904.0)))), 0.0);
        } else {
            unsigned v16 = v1;
            v4 = (long long)((unsigned long long)v4 * (unsigned long long)(long long)((unsigned long long)(long long)((9223372036854775808ull & ~(0xfffffffull << 5)) | ((in_u64[(gid + 24u) & 63u] & 0xfffffffull) << 5)) + (unsigned long long)(long long)((long long)(int)((const unsigned char *)in_s32)[(gid * 3u + 3u) & 255u] * v2)));
            v3 = cf_udiv64((33ull + ((1ll == v4) ? v3 : in_u64[9])), cf_udiv64((unsigned long long)__popcll(v3), ((v2 > 255) ? v3 : v3)));
        }
        v4 = (long long)((unsigned long long)in_s64[(gid + 30u) & 63u] - (unsigned long long)(long long)((const unsigned char *)in_u64)[(gid * 5u + 49u) & 511u]);
        for (unsigned i17 = 0; i17 < ((((unsigned)((const short *)in_s64)[(gid * 3u + 41u) & 255u] + 15240u) + ((3u <= 3546929499u) ? 256u : v1)) & 7u); ++i17) {
            unsigned v18 = (unsigned)~in_u32[(gid + 21u) & 63u];
        }
    }
    out[gid * 6u + 0u] = cf_bits(v4);
    out[gid * 6u + 1u] = cf_bits(v5);
    out[gid * 6u + 2u] = cf_bits(v2);
    out[gid * 6u + 3u] = cf_bits(v3);
    out[gid * 6u + 4u] = cf_bits(v6);
    out[gid * 6u + 5u] = cf_bits(v1);
}
