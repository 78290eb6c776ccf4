#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = gid;
    int v2 = (int)__sad((int)((signed char)(int)((const unsigned char *)in_s64)[(gid * 1u + 49u) & 511u]), (int)((const signed char *)in_u64)[(gid * 5u + 56u) & 511u], (unsigned)__umulhi(v1, (unsigned)((const signed char *)in_s32)[(gid * 1u + 35u) & 255u]));
    unsigned long long v3 = (unsigned long long)__clzll((long long)((short)141));
    long long v4 = min((long long)((unsigned long long)1431655765ll + (unsigned long long)(long long)((const short *)in_u64)[(gid * 3u + 61u) & 255u]), ((long long)((const unsigned char *)in_u64)[(gid * 3u + 55u) & 511u] ^ (long long)((const short *)in_u32)[(gid * 3u + 62u) & 127u]));
    float v5 = __fadd_rn(__saturatef(__fadd_rn(in_f32[(gid + 59u) & 63u], in_f32[17])), 0.0f);
    double v6 = __dadd_rn(in_f64[(gid + 59u) & 63u], fabs(in_f64[(gid + 55u) & 63u]));
    unsigned long long arr7[4];
    for (int j = 0; j < 4; ++j) arr7[j] = (unsigned long long)in_u64[(gid * 7u + (unsigned)j) & 63u];
    v6 = in_f64[(gid + 24u) & 63u];
    long long v8 = (long long)((unsigned long long)(long long)__brevll(min((v3 & (unsigned long long)((const short *)in_s64)[(gid * 5u + 20u) & 255u]), (in_u64[2] + v3))) * (unsigned long long)(long long)(v3));
    if ((((unsigned)((const unsigned char *)in_u32)[(gid * 3u + 11u) & 255u] ^ v1) <= v1)) return;
    unsigned i9 = ((unsigned)__mulhi(32768, v2) ^ ((v6 >= v6) ? v1 : v1)) & 15u;
    while (i9 != 0) {
        double v10 = in_f64[(gid + 59u) & 63u];
        long long v11 = (long long)(0ull - (unsigned long long)(((unsigned long long)((const short *)in_u32)[(gid * 3u + 41u) & 127u] > v3) ? (long long)p64 : 31900ll));
        i9 = i9 - 1u;
    }
    v1 = (unsigned)(((unsigned)__clz(v2) & ~(0x1fu << 5)) | (((unsigned)__funnelshift_l((unsigned)__clz(v2), (unsigned)__hadd(v2, in_s32[(gid + 7u) & 63u]), (0u | 10u)) & 0x1fu) << 5));
    double v12 = __dadd_rn((-(__dadd_rn(fmax(__dsub_ru(v6, 1.8446744073709552e19), ((v3 == v3) ? 0.0 : v6)), 0.0))), __dadd_rn(fmin(__fma_rn(__ull2double_rz(v3), __dmul_rn(v6, __longlong_as_double((long long)0xfff0000000000000ull)), __longlong_as_double((long long)blockIdx.x - 1)), __dsub_rd(((0.30000000000000004 != -2147483904.0) ? v6 : v6), v6)), 0.0));
    v1 = ((unsigned)(unsigned)(((unsigned long long)(unsigned)__usad(v1, in_u32[(gid + 33u) & 63u], v1) * (n + 4294967295u)) >> 32) + ((v1 ^ v1) - (unsigned)((v1 & ~(0xffu << 24)) | ((113u & 0xffu) << 24))));
    float v13 = __fmaf_rn(__uint_as_float(256u), __fsub_ru(((v12 <= -1.0) ? 4294967296.0f : __uint_as_float(0x5f7fffffu)), __fsub_rn(in_f32[24], v5)), (-(__fsqrt_rd(v5))));
    v4 = (long long)__popcll((unsigned long long)((long long)(int)((unsigned)(int)__hadd((int)gid, 44987) + (unsigned)(int)((256u >> 18) & 0x3fffu)) * v2));
    v8 = ((long long)__popcll(63ull) % (long long)(-13ll));
    unsigned long long v14 = arr7[((unsigned)__ffs((int)((unsigned)38932 + (unsigned)(int)gid)) & 3u)];
    if (isnan(__fsqrt_rn(in_f32[(gid + 10u) & 63u]))) {
        long long a16 = v8;
        unsigned long long v15 = (((1ull * v14) * v14) * max((unsigned long long)__mul64hi(llabs(a16 == (long long)0x8000000000000000ull ? 0 : a16), (long long)(((unsigned long long)in_u32[(gid + 20u) & 63u] << 32) | v1)), (unsigned long long)(((unsigned long long)(unsigned)((short)64u) << 32) | gid)));
        v6 = ((((v15 * (unsigned long long)((const short *)in_s32)[(gid * 1u + 16u) & 127u]) & 2ull) != 0) ? __fma_ru(0.30000000000000004, v6, v6) : v12);
        if ((((252645135ull * v15) & 8943ull) != 0)) return;
    } else {
        unsigned long long v17 = (unsigned long long)__ffsll((long long)((long long)(int)gid * (v2 ^ v2)));
        v3 = v14;
        unsigned i18 = v1 & 7u;
        do {
            v3 = 3990660280310556623ull;
            int v19 = (int)((unsigned)in_s32[20] + (unsigned)v2);
            v2 = v2;
        } while (i18-- > 1u);
    }
    unsigned i20 = v1 & 7u;
    do {
        long long v21 = (long long)blockIdx.x - 1;
        if (!(in_u64[10] < in_u64[(gid + 12u) & 63u])) break;
        switch (cf_urem((unsigned)(0u - (unsigned)v1), (unsigned)((int)((const short *)in_s64)[(gid * 5u + 42u) & 255u])) & 7u) {
        case 4:
        {
            switch ((unsigned)__sad((int)(v2), (int)((v1 & ~(0x7ffu << 21)) | ((63u & 0x7ffu) << 21)), n) & 7u) {
            case 0:
            {
                v5 = __fsub_rn(__fadd_rn(__saturatef(v5), 0.0f), (-(__uint_as_float(0xcf000000u))));
            }
                break;
            case 1:
            {
                v13 = -3e-39f;
                unsigned v22 = in_u32[30];
            }
                break;
            case 3:
            {
                unsigned long long v23 = (unsigned long long)__umul64hi(in_u64[(gid + 39u) & 63u], v14);
                long long v24 = (long long)((long long)(int)((unsigned)(int)~(int)__umulhi(256u, in_u32[12]) + (unsigned)(int)((unsigned)(int)__byte_perm(gid, v1, 0x8c6eu) << (9 & 31))) * ((int)__umulhi((unsigned)(unsigned)cf_bits(v5), (in_u32[(gid + 59u) & 63u] & 3u)) >> (10 & 31)));
            }
                break;
            case 4:
            {
                unsigned v25 = (max(v1, (unsigned)__brev(((250ll > v21) ? v1 : gid))) % (unsigned)(100));
                unsigned long long v26 = arr7[((unsigned)__urhadd((3u - v25), (unsigned)__popc(v1)) & 3u)];
            }
                break;
            }
            long long a27 = in_s64[(gid + 27u) & 63u];
            v8 = (long long)__mul64hi(((long long)blockIdx.x - 1 ^ llabs(a27 == (long long)0x8000000000000000ull ? 0 : a27)), (long long)((unsigned long long)(long long)((unsigned long long)(long long)p64 + (unsigned long long)252645135ll) * (unsigned long long)(long long)((unsigned long long)3u * 4294967295u)));
        }
            break;
        case 5:
        {
            double v28 = __longlong_as_double((long long)(0ull - (unsigned long long)((long long)((unsigned long long)51231ll + (unsigned long long)v4) >> (in_u32[(gid + 54u) & 63u] & 63))));
        }
            break;
        default:
        {
            if (((long long)__clzll(v8) == (long long)__brevll(v14))) {
                v4 = in_s64[(gid + 8u) & 63u];
                v12 = __fma_rd(v6, __longlong_as_double((long long)0xfff0000000000000ull), 16777216.0);
                unsigned long long v29 = arr7[(((unsigned)(unsigned)cf_bits(v5) - (unsigned)__umulhi(v1, in_u32[(gid + 58u) & 63u])) & 3u)];
            } else {
                v12 = __dmul_rd(-4.9e-324, v12);
                int v30 = (int)__sad(v2, 2147483647, v1);
                unsigned long long v31 = arr7[((unsigned)__usad(in_u32[(gid + 36u) & 63u], ((v21 >= (long long)((const signed char *)in_u64)[(gid * 1u + 21u) & 511u]) ? v1 : v1), (gid | 2654435769u)) & 3u)];
            }
        }
        }
    } while (i20-- > 1u);
    out[gid * 6u + 0u] = cf_bits(v8);
    out[gid * 6u + 1u] = cf_bits(v5);
    out[gid * 6u + 2u] = cf_bits(v14);
    out[gid * 6u + 3u] = cf_bits(v13);
    out[gid * 6u + 4u] = cf_bits(v4);
    out[gid * 6u + 5u] = cf_bits(v1);
}
