#include "cf.h"

extern "C" __global__ void k(const unsigned *__restrict__ in_u32, const int *__restrict__ in_s32, const unsigned long long *__restrict__ in_u64, const long long *__restrict__ in_s64, const float *__restrict__ in_f32, const double *__restrict__ in_f64, unsigned long long *__restrict__ out, unsigned n, unsigned long long p64)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n) return;
    unsigned v1 = (unsigned)__popc(min(in_u32[(gid + 19u) & 63u], in_u32[39]));
    int v2 = (in_s32[(gid + 47u) & 63u] & (int)threadIdx.x);
    unsigned long long v3 = (unsigned long long)__mul64hi((long long)__popcll(in_u64[51]), (32ll & (long long)(-5878416790923266901ll)));
    long long v4 = (long long)((unsigned long long)(long long)((unsigned long long)14ll << (20 & 63)) << ((in_u32[24] + v1) & 63));
    float v5 = __fmul_rz(__fsub_rn(in_f32[(gid + 34u) & 63u], in_f32[(gid + 51u) & 63u]), __fsub_rn(0.0f, in_f32[(gid + 52u) & 63u]));
    double v6 = __drcp_rz((double)(63));
    unsigned arr7[4];
    for (int j = 0; j < 4; ++j) arr7[j] = in_u32[(gid * 7u + (unsigned)j) & 63u];
    if ((((33ull % (unsigned long long)(7ll)) & 2654435769ull) != 0)) {
        arr7[((unsigned)__ffs((int)__byte_perm(in_u32[46], n, 0x9856u)) & 3u)] = ((v1 ^ v1) + (unsigned)__clz(v2));
    } else {
        int v8 = (v2 & (int)threadIdx.x);
        v8 = min(v8, v8);
        long long v9 = ((long long)__ffsll((long long)__umul64hi(v3, (v3 * in_u64[11]))) | (long long)__umul64hi(2ull, ((v3 * (unsigned long long)gid * p64) | 32768ull)));
    }
    if ((((252645135ll & 3ll) != 0) || (9223372036854775808ull != v3))) {
        v1 = (unsigned)__clz((int)__usad(61528u, v1, v1));
        v3 *= (12ull * ((unsigned long long)((unsigned char)(unsigned long long)__mul64hi((long long)blockIdx.x - 1, (long long)(-1ll))) ^ (unsigned long long)(((unsigned long long)(v1 % (unsigned)(13)) << 32) | n)));
        v5 = __uint2float_rz((7666u - ((in_u64[44] != 3809094822326714308ull) ? in_u32[(gid + 13u) & 63u] : gid)));
    } else {
        v6 = __dmul_rn(__fma_rn(1e-310, 0.1, v6), __longlong_as_double((long long)blockIdx.x - 1));
        v4 = in_s64[(gid + 18u) & 63u];
        v3 = (unsigned long long)(((unsigned long long)(unsigned)__ffs(v2) << 32) | (v1 * in_u32[(gid + 40u) & 63u]));
    }
    v3 = ((unsigned long long)((unsigned short)(long long)__popcll(v3)) % (unsigned long long)(10ll));
    v4 = (long long)((short)((v1 >> ((int)__usad(v1, gid, v1) & 31)) & (8u * (unsigned)__clz((int)threadIdx.x))));
    unsigned long long v10 = (unsigned long long)__mul64hi(((long long)__umul64hi(31262ull, (unsigned long long)__ffsll(1ll)) & (long long)__brevll((in_u64[50] / (unsigned long long)(10ll)))), (long long)p64);
    arr7[((unsigned)(unsigned)(((unsigned long long)(unsigned)((unsigned)v1 << (2147483647u & 31)) * max(n, gid)) >> 32) & 3u)] = 4767u;
    int v11 = (int)__brev((unsigned)(unsigned)(((unsigned long long)(unsigned)__funnelshift_rc((unsigned)__brev(in_u32[(gid + 56u) & 63u]), gid, (unsigned)__clz(2147483647)) * v1) >> 32));
    if (((v10 == in_u64[(gid + 62u) & 63u]) && ((v5 <= in_f32[(gid + 18u) & 63u]) && (v3 > v10)))) {
        v1 = v1;
    } else {
        for (unsigned i12 = 0; i12 < ((unsigned)(unsigned)cf_bits(__fadd_rn(fmaxf(in_f32[40], v5), 0.0f)) & 15u); ++i12) {
            v11 = (int)__clz((int)__ffs(in_s32[41]));
            v6 = v6;
            v6 = __dmul_rn(v6, __dadd_rn(fmin(v6, 16777216.0), 0.0));
            if (isnan(v5)) continue;
            v4 = (long long)((unsigned long long)(long long)p64 * (unsigned long long)(long long)((unsigned long long)in_u32[15] * 63u));
        }
    }
    v1 = 63u;
    unsigned i13 = ((0.49999997f > 0.49999997f) ? (2u + gid) : (unsigned)~gid) & 15u;
    while (i13 != 0) {
        int v14 = (int)((unsigned)((in_u64[(gid + 46u) & 63u] <= 2654435769ull) ? max(8, v11) : 32) + (unsigned)(int)__usad((v1 - v1), ((0.5f >= 9.2233720368547758e18f) ? v1 : in_u32[(gid + 33u) & 63u]), (unsigned)__brev(v1)));
        v6 = __ull2double_rz(v3);
        v14 = ((int)__ffs(in_s32[4]) ^ (int)__hadd(v2, v11));
        if ((3u != in_u32[7])) break;
        v4 = ((long long)((unsigned long long)(long long)(((unsigned long long)v1 << 32) | in_u32[37]) << (v14 & 63)) >> (51 & 63));
        i13 = i13 & (i13 - 1u);
    }
    out[gid * 6u + 0u] = cf_bits(v4);
    out[gid * 6u + 1u] = cf_bits(v11);
    out[gid * 6u + 2u] = cf_bits(v2);
    out[gid * 6u + 3u] = cf_bits(v10);
    out[gid * 6u + 4u] = cf_bits(v1);
    out[gid * 6u + 5u] = cf_bits(v6);
}
