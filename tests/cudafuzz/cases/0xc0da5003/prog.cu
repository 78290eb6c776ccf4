#include "cf.h"

extern "C" __global__ void k(const unsigned *__restrict__ in_u32, const int *__restrict__ in_s32, const unsigned long long *__restrict__ in_u64, const long long *__restrict__ in_s64, const float *__restrict__ in_f32, const double *__restrict__ in_f64, unsigned long long *__restrict__ out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)((unsigned)((unsigned)((const unsigned char *)in_s32)[(gid * 3u + 21u) & 255u] - (unsigned)((const unsigned short *)in_u64)[(gid * 5u + 45u) & 255u]) << (26 & 31));
    int v2 = (int)((const unsigned short *)in_u64)[(gid * 1u + 26u) & 255u];
    unsigned long long v3 = ((unsigned long long)gid * p64 / (unsigned long long)(65537ll));
    long long v4 = (long long)(((unsigned long long)(32768u * v1) << 32) | (unsigned)__brev(in_u32[(gid + 60u) & 63u]));
    float v5 = in_f32[51];
    double v6 = __longlong_as_double((long long)p64);
    unsigned long long arr7[16];
    for (int j = 0; j < 16; ++j) arr7[j] = (unsigned long long)in_u64[(gid * 5u + (unsigned)j) & 63u];
    v4 = min(v4, (long long)0x8000000000000000ull);
    v2 = v2;
    v1 &= (unsigned)__umulhi(v1, 1602593244u);
    if (!isnan(in_f32[(gid + 47u) & 63u])) {
        v6 = (double)(v1);
        switch ((((v6 >= __longlong_as_double((long long)0x3fefffffffffffffull)) ? v1 : 2147483648u) * cf_urem(gid, v1)) & 7u) {
        case 2:
        {
            v3 = v3;
            for (unsigned i8 = 0; i8 < (6u & 7u); ++i8) {
                float v9 = (float)((int)__umulhi(i8, (unsigned)__usad(v1, in_u32[(gid + 25u) & 63u], (unsigned)((const unsigned char *)in_s64)[(gid * 5u + 30u) & 511u])));
                v2 = (int)__rhadd((15909 / (int)(5)), (int)__byte_perm(in_u32[(gid + 36u) & 63u], in_u32[(gid + 5u) & 63u], 0xa51au));
                int v10 = (int)__popc(((unsigned)__brev(in_u32[14]) + (unsigned)__clz((int)__brev(v1))));
                float v11 = __fmaf_rz(v5, -0.0f, 0.5f);
            }
        }
            break;
        case 6:
        {
            v3 = (unsigned long long)__clzll(87ll);
        }
            break;
        default:
        {
            v5 = __fdiv_ru(v5, v5);
        }
        }
        v3 = max(p64, v3);
    } else {
        unsigned long long v12 = in_u64[(gid + 48u) & 63u];
        unsigned i13 = ((unsigned)((unsigned)v1 << ((int)threadIdx.x & 31)) + (unsigned)__mulhi(1048020438, (int)((const signed char *)in_u64)[(gid * 3u + 29u) & 511u])) & 7u;
        do {
            unsigned long long v14 = (63448ull % (unsigned long long)(65537ll));
            if ((v3 != v12)) break;
            unsigned long long v15 = arr7[(cf_urem((unsigned)__sad((int)((const unsigned short *)in_u64)[(gid * 5u + 29u) & 255u], v2, (unsigned)((const unsigned char *)in_s32)[(gid * 3u + 30u) & 255u]), 2u) & 15u)];
            switch ((unsigned)(((unsigned)(unsigned)(((unsigned long long)v1 * v1) >> 32) >> 12) & 0xfffffu) & 7u) {
            case 1:
            {
                int v16 = 149;
                float v17 = ((__float2uint_rd(v5) <= (unsigned)(unsigned)cf_bits(__uint_as_float(0xcf000000u))) ? __fadd_rn(fmaxf(fabsf(v5), __fmul_rn(v5, 0.5f)), 0.0f) : (((__uint_as_float(0x80000001u) == v5) || (63 > v2)) ? __fsub_rn(in_f32[6], v5) : __fdiv_rd(v5, v5)));
            }
                break;
            case 2:
            {
                arr7[((256u + (unsigned)__sad(v2, 255, 32u)) & 15u)] = ((v5 <= 1.0f) ? v12 : (6328ull ^ in_u64[11]));
            }
                break;
            case 5:
            {
                v14 = ((32ll != (long long)p64) ? v15 : (unsigned long long)__mul64hi(32ll, (long long)(-279740222622679767ll)));
            }
            }
        } while (i13-- > 1u);
    }
    if (((unsigned long long)((const short *)in_u32)[(gid * 3u + 48u) & 127u] >= ((33 < v2) ? v3 : v3))) {
        switch (((unsigned)__umulhi(182u, v1) | ((v4 > in_s64[(gid + 3u) & 63u]) ? 14u : v1)) & 7u) {
        case 2:
        {
            unsigned long long v18 = arr7[((unsigned)__ffs(in_s32[(gid + 6u) & 63u]) & 15u)];
            v5 = __double2float_rd(__ddiv_rn(v6, v6));
        }
            break;
        case 3:
        {
            arr7[(max((unsigned)__mulhi(in_s32[36], v2), (n & in_u32[(gid + 51u) & 63u])) & 15u)] = p64;
            v1 = (unsigned)__urhadd(7u, in_u32[19]);
        }
            break;
        default:
        {
            float v19 = __uint_as_float(0x7fc00000u);
        }
        }
    } else {
        switch (((v1 | v1) + (unsigned)__byte_perm(v1, 911708304u, 0x3856u)) & 7u) {
        case 5:
        {
            v4 = (long long)__clzll((long long)((unsigned long long)(long long)__popcll(v3) << (1 & 63)));
            v6 = (!(6ull > 7ull) ? __dadd_rn(4294967296.0, 1.5) : __longlong_as_double(v4));
        }
            break;
        default:
        {
            unsigned long long v20 = arr7[((unsigned)(unsigned)(((unsigned long long)((v6 == v6) ? 1u : 4294967295u) * v1) >> 32) & 15u)];
        }
        }
    }
    arr7[((unsigned)__mulhi(v2, (int)__clz((int)(-2091446953))) & 15u)] = ((((long long)((const signed char *)in_s64)[(gid * 1u + 7u) & 511u] == 32768ll) ? v3 : 32ull) * v3);
    v2 = (int)__popc((unsigned)__clz((int)__byte_perm(v1, v1, 0x5c67u)));
    v5 = __uint_as_float((unsigned)__uhadd(in_u32[(gid + 9u) & 63u], gid));
    unsigned i21 = (unsigned)(((unsigned)(v1) & ~(0xffu << 5)) | (((unsigned)(unsigned)(((unsigned long long)178u * v1) >> 32) & 0xffu) << 5)) & 7u;
    do {
        v4 = (((long long)blockIdx.x - 1 | (long long)(-1ll)) & (long long)__clzll(v4));
        unsigned i22 = (unsigned)((const signed char *)in_s64)[(gid * 1u + 44u) & 511u] & 15u;
        while (i22 != 0) {
            int v23 = 32768;
            unsigned long long v24 = (unsigned long long)((long long)(int)((unsigned)(int)__umulhi(256u, 2654435769u) + (unsigned)(int)__urhadd(v1, v1)) * v23);
            i22 = i22 - 1u;
        }
        if ((isnan(v6) || ((32768ll & 33ll) != 0))) {
            arr7[((((v5 == v5) ? in_u32[60] : v1) | min(v1, n)) & 15u)] = ((unsigned long long)((unsigned long long)v1 * 7u) + (unsigned long long)(((unsigned long long)10940u << 32) | v1));
            unsigned long long v25 = (unsigned long long)((long long)in_s32[(gid + 63u) & 63u] * (int)((const unsigned short *)in_s64)[(gid * 5u + 63u) & 255u]);
        }
    } while (i21-- > 1u);
    out[gid * 6u + 0u] = cf_bits(v1);
    out[gid * 6u + 1u] = cf_bits(v2);
    out[gid * 6u + 2u] = cf_bits(v5);
    out[gid * 6u + 3u] = cf_bits(v6);
    out[gid * 6u + 4u] = cf_bits(v4);
    out[gid * 6u + 5u] = cf_bits(v3);
}
