#include "cf.h"

extern "C" __global__ void k(const unsigned * in_u32, const int * in_s32, const unsigned long long * in_u64, const long long * in_s64, const float * in_f32, const double * in_f64, unsigned long long * out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)__brev(max((unsigned)((const signed char *)in_s32)[(gid * 1u + 35u) & 255u], gid));
    int v2 = (int)__popc((unsigned)__uhadd(2654435769u, in_u32[(gid + 57u) & 63u]));
    unsigned long long v3 = (unsigned long long)__clzll(((long long)blockIdx.x - 1 % (long long)(-3ll)));
    long long v4 = (long long)((unsigned long long)(unsigned)__umulhi(v1, 1028731803u) * (unsigned)__umulhi(in_u32[(gid + 14u) & 63u], v1));
    float v5 = (float)((unsigned)__byte_perm(v1, v1, 0xc88cu));
    double v6 = __dmul_rn((((int)((const unsigned short *)in_u64)[(gid * 3u + 63u) & 255u] > (int)threadIdx.x) ? -2.75 : 0.30000000000000004), __ddiv_rn(in_f64[15], in_f64[(gid + 33u) & 63u]));
    double arr7[16];
    for (int j = 0; j < 16; ++j) arr7[j] = (double)in_f64[(gid * 7u + (unsigned)j) & 63u];
    double arr8[16];
    for (int j = 0; j < 16; ++j) arr8[j] = (double)in_f64[(gid * 5u + (unsigned)j) & 63u];
    unsigned i9 = in_u32[(gid + 48u) & 63u] & 7u;
    do {
        v1 = ((in_u32[(gid + 32u) & 63u] ^ in_u32[11]) * (unsigned)__brev(v1));
    } while (i9-- > 1u);
    arr8[((unsigned)__clz(min(v2, v2)) & 15u)] = fabs((double)(v4));
    int v10 = (int)((const unsigned short *)in_u64)[(gid * 3u + 44u) & 255u];
    if (((in_s32[(gid + 58u) & 63u] < v10) || !(v3 != in_u64[(gid + 5u) & 63u]))) {
        switch (((v1 >> (4 & 31)) + (unsigned)((v1 >> 8) & 0x7u)) & 7u) {
        case 1:
        {
            int v11 = (int)((unsigned)(int)((unsigned)256 + (unsigned)min(in_s32[50], v10)) << ((int)(((unsigned)__clz((int)threadIdx.x) & ~(0x1u << 31)) | (((v1 | in_u32[(gid + 41u) & 63u]) & 0x1u) << 31)) & 31));
            v6 = __ddiv_rn(v6, __longlong_as_double((long long)0xfff0000000000000ull));
        }
            break;
        case 4:
        {
            v1 ^= (unsigned)~(unsigned)__rhadd((int)__umulhi(v1, ((v4 != 2654435769ll) ? in_u32[(gid + 18u) & 63u] : 32768u)), (int)(unsigned)cf_bits(__fadd_rn(fmaxf(v5, v5), 0.0f)));
        }
            break;
        default:
        {
            double v12 = __dsub_rd(fabs(0.1), __dadd_rn(fmax(v6, v6), 0.0));
        }
        }
        v1 = (unsigned)(unsigned)cf_bits(0.49999997f);
    } else {
        int v13 = (int)__popc((2u * n));
        int v14 = (int)((unsigned)v13 * (unsigned)(int)__rhadd(v13, v10));
        if (((unsigned)((v1 >> 25) & 0x7fu) >= (unsigned)__uhadd(v1, v1))) {
            arr7[((unsigned)__sad((int)((unsigned)v13 + (unsigned)(int)gid), (int)((const short *)in_u64)[(gid * 5u + 61u) & 255u], (gid ^ 3523595506u)) & 15u)] = __dmul_rn(in_f64[(gid + 63u) & 63u], __ddiv_rd(in_f64[11], v6));
            v14 = (int)((unsigned)(int)__uhadd((unsigned)((const short *)in_s32)[(gid * 3u + 32u) & 127u], v1) + (unsigned)(int)((unsigned)v13 << (v14 & 31)));
            v5 = __double2float_rd(in_f64[(gid + 30u) & 63u]);
        } else {
            long long v15 = (long long)(in_u32[(gid + 14u) & 63u]);
            int v16 = (int)(unsigned)(((unsigned long long)(unsigned)__mulhi((int)((unsigned)v14 - (unsigned)1431655765), v2) * (unsigned)((signed char)32768)) >> 32);
            v6 = __dadd_rn(fmax(fabs(v6), __fma_rn(__longlong_as_double((long long)0xc3e0000000000000ull), -2147483904.0, v6)), 0.0);
        }
    }
    v3 = 7ull;
    v5 = __fadd_rn(__saturatef(__fadd_ru(__fmaf_rz(__fsqrt_rd(-2147483904.0f), __fmaf_rn(v5, v5, v5), __uint_as_float(v1)), ((in_f64[20] == in_f64[(gid + 37u) & 63u]) ? __fmul_rn(v5, -1e-3f) : __fmaf_rn(1e-40f, v5, v5)))), 0.0f);
    v4 = max((long long)(((unsigned long long)(unsigned)(unsigned)cf_bits(v5) << 32) | (v1 + in_u32[(gid + 41u) & 63u])), (long long)__ffsll((long long)((in_u64[22] & ~(0x1ffffffffffull << 23)) | ((v3 & 0x1ffffffffffull) << 23))));
    unsigned v17 = (v1 * ((unsigned)__mulhi((int)((const signed char *)in_s32)[(gid * 1u + 21u) & 255u], v10) | (in_u32[(gid + 14u) & 63u] + 1u)));
    v4 = (long long)((unsigned long long)v4 << (30 & 63));
    out[gid * 6u + 0u] = cf_bits(v1);
    out[gid * 6u + 1u] = cf_bits(v5);
    out[gid * 6u + 2u] = cf_bits(v4);
    out[gid * 6u + 3u] = cf_bits(v2);
    out[gid * 6u + 4u] = cf_bits(v6);
    out[gid * 6u + 5u] = cf_bits(v3);
}
