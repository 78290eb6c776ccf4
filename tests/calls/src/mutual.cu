// Mutual recursion: is_even / is_odd by alternating descent, with a per-step weight so the
// result depends on the whole chain.
__device__ __noinline__ unsigned is_odd(unsigned n, unsigned acc);

__device__ __noinline__ unsigned is_even(unsigned n, unsigned acc) {
    if (n == 0) return acc * 2u + 1u;
    return is_odd(n - 1, acc * 3u + n);
}

__device__ __noinline__ unsigned is_odd(unsigned n, unsigned acc) {
    if (n == 0) return acc * 2u;
    return is_even(n - 1, acc ^ (n << 3));
}

extern "C" __global__ void mutual_kernel(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = is_even(in[i] % 24u, (unsigned)i);
    }
}
