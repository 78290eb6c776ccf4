// A dense switch (issue 6 §3): nvcc and clang lower it to a compare tree or a table; either way
// the translated control flow must pick the same case. Each case computes something different.
__device__ __noinline__ unsigned pick(unsigned x) {
    switch (x & 15u) {
    case 0: return x + 1u;
    case 1: return x * 3u;
    case 2: return x ^ 0x5a5a5a5au;
    case 3: return x >> 3;
    case 4: return x << 2;
    case 5: return ~x;
    case 6: return x - 7u;
    case 7: return x * x;
    case 8: return x | 0x100u;
    case 9: return x & 0xffu;
    case 10: return x + 1000u;
    case 11: return (x >> 16) | (x << 16);
    case 12: return x * 7u + 1u;
    case 13: return x / 3u;
    case 14: return x % 11u;
    default: return 42u;
    }
}

extern "C" __global__ void switch_kernel(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = pick(in[i]);
    }
}
