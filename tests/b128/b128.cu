// 128-bit loads, stores and moves (.b128, PTX ISA 8.3, sm_70+). nvcc 13.5 keeps __int128 in
// pairs of 64-bit registers and moves it with .v2.u64; it emits .b128 registers, `mov.b128`
// packing/unpacking and 128-bit accesses where inline PTX takes an __int128 operand (the "q"
// constraint), as CUDA libraries do for 16-byte accesses. Regenerate with regen.sh.
typedef unsigned __int128 u128;

__device__ __forceinline__ u128 ld_global(const u128 *p) {
    u128 v;
    asm volatile("ld.global.b128 %0, [%1];" : "=q"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ u128 ld_nc(const u128 *p) {
    u128 v;
    asm volatile("ld.global.nc.b128 %0, [%1];" : "=q"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ u128 ld_ldu(const u128 *p) {
    u128 v;
    asm volatile("ldu.global.b128 %0, [%1];" : "=q"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ u128 ld_generic(const u128 *p) {
    u128 v;
    asm volatile("ld.b128 %0, [%1];" : "=q"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ void st_global(u128 *p, u128 v) {
    asm volatile("st.global.b128 [%0], %1;" ::"l"(p), "q"(v) : "memory");
}
__device__ __forceinline__ void st_generic(u128 *p, u128 v) {
    asm volatile("st.b128 [%0], %1;" ::"l"(p), "q"(v) : "memory");
}
__device__ __forceinline__ u128 ld_shared(unsigned a) {
    u128 v;
    asm volatile("ld.shared.b128 %0, [%1];" : "=q"(v) : "r"(a));
    return v;
}
__device__ __forceinline__ void st_shared(unsigned a, u128 v) {
    asm volatile("st.shared.b128 [%0], %1;" ::"r"(a), "q"(v) : "memory");
}
// Four 32-bit words packed into one .b128 (the first the least significant), and back.
__device__ __forceinline__ u128 pack4(unsigned a, unsigned b, unsigned c, unsigned d) {
    u128 v;
    asm("mov.b128 %0, {%1, %2, %3, %4};" : "=q"(v) : "r"(a), "r"(b), "r"(c), "r"(d));
    return v;
}
__device__ __forceinline__ void unpack4(u128 v, unsigned &a, unsigned &b, unsigned &c, unsigned &d) {
    asm("mov.b128 {%0, %1, %2, %3}, %4;" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "q"(v));
}

// out[i] = in[n-1-i], through ld.global.b128 / st.global.b128.
extern "C" __global__ void reverse128(const u128 *in, u128 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) st_global(out + i, ld_global(in + (n - 1 - i)));
}

// Each 128-bit value's four 32-bit words rotated by one (word k goes to k+1), plus a
// 128-bit addition of the thread index (carry across the halves), through ld.global.nc,
// ldu, generic ld/st and mov.b128 pack/unpack.
extern "C" __global__ void rotate_words(const u128 *in, u128 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u128 v = ld_nc(in + i);
    unsigned a, b, c, d;
    unpack4(v, a, b, c, d);
    u128 r = pack4(d, a, b, c) + (u128)i;
    u128 u = ld_ldu(in);  // the same for every thread
    st_generic(out + i, r ^ u);
    st_generic(out + n + i, ld_generic(out + i) ^ u);
}

// 128-bit values through shared memory: each block reverses its slice.
extern "C" __global__ void shared_reverse(const u128 *in, u128 *out) {
    __shared__ u128 buf[64];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    unsigned a = (unsigned)__cvta_generic_to_shared(&buf[t]);
    st_shared(a, ld_global(in + base + t));
    __syncthreads();
    unsigned b = (unsigned)__cvta_generic_to_shared(&buf[blockDim.x - 1 - t]);
    st_global(out + base + t, ld_shared(b));
}
