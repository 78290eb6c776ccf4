// 128-bit atomics (sm_90): nvcc 13.5 writes atom.cas.b128 / atom.exch.b128 for them, which
// ptxcross runs under a lock per location (Vulkan's and WGSL's atomics are at most 64-bit;
// WGSL refuses them). Regenerate with regen.sh.
typedef unsigned __int128 u128;

extern "C" __global__ void cas128(u128 *p, u128 cmp, u128 val, u128 *old) {
    old[threadIdx.x] = atomicCAS(p, cmp, val);
}

extern "C" __global__ void exch128(u128 *p, u128 val, u128 *old) {
    old[threadIdx.x] = atomicExch(p, val);
}
