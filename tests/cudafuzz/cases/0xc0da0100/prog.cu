#include "cf.h"

extern "C" __global__ void k(const unsigned *__restrict__ in_u32, const int *__restrict__ in_s32, const unsigned long long *__restrict__ in_u64, const long long *__restrict__ in_s64, const float *__restrict__ in_f32, const double *__restrict__ in_f64, unsigned long long *__restrict__ out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)__popc(min(in_u32[(gid + 19u) & 63u], (unsigned)((const signed char *)in_u64)[(gid * 5u + 44u) & 511u]));
    int v2 = (((unsigned long long)((const unsigned short *)in_u32)[(gid * 3u + 46u) & 127u] < 38808ull) ? (int)((const unsigned short *)in_s64)[(gid * 3u + 6u) & 255u] : (int)__popc(v1));
    unsigned long long v3 = (unsigned long long)((long long)(int)(unsigned)cf_bits(in_f32[23]) * (int)__clz(0));
    long long v4 = ((in_f32[(gid + 6u) & 63u] <= __uint_as_float(0xff800000u)) ? (7ll >> (148 & 63)) : (long long)__umul64hi(v3, v3));
    float v5 = __fsub_rn(__fadd_rn(in_f32[62], in_f32[(gid + 37u) & 63u]), (float)(63));
    double v6 = __dsqrt_rn(-2.75);
    int arr7[4];
    for (int j = 0; j < 4; ++j) arr7[j] = (int)in_s32[(gid * 5u + (unsigned)j) & 63u];
    switch ((174u + max(n, v1)) & 7u) {
    case 1:
    {
        v6 = __ddiv_rd(((v4 < in_s64[(gid + 20u) & 63u]) ? __longlong_as_double((long long)0x43efffffffffffffull) : in_f64[(gid + 48u) & 63u]), __longlong_as_double(v4));
    }
    case 5:
    {
        int v8 = (int)__popc((unsigned)__umulhi(255u, v1));
        long long v9 = v4;
    }
        break;
    case 6:
    {
        v4 = (long long)((unsigned long long)(in_s64[(gid + 38u) & 63u] ^ v4) * (unsigned long long)v4);
    }
        break;
    default:
    {
        v3 = (32768ull | p64);
    }
    }
    switch (((unsigned)(unsigned)(((unsigned long long)32u * v1) >> 32) - (unsigned)((unsigned)252645135u << (v1 & 31))) & 7u) {
    case 4:
    {
        unsigned v10 = 3533151662u;
        unsigned long long v11 = (unsigned long long)((v3 >> 59) & 0x1full);
    }
        break;
    case 6:
    {
        v6 = (double)(__uint_as_float(0x4effffffu));
        unsigned v12 = n;
    }
        break;
    case 7:
    {
        float v13 = __uint2float_rz((7666u - (((unsigned long long)((const unsigned char *)in_u64)[(gid * 3u + 58u) & 511u] != v3) ? v1 : gid)));
        v6 = __dmul_ru(0.1, 1e-310);
    }
        break;
    default:
    {
        v3 = (unsigned long long)((unsigned long long)(unsigned)__clz(2) * (v1 >> (29 & 31)));
    }
    }
    int v14 = (int)((unsigned)in_s32[(gid + 40u) & 63u] + (unsigned)(int)gid);
    v5 = (isnan(__fdiv_rz(v5, in_f32[(gid + 32u) & 63u])) ? (float)((v14 >> ((unsigned)((const short *)in_u64)[(gid * 3u + 6u) & 255u] & 31))) : __fsub_ru(3.4028235e38f, 16777217.0f));
    v3 = (unsigned long long)((unsigned long long)in_u32[62] * v1);
    v3 |= 31262ull;
    unsigned i15 = (unsigned)(unsigned)(((unsigned long long)(unsigned)__brev(n) * (unsigned)(unsigned)cf_bits(16777217.0f)) >> 32) & 15u;
    while (i15 != 0) {
        v1 = (unsigned)((v1 & ~(0x1fffu << 19)) | ((max(4294967295u, 32u) & 0x1fffu) << 19));
        v5 = ((v3 < v3) ? __fadd_rn(fminf(__fmaf_rn(in_f32[(gid + 51u) & 63u], 1.5f, in_f32[(gid + 56u) & 63u]), __uint_as_float(0xff800000u)), 0.0f) : __frcp_ru(v5));
        i15 = i15 >> 1;
    }
    v5 = __fmul_ru(__uint_as_float(6u), (float)(v3));
    v3 = 1ull;
    for (unsigned i16 = 0; i16 < ((v1 + (20875u - in_u32[(gid + 41u) & 63u])) & 7u); ++i16) {
        unsigned i17 = max((unsigned)(unsigned)(((unsigned long long)i16 * gid) >> 32), (unsigned)__ffs((int)((const unsigned char *)in_u64)[(gid * 3u + 44u) & 511u])) & 7u;
        do {
            float c19 = __fsub_rn(9.2233720368547758e18f, v5);
            unsigned long long v18 = (((isnan(c19) ? (unsigned long long)0 : __float2ull_ru(c19)) & ((unsigned long long)(2654435769ll) - v3)) & (unsigned long long)((unsigned long long)(256u | (unsigned)(unsigned)cf_bits(-1.0f)) * i16));
            if ((((0.49999997f > 0.49999997f) ? (long long)p64 : 2ll) >= (long long)((unsigned long long)v4 + (unsigned long long)v4))) {
                v18 |= v3;
            } else {
                v4 = v4;
                v2 = (int)((unsigned)(int)__brev(33u) - (unsigned)v2);
            }
            int v20 = (int)__mulhi((isnan(0.5) ? (int)__byte_perm(i16, (unsigned)((const short *)in_u64)[(gid * 5u + 20u) & 255u], 0x1b75u) : (int)((4u >> 18) & 0xfu)), (int)__sad(((int)((const signed char *)in_u32)[(gid * 3u + 45u) & 255u] ^ (int)gid), max(v14, 3), (unsigned)__brev(in_u32[7])));
        } while (i17-- > 1u);
        unsigned i21 = i16 & 15u;
        while (i21 != 0) {
            v2 = (int)(-1640531527);
            if ((v5 <= 1e10f)) break;
            unsigned v22 = (256u >> (10 & 31));
            v5 = ((!isnan(v5) || ((in_u32[(gid + 50u) & 63u] != 4138244373u) || ((v6 < v6) && ((unsigned long long)((const signed char *)in_u64)[(gid * 1u + 15u) & 511u] == v3)))) ? __fadd_rn(__saturatef(in_f32[41]), 0.0f) : __fdiv_rn(v5, __fadd_rn(fmaxf(__double2float_rn(__longlong_as_double((long long)0x41dfffffffc00000ull)), ((v6 > -1e-3) ? in_f32[(gid + 17u) & 63u] : v5)), 0.0f)));
            i21 = i21 & (i21 - 1u);
        }
        v4 = v4;
    }
    out[gid * 6u + 0u] = cf_bits(v6);
    out[gid * 6u + 1u] = cf_bits(v3);
    out[gid * 6u + 2u] = cf_bits(v4);
    out[gid * 6u + 3u] = cf_bits(v1);
    out[gid * 6u + 4u] = cf_bits(v5);
    out[gid * 6u + 5u] = cf_bits(v2);
}
