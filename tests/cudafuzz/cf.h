// The environment every generated program (cases/*.cu) is compiled in, for three compilers:
//   nvcc      (__CUDACC__, not __clang__): CUDA's own headers give every intrinsic;
//   clang-16  (__clang__ and __CUDA__, -nocudainc -nocudalib): no CUDA headers, so the
//             intrinsics are defined here on clang's NVVM builtins (one PTX instruction each);
//   the host  (neither): g++ -std=c++20 -O1 -ffp-contract=off -frounding-math; every intrinsic
//             is written here from its CUDA Math API documentation and the PTX ISA section of
//             the instruction it names, independently of ptxcross. host.cpp runs the threads.
// Only intrinsics whose bits IEEE 754 or their integer definition fix are used.
#pragma once

#if defined(__CUDACC__) && !defined(__clang__)
// ------------------------------------------------------------------------------------- nvcc
#define CF_DEV static __device__ __forceinline__

#elif defined(__clang__) && defined(__CUDA__)
// -------------------------------------------------------------------- clang-16, no CUDA headers
#include <__clang_cuda_builtin_vars.h>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define CF_DEV static __device__ inline __attribute__((always_inline))
#define CF_B(name, builtin, R, A) CF_DEV R name(A a) { return builtin(a); }
#define CF_B2(name, builtin, R, A) CF_DEV R name(A a, A b) { return builtin(a, b); }
#define CF_B3(name, builtin, R, A) CF_DEV R name(A a, A b, A c) { return builtin(a, b, c); }
CF_DEV int __popc(unsigned x) { return __builtin_popcount(x); }
CF_DEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
CF_DEV int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
CF_DEV int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
CF_DEV unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
CF_DEV unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
// CUDA's __byte_perm uses 3 bits per selector nibble; prmt's 4th bit replicates a sign.
CF_DEV unsigned __byte_perm(unsigned x, unsigned y, unsigned s) { return __nvvm_prmt(x, y, s & 0x7777); }
CF_B2(__umulhi, __nvvm_mulhi_ui, unsigned, unsigned)
CF_B2(__mulhi, __nvvm_mulhi_i, int, int)
CF_B2(__umul64hi, __nvvm_mulhi_ull, unsigned long long, unsigned long long)
CF_B2(__mul64hi, __nvvm_mulhi_ll, long long, long long)
CF_DEV int __sad(int a, int b, unsigned c) { return __nvvm_sad_i(a, b, c); }
CF_B3(__usad, __nvvm_sad_ui, unsigned, unsigned)
CF_DEV int __ffs(int x) { return x == 0 ? 0 : __builtin_ctz((unsigned)x) + 1; }
CF_DEV int __ffsll(long long x) { return x == 0 ? 0 : __builtin_ctzll((unsigned long long)x) + 1; }
CF_DEV unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)(((((unsigned long long)hi << 32) | lo) << (s & 31)) >> 32); }
CF_DEV unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s)
{ return s >= 32 ? lo : __funnelshift_l(lo, hi, s); }
CF_DEV unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31)); }
CF_DEV unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s)
{ return s >= 32 ? hi : __funnelshift_r(lo, hi, s); }
CF_DEV int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
CF_DEV int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
CF_DEV unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
CF_DEV unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
CF_DEV int min(int a, int b) { return a < b ? a : b; }
CF_DEV unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
CF_DEV long long min(long long a, long long b) { return a < b ? a : b; }
CF_DEV unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
CF_DEV int max(int a, int b) { return a > b ? a : b; }
CF_DEV unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
CF_DEV long long max(long long a, long long b) { return a > b ? a : b; }
CF_DEV unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
CF_DEV int abs(int a) { return a < 0 ? -a : a; }
CF_DEV long long llabs(long long a) { return a < 0 ? -a : a; }
CF_DEV float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
CF_DEV float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
CF_DEV double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
CF_DEV double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }
CF_DEV float __saturatef(float a) { return __nvvm_saturate_f(a); }
CF_DEV float fabsf(float a) { return __builtin_fabsf(a); }
CF_DEV double fabs(double a) { return __builtin_fabs(a); }
CF_DEV bool isnan(float a) { return __builtin_isnan(a); }
CF_DEV bool isnan(double a) { return __builtin_isnan(a); }
CF_DEV unsigned __float_as_uint(float a) { return __builtin_bit_cast(unsigned, a); }
CF_DEV float __uint_as_float(unsigned a) { return __builtin_bit_cast(float, a); }
CF_DEV long long __double_as_longlong(double a) { return __builtin_bit_cast(long long, a); }
CF_DEV double __longlong_as_double(long long a) { return __builtin_bit_cast(double, a); }
// IEEE operations in every rounding direction: rn, rz, rd (rm), ru (rp).
#define CF_R4(MAC) MAC(rn, rn) MAC(rz, rz) MAC(rd, rm) MAC(ru, rp)
#define CF_F(c, n)                                                                             \
    CF_DEV float __fadd_##c(float a, float b) { return __nvvm_add_##n##_f(a, b); }             \
    CF_DEV float __fsub_##c(float a, float b) { return __nvvm_add_##n##_f(a, -b); }            \
    CF_DEV float __fmul_##c(float a, float b) { return __nvvm_mul_##n##_f(a, b); }             \
    CF_DEV float __fmaf_##c(float a, float b, float d) { return __nvvm_fma_##n##_f(a, b, d); } \
    CF_DEV float __fdiv_##c(float a, float b) { return __nvvm_div_##n##_f(a, b); }             \
    CF_DEV float __fsqrt_##c(float a) { return __nvvm_sqrt_##n##_f(a); }                       \
    CF_DEV float __frcp_##c(float a) { return __nvvm_rcp_##n##_f(a); }                         \
    CF_DEV double __dadd_##c(double a, double b) { return __nvvm_add_##n##_d(a, b); }          \
    CF_DEV double __dsub_##c(double a, double b) { return __nvvm_add_##n##_d(a, -b); }         \
    CF_DEV double __dmul_##c(double a, double b) { return __nvvm_mul_##n##_d(a, b); }          \
    CF_DEV double __fma_##c(double a, double b, double d) { return __nvvm_fma_##n##_d(a, b, d); } \
    CF_DEV double __ddiv_##c(double a, double b) { return __nvvm_div_##n##_d(a, b); }          \
    CF_DEV double __dsqrt_##c(double a) { return __nvvm_sqrt_##n##_d(a); }                     \
    CF_DEV double __drcp_##c(double a) { return __nvvm_rcp_##n##_d(a); }
CF_R4(CF_F)
// Conversions as inline PTX: clang-16's instcombine rewrites llvm.nvvm.{i,ui}2f.rz into
// sitofp/uitofp (round to nearest: wrong bits) and llvm.nvvm.f2i.rz into fptosi (poison out of
// range, where PTX saturates); found by this fuzzer (seed 0xc0da0100), see README.md.
#define CF_CVT(name, R, A, rc, ac, ins) \
    CF_DEV R name(A a) { R r; asm("cvt." ins " %0, %1;" : "=" rc(r) : ac(a)); return r; }
#define CF_C(c, n, ni)                                                            \
    CF_CVT(__float2int_##c, int, float, "r", "f", ni ".s32.f32")                   \
    CF_CVT(__float2uint_##c, unsigned, float, "r", "f", ni ".u32.f32")             \
    CF_CVT(__float2ll_##c, long long, float, "l", "f", ni ".s64.f32")              \
    CF_CVT(__float2ull_##c, unsigned long long, float, "l", "f", ni ".u64.f32")    \
    CF_CVT(__double2int_##c, int, double, "r", "d", ni ".s32.f64")                 \
    CF_CVT(__double2uint_##c, unsigned, double, "r", "d", ni ".u32.f64")           \
    CF_CVT(__double2ll_##c, long long, double, "l", "d", ni ".s64.f64")            \
    CF_CVT(__double2ull_##c, unsigned long long, double, "l", "d", ni ".u64.f64")  \
    CF_CVT(__int2float_##c, float, int, "f", "r", n ".f32.s32")                    \
    CF_CVT(__uint2float_##c, float, unsigned, "f", "r", n ".f32.u32")              \
    CF_CVT(__ll2float_##c, float, long long, "f", "l", n ".f32.s64")               \
    CF_CVT(__ull2float_##c, float, unsigned long long, "f", "l", n ".f32.u64")     \
    CF_CVT(__ll2double_##c, double, long long, "d", "l", n ".f64.s64")             \
    CF_CVT(__ull2double_##c, double, unsigned long long, "d", "l", n ".f64.u64")   \
    CF_CVT(__double2float_##c, float, double, "f", "d", n ".f32.f64")
CF_C(rn, "rn", "rni") CF_C(rz, "rz", "rzi") CF_C(rd, "rm", "rmi") CF_C(ru, "rp", "rpi")

#else
// ------------------------------------------------------------------------------------- host
#define CF_HOST 1
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <bit>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
extern dim3 threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define CF_DEV static inline
typedef unsigned long long u64;
typedef long long s64;
CF_DEV int __popc(unsigned x) { return std::popcount(x); }
CF_DEV int __popcll(u64 x) { return std::popcount(x); }
CF_DEV int __clz(int x) { return std::countl_zero((unsigned)x); }
CF_DEV int __clzll(s64 x) { return std::countl_zero((u64)x); }
CF_DEV unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
CF_DEV u64 __brevll(u64 x) { return ((u64)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32)); }
// Byte n of the result is byte (s >> 4n) & 7 of the 8-byte value {y, x} (x is bytes 0..3).
CF_DEV unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    u64 v = ((u64)y << 32) | x;
    unsigned r = 0;
    for (int n = 0; n < 4; n++) r |= (unsigned)((v >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
    return r;
}
CF_DEV unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((u64)a * b) >> 32); }
CF_DEV int __mulhi(int a, int b) { return (int)(((s64)a * b) >> 32); }
CF_DEV u64 __umul64hi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
CF_DEV s64 __mul64hi(s64 a, s64 b) { return (s64)(((__int128)a * b) >> 64); }
// |a - b| + c, wrapping (PTX sad: d = c + ((a < b) ? b - a : a - b)).
CF_DEV int __sad(int a, int b, unsigned c) { return (int)(c + (a < b ? (unsigned)b - (unsigned)a : (unsigned)a - (unsigned)b)); }
CF_DEV unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a < b ? b - a : a - b); }
CF_DEV int __ffs(int x) { return x == 0 ? 0 : std::countr_zero((unsigned)x) + 1; }
CF_DEV int __ffsll(s64 x) { return x == 0 ? 0 : std::countr_zero((u64)x) + 1; }
CF_DEV unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)(((((u64)hi << 32) | lo) << (s & 31)) >> 32); }
CF_DEV unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)(((((u64)hi << 32) | lo) << (s < 32 ? s : 32)) >> 32); }
CF_DEV unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)((((u64)hi << 32) | lo) >> (s & 31)); }
CF_DEV unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)((((u64)hi << 32) | lo) >> (s < 32 ? s : 32)); }
CF_DEV int __hadd(int a, int b) { return (int)(((s64)a + b) >> 1); }
CF_DEV int __rhadd(int a, int b) { return (int)(((s64)a + b + 1) >> 1); }
CF_DEV unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((u64)a + b) >> 1); }
CF_DEV unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((u64)a + b + 1) >> 1); }
CF_DEV int min(int a, int b) { return a < b ? a : b; }
CF_DEV unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
CF_DEV s64 min(s64 a, s64 b) { return a < b ? a : b; }
CF_DEV u64 min(u64 a, u64 b) { return a < b ? a : b; }
CF_DEV int max(int a, int b) { return a > b ? a : b; }
CF_DEV unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
CF_DEV s64 max(s64 a, s64 b) { return a > b ? a : b; }
CF_DEV u64 max(u64 a, u64 b) { return a > b ? a : b; }
using std::isnan;
// fminf/fmaxf/fmin/fmax: a NaN operand, quiet or signalling, yields the other one (PTX min/max
// §9.7.3.10, which CUDA's compile to; the C library returns NaN for a signalling one). The
// generator never lets the sign of a zero result matter (it adds +0 to every min/max).
// Clamp to [0, 1]; NaN gives +0 (CUDA Math API; PTX .sat §9.7.3).
CF_DEV float __saturatef(float a) { return std::isnan(a) ? 0.0f : a < 0.0f ? 0.0f : a > 1.0f ? 1.0f : a; }
template <class F> static inline F cf_min(F a, F b) { return std::isnan(a) ? b : std::isnan(b) ? a : a < b ? a : b; }
template <class F> static inline F cf_max(F a, F b) { return std::isnan(a) ? b : std::isnan(b) ? a : a > b ? a : b; }
#define fminf cf_min<float>
#define fmaxf cf_max<float>
#define fmin cf_min<double>
#define fmax cf_max<double>
CF_DEV unsigned __float_as_uint(float a) { return std::bit_cast<unsigned>(a); }
CF_DEV float __uint_as_float(unsigned a) { return std::bit_cast<float>(a); }
CF_DEV s64 __double_as_longlong(double a) { return std::bit_cast<s64>(a); }
CF_DEV double __longlong_as_double(s64 a) { return std::bit_cast<double>(a); }

// One IEEE operation under a rounding direction (built with -frounding-math, so g++ keeps the
// operation between the two fesetround calls and does not fold it).
template <class F> static inline auto cf_round(int mode, F f)
{
    std::fesetround(mode);
    auto r = f();
    std::fesetround(FE_TONEAREST);
    return r;
}
// Float to integer (PTX cvt.rni/rzi/rmi/rpi.{s,u}{32,64}: §9.7.9.21): round to integral in the
// direction, NaN gives 0, values out of range saturate to the type's bounds.
template <class I, class F> static inline I cf_f2i(F a, int mode)
{
    if (std::isnan(a)) return 0;
    F r = cf_round(mode, [&] { return std::nearbyint(a); });
    if (r <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    // (F)max rounds up to 2^32 / 2^64, which is out of range itself.
    if (r >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)r;
}
#define CF_F(c, M)                                                                                     \
    CF_DEV float __fadd_##c(float a, float b) { return cf_round(M, [&] { volatile float r = a + b; return r; }); } \
    CF_DEV float __fsub_##c(float a, float b) { return cf_round(M, [&] { volatile float r = a - b; return r; }); } \
    CF_DEV float __fmul_##c(float a, float b) { return cf_round(M, [&] { volatile float r = a * b; return r; }); } \
    CF_DEV float __fmaf_##c(float a, float b, float d) { return cf_round(M, [&] { volatile float r = std::fma(a, b, d); return r; }); } \
    CF_DEV float __fdiv_##c(float a, float b) { return cf_round(M, [&] { volatile float r = a / b; return r; }); } \
    CF_DEV float __fsqrt_##c(float a) { return cf_round(M, [&] { volatile float r = std::sqrt(a); return r; }); } \
    CF_DEV float __frcp_##c(float a) { return cf_round(M, [&] { volatile float r = 1.0f / a; return r; }); } \
    CF_DEV double __dadd_##c(double a, double b) { return cf_round(M, [&] { volatile double r = a + b; return r; }); } \
    CF_DEV double __dsub_##c(double a, double b) { return cf_round(M, [&] { volatile double r = a - b; return r; }); } \
    CF_DEV double __dmul_##c(double a, double b) { return cf_round(M, [&] { volatile double r = a * b; return r; }); } \
    CF_DEV double __fma_##c(double a, double b, double d) { return cf_round(M, [&] { volatile double r = std::fma(a, b, d); return r; }); } \
    CF_DEV double __ddiv_##c(double a, double b) { return cf_round(M, [&] { volatile double r = a / b; return r; }); } \
    CF_DEV double __dsqrt_##c(double a) { return cf_round(M, [&] { volatile double r = std::sqrt(a); return r; }); } \
    CF_DEV double __drcp_##c(double a) { return cf_round(M, [&] { volatile double r = 1.0 / a; return r; }); } \
    CF_DEV int __float2int_##c(float a) { return cf_f2i<int>(a, M); }                                  \
    CF_DEV unsigned __float2uint_##c(float a) { return cf_f2i<unsigned>(a, M); }                       \
    CF_DEV s64 __float2ll_##c(float a) { return cf_f2i<s64>(a, M); }                                   \
    CF_DEV u64 __float2ull_##c(float a) { return cf_f2i<u64>(a, M); }                                  \
    CF_DEV int __double2int_##c(double a) { return cf_f2i<int>(a, M); }                                \
    CF_DEV unsigned __double2uint_##c(double a) { return cf_f2i<unsigned>(a, M); }                     \
    CF_DEV s64 __double2ll_##c(double a) { return cf_f2i<s64>(a, M); }                                 \
    CF_DEV u64 __double2ull_##c(double a) { return cf_f2i<u64>(a, M); }                                \
    CF_DEV float __int2float_##c(int a) { return cf_round(M, [&] { volatile float r = (float)a; return r; }); } \
    CF_DEV float __uint2float_##c(unsigned a) { return cf_round(M, [&] { volatile float r = (float)a; return r; }); } \
    CF_DEV float __ll2float_##c(s64 a) { return cf_round(M, [&] { volatile float r = (float)a; return r; }); } \
    CF_DEV float __ull2float_##c(u64 a) { return cf_round(M, [&] { volatile float r = (float)a; return r; }); } \
    CF_DEV double __ll2double_##c(s64 a) { return cf_round(M, [&] { volatile double r = (double)a; return r; }); } \
    CF_DEV double __ull2double_##c(u64 a) { return cf_round(M, [&] { volatile double r = (double)a; return r; }); } \
    CF_DEV float __double2float_##c(double a) { return cf_round(M, [&] { volatile float r = (float)a; return r; }); }
CF_F(rn, FE_TONEAREST)
CF_F(rz, FE_TOWARDZERO)
CF_F(rd, FE_DOWNWARD)
CF_F(ru, FE_UPWARD)
#undef CF_F
#endif

// ----------------------------------------------------------------- shared by all three compilers
// Guarded division: never by 0, never INT_MIN / -1 (both undefined in C and in PTX div.s).
CF_DEV unsigned cf_udiv(unsigned a, unsigned b) { return b == 0 ? a : a / b; }
CF_DEV unsigned cf_urem(unsigned a, unsigned b) { return b == 0 ? a : a % b; }
CF_DEV unsigned long long cf_udiv64(unsigned long long a, unsigned long long b) { return b == 0 ? a : a / b; }
CF_DEV unsigned long long cf_urem64(unsigned long long a, unsigned long long b) { return b == 0 ? a : a % b; }
CF_DEV int cf_sdiv(int a, int b) { return (b == 0 || (b == -1 && a == (int)0x80000000)) ? a : a / b; }
CF_DEV int cf_srem(int a, int b) { return (b == 0 || (b == -1 && a == (int)0x80000000)) ? a : a % b; }
CF_DEV long long cf_sdiv64(long long a, long long b)
{ return (b == 0 || (b == -1 && a == (long long)0x8000000000000000ull)) ? a : a / b; }
CF_DEV long long cf_srem64(long long a, long long b)
{ return (b == 0 || (b == -1 && a == (long long)0x8000000000000000ull)) ? a : a % b; }
// The bits a program stores for a float: NaN results are unspecified NaNs (PTX §9.7.3), so every
// NaN is stored as the canonical one; everything else bit for bit.
CF_DEV unsigned long long cf_bits(float a) { return isnan(a) ? 0x7fffffffull : __float_as_uint(a); }
CF_DEV unsigned long long cf_bits(double a)
{ return isnan(a) ? 0x7fffffffffffffffull : (unsigned long long)__double_as_longlong(a); }
CF_DEV unsigned long long cf_bits(unsigned long long a) { return a; }
CF_DEV unsigned long long cf_bits(long long a) { return (unsigned long long)a; }
CF_DEV unsigned long long cf_bits(unsigned a) { return a; }
CF_DEV unsigned long long cf_bits(int a) { return (unsigned long long)(long long)a; }
