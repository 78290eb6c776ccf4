// Direct recursion: Euclid's gcd and a doubly recursive Fibonacci.
__device__ __noinline__ unsigned gcd_rec(unsigned a, unsigned b) {
    if (b == 0) return a;
    return gcd_rec(b, a % b);
}

__device__ __noinline__ unsigned fib_rec(unsigned n) {
    if (n < 2) return n;
    return fib_rec(n - 1) + fib_rec(n - 2);
}

extern "C" __global__ void recursion_kernel(const unsigned *a, const unsigned *b, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i] = gcd_rec(a[i], b[i]);
        out[2 * i + 1] = fib_rec(a[i] % 12u);
    }
}
