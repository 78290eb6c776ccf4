#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)(unsigned)cf_bits(__fmaf_rn(in_f32[44], in_f32[(gid + 58u) & 63u], in_f32[(gid + 11u) & 63u]));
    int v2 = (int)((unsigned)(int)((unsigned)(int)((const signed char *)in_s64)[(gid * 1u + 53u) & 511u] * (unsigned)3) + (unsigned)(int)__popc(gid));
    unsigned long long v3 = (isnan(in_f32[(gid + 56u) & 63u]) ? (unsigned long long)((const unsigned char *)in_u32)[(gid * 1u + 36u) & 255u] : ((unsigned long long)((const signed char *)in_u64)[(gid * 5u + 16u) & 511u] | 64ull));
    long long v4 = (long long)(((unsigned long long)(unsigned)__popc(v1) << 32) | (unsigned)__usad(136u, 37917u, 1u));
    float v5 = in_f32[(gid + 35u) & 63u];
    double v6 = __dadd_rn(fmax(((v5 != 0.0f) ? -2147483904.0 : 0.0), __dsub_rd(in_f64[(gid + 1u) & 63u], 1.5)), 0.0);
    float arr7[8];
    for (int j = 0; j < 8; ++j) arr7[j] = (float)in_f32[(gid * 5u + (unsigned)j) & 63u];
    unsigned i8 = (unsigned)__mulhi((int)((unsigned)v2 - (unsigned)3), (int)((unsigned)v2 << (7 & 31))) & 15u;
    while (i8 != 0) {
        unsigned i9 = ((0.1f < __uint_as_float(0x5f7fffffu)) ? (unsigned)__clz(v2) : (unsigned)__usad(286939513u, v1, 4294967295u)) & 7u;
        do {
            v4 = (long long)__popcll(p64);
            v4 = 32ll;
            switch (in_u32[(gid + 62u) & 63u] & 7u) {
            case 1:
            {
                v2 = (1 | v2);
                v3 -= (unsigned long long)__mul64hi(in_s64[19], v4);
            }
                break;
            case 2:
            {
                v4 = (long long)((unsigned long long)(long long)((unsigned long long)in_s64[(gid + 63u) & 63u] * (unsigned long long)(long long)((const signed char *)in_u32)[(gid * 5u + 50u) & 255u]) - (unsigned long long)(long long)(((unsigned long long)v1 << 32) | v1));
                v4 = (long long)~(long long)__ffsll((long long)__ffsll(v4));
            }
                break;
            case 3:
            {
                v2 = (int)__ffs((v2 ^ v2));
            }
                break;
            case 7:
            {
                float v10 = arr7[((unsigned)__rhadd(in_s32[(gid + 2u) & 63u], (int)((unsigned)(int)threadIdx.x + (unsigned)in_s32[(gid + 15u) & 63u])) & 7u)];
                v2 = v2;
            }
                break;
            default:
            {
                v2 = ((int)((unsigned)min(v2, in_s32[43]) * (unsigned)((v5 <= v5) ? (int)((const unsigned char *)in_s32)[(gid * 5u + 23u) & 255u] : v2)) & 256);
            }
            }
            if (((v2 != (int)threadIdx.x) || isnan(__longlong_as_double((long long)0x43efffffffffffffull)))) return;
        } while (i9-- > 1u);
        double v11 = (double)((int)(0u - (unsigned)min(v2, (int)(-1))));
        v11 = __ddiv_rd(-2.75, (double)(__fmul_ru(__ull2float_rn(v3), __fmaf_rn(v5, -3e-39f, v5))));
        arr7[((unsigned)(unsigned)(((unsigned long long)(unsigned)__popc(in_u32[46]) * v1) >> 32) & 7u)] = v5;
        i8 = i8 - 1u;
    }
    v5 = __fmaf_rn(__uint_as_float(0xcf000000u), __uint_as_float(v1), __uint_as_float(v1));
    float v12 = arr7[((unsigned)__rhadd((int)((unsigned)v2 + (unsigned)in_s32[(gid + 61u) & 63u]), (int)__ffs((int)gid)) & 7u)];
    v1 += cf_udiv(in_u32[28], v1);
    if ((((0.5 != __longlong_as_double((long long)0x43efffffffffffffull)) ? v6 : v6) == __ull2double_rz(24301ull))) {
        arr7[(((unsigned)((const unsigned char *)in_s32)[(gid * 1u + 17u) & 255u] - (gid - v1)) & 7u)] = __fmul_rz(__double2float_rd(v6), __frcp_rn(v12));
        v3 = 13623498947207279944ull;
    } else {
        unsigned v13 = (unsigned)__popc((unsigned)__funnelshift_rc((unsigned)__urhadd(v1, v1), (24164u ^ in_u32[(gid + 2u) & 63u]), (in_u32[63] | v1)));
        unsigned v14 = (v1 * v1);
        v14 = v13;
    }
    v6 = __dadd_rn(fmin((-(__dsub_ru(((v1 <= v1) ? v6 : v6), __dadd_rz(in_f64[(gid + 30u) & 63u], in_f64[(gid + 35u) & 63u])))), __dadd_rn(__longlong_as_double(((1e-310 < v6) ? v4 : (long long)blockIdx.x - 1)), v6)), 0.0);
    unsigned long long v15 = (unsigned long long)((unsigned long long)v3 << (10 & 63));
    float v16 = 16777216.0f;
    v3 &= (v3 + v3);
    arr7[((isnan(v6) ? (in_u32[24] - v1) : (unsigned)__clz(115)) & 7u)] = v12;
    unsigned long long v17 = cf_urem64(((11u != in_u32[(gid + 49u) & 63u]) ? v15 : in_u64[(gid + 54u) & 63u]), 255ull);
    v12 = __fsqrt_ru(((v16 < in_f32[34]) ? v12 : v12));
    if ((fabsf(v12) <= __fadd_rz(v5, 65504.0f))) {
        v6 = (double)((int)(-1863463931));
        float v18 = arr7[(v1 & 7u)];
    }
    switch (((unsigned)(unsigned)(((unsigned long long)v1 * v1) >> 32) >> ((n * in_u32[(gid + 63u) & 63u]) & 31)) & 7u) {
    case 0:
    {
        unsigned i19 = ((2u * 3621892358u) | (in_u32[17] | v1)) & 7u;
        do {
            v15 = 255ull;
            int a21 = (int)__ffs((int)__popc(in_u32[(gid + 29u) & 63u]));
            int v20 = abs(a21 == (int)0x80000000u ? 0 : a21);
            v16 = __uint_as_float(4u);
        } while (i19-- > 1u);
    }
        break;
    case 7:
    {
        unsigned long long v22 = (unsigned long long)(v2);
        switch (gid & 7u) {
        case 0:
        {
            v4 = (long long)((unsigned long long)(long long)__umul64hi(2ull, v3) + (unsigned long long)(long long)((unsigned long long)44ll + (unsigned long long)v4));
            int v23 = (int)((unsigned)v2 - (unsigned)(int)((const unsigned char *)in_u64)[(gid * 3u + 63u) & 511u]);
        }
            break;
        case 1:
        {
            v3 = (unsigned long long)__ffsll((long long)__ffsll(v4));
        }
            break;
        case 5:
        {
            arr7[((unsigned)(252645135ll) & 7u)] = __uint_as_float(0x3f7fffffu);
        }
            break;
        case 7:
        {
            v12 = (-(v5));
            v3 = (cf_udiv64(v3, p64) % (unsigned long long)(65537ll));
        }
            break;
        }
    }
    default:
    {
        unsigned long long v24 = 36876ull;
    }
    }
    out[gid * 6u + 0u] = cf_bits(v6);
    out[gid * 6u + 1u] = cf_bits(v5);
    out[gid * 6u + 2u] = cf_bits(v4);
    out[gid * 6u + 3u] = cf_bits(v12);
    out[gid * 6u + 4u] = cf_bits(v3);
    out[gid * 6u + 5u] = cf_bits(v2);
}
