#include "cf.h"

extern "C" __global__ void k(const unsigned *__restrict__ in_u32, const int *__restrict__ in_s32, const unsigned long long *__restrict__ in_u64, const long long *__restrict__ in_s64, const float *__restrict__ in_f32, const double *__restrict__ in_f64, unsigned long long *__restrict__ out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = ((unsigned)__usad(in_u32[(gid + 27u) & 63u], (unsigned)((const short *)in_s64)[(gid * 1u + 51u) & 255u], 252645135u) * ((unsigned)((const unsigned char *)in_u64)[(gid * 1u + 52u) & 511u] * (unsigned)((const unsigned char *)in_u32)[(gid * 1u + 53u) & 255u]));
    double c3 = __dadd_rn(fmax(in_f64[(gid + 31u) & 63u], in_f64[11]), 0.0);
    int v2 = (isnan(c3) ? (int)0 : __double2int_rz(c3));
    unsigned long long v4 = ((unsigned long long)((const short *)in_s64)[(gid * 1u + 32u) & 255u] + (32768ull * 3ull));
    long long v5 = (252645135ll >> (in_s32[(gid + 39u) & 63u] & 63));
    float v6 = __fmaf_rn(__fsub_rn(1e-40f, in_f32[(gid + 54u) & 63u]), __fsub_rn(in_f32[(gid + 8u) & 63u], in_f32[(gid + 7u) & 63u]), ((in_f64[(gid + 14u) & 63u] < in_f64[(gid + 1u) & 63u]) ? in_f32[(gid + 62u) & 63u] : in_f32[(gid + 38u) & 63u]));
    double v7 = __dadd_rn(fmax((double)(14ll), (double)(v1)), 0.0);
    long long v8 = (long long)__ffsll((long long)__popcll((unsigned long long)__popcll(52761ull)));
    if ((__frcp_ru(in_f32[(gid + 13u) & 63u]) >= __ll2float_rd(v5))) {
        v8 = (long long)__popcll((unsigned long long)((unsigned long long)(unsigned long long)((unsigned long long)256ull << (8 & 63)) << ((255 % (int)(2147483647)) & 63)));
        unsigned i9 = (unsigned)__uhadd((unsigned)__popc(81u), (gid - 3u)) & 15u;
        while (i9 != 0) {
            v6 = (float)((int)(unsigned)cf_bits(__fmul_rn(v6, 0.49999997f)));
            v2 = (int)__urhadd(n, v1);
            v6 = v6;
            v7 = __longlong_as_double((long long)__popcll((unsigned long long)((const short *)in_s32)[(gid * 3u + 40u) & 127u]));
            i9 = i9 >> 1;
        }
        v6 = __fadd_rn(fminf(v6, v6), 0.0f);
    }
    unsigned v10 = (unsigned)((const signed char *)in_u64)[(gid * 5u + 0u) & 511u];
    switch ((unsigned)__ffs((65535 & v2)) & 7u) {
    case 7:
    {
        switch ((unsigned)__sad((int)threadIdx.x, (int)__brev(256u), (n | v10)) & 7u) {
        case 0:
        {
            v1 = (unsigned)~(((long long)((const signed char *)in_u32)[(gid * 5u + 15u) & 255u] < (long long)p64) ? v1 : v1);
        }
            break;
        case 1:
        {
            v6 = __uint_as_float((unsigned)__ffs(v2));
            v2 = (int)__rhadd((int)__rhadd(v2, (int)((const unsigned short *)in_s32)[(gid * 5u + 32u) & 127u]), (int)__clz(v2));
        }
            break;
        case 2:
        {
            v10 = ((unsigned)__uhadd(gid, v10) * (2u >> (1 & 31)));
        }
            break;
        default:
        {
            int v11 = (((__uint_as_float(0x80000001u) > v6) && (0.49999997 == __longlong_as_double((long long)0x43efffffffffffffull))) ? (in_s32[(gid + 23u) & 63u] % (int)(1000)) : (48918 ^ v2));
        }
        }
    }
        break;
    default:
    {
        unsigned v12 = (cf_udiv(v10, v1) | (unsigned)(1ull));
    }
    }
    switch ((unsigned)__byte_perm((unsigned)__byte_perm(0u, in_u32[49], 0xea53u), (unsigned)(unsigned)cf_bits(v6), 0x5085u) & 7u) {
    case 1:
    {
        v1 = ((((long long)__mul64hi(v5, v5) < (201ll % (long long)(-7ll))) ? (unsigned)__usad((unsigned)__rhadd(v2, v2), (gid + in_u32[40]), (unsigned)__umulhi(v10, gid)) : (unsigned)(unsigned)(((unsigned long long)(33u * v10) * (unsigned)__clz(v2)) >> 32)) % (unsigned)(641));
        int v13 = (int)(unsigned)(((unsigned long long)v1 * v1) >> 32);
    }
        break;
    case 4:
    {
        if (((97ull == (unsigned long long)gid * p64) && ((in_u32[36] & 45700u) != 0))) {
            unsigned i14 = (unsigned)(unsigned)(((unsigned long long)cf_udiv(224u, v10) * v10) >> 32) & 7u;
            do {
                v10 = (unsigned)__popc((in_u32[34] ^ v10));
                v8 = (long long)((long long)(int)__brev((unsigned)(unsigned)cf_bits(0.5f)) * (int)((unsigned)((int)__clz(v2) | (int)__urhadd(32u, 64u)) << (12 & 31)));
            } while (i14-- > 1u);
            unsigned long long v15 = v4;
            v1 = (unsigned)((signed char)(long long)__mul64hi(v8, v8));
        } else {
            unsigned i16 = ((unsigned)__mulhi((int)threadIdx.x, v2) * (unsigned)__uhadd(v1, v1)) & 15u;
            while (i16 != 0) {
                v6 = __fsub_rd(v6, in_f32[(gid + 48u) & 63u]);
                v4 = (unsigned long long)__popcll(9223372036854775807ull);
                v6 = __uint_as_float(0x5f7fffffu);
                v10 ^= (unsigned)__sad(v2, v2, v1);
                v6 = __fadd_rn(fminf(v6, __fadd_rn(fminf(__frcp_rn(in_f32[(gid + 34u) & 63u]), __uint_as_float(2147483648u)), 0.0f)), 0.0f);
                i16 = i16 - 1u;
            }
            for (unsigned i17 = 0; i17 < ((unsigned)(0u - (unsigned)(v1 | v10)) & 3u); ++i17) {
                int v18 = v2;
                double v19 = (((2u & 3u) != 0) ? __ddiv_rz(__longlong_as_double((long long)0x7ff8000000000000ull), v7) : __ddiv_rn(__longlong_as_double((long long)0xc3e0000000000000ull), __longlong_as_double((long long)0xfff0000000000000ull)));
                v10 = cf_urem((v10 % (unsigned)(100)), (unsigned)~v10);
            }
        }
        v5 = v8;
    }
    default:
    {
        v1 |= (unsigned)__ffs(v2);
    }
    }
    out[gid * 6u + 0u] = cf_bits(v8);
    out[gid * 6u + 1u] = cf_bits(v5);
    out[gid * 6u + 2u] = cf_bits(v6);
    out[gid * 6u + 3u] = cf_bits(v10);
    out[gid * 6u + 4u] = cf_bits(v2);
    out[gid * 6u + 5u] = cf_bits(v4);
}
