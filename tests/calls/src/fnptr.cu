// Indirect calls through a table of device-function pointers chosen per thread.
typedef unsigned (*binop)(unsigned, unsigned);

__device__ __noinline__ unsigned op_add(unsigned a, unsigned b) { return a + b; }
__device__ __noinline__ unsigned op_sub(unsigned a, unsigned b) { return a - b; }
__device__ __noinline__ unsigned op_mul(unsigned a, unsigned b) { return a * b; }
__device__ __noinline__ unsigned op_xor(unsigned a, unsigned b) { return a ^ (b << 1); }

extern "C" __global__ void fnptr_kernel(const unsigned *a, const unsigned *b, const unsigned *sel, unsigned *out, int n) {
    binop table[4] = {op_add, op_sub, op_mul, op_xor};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        binop f = table[sel[i] & 3u];
        out[i] = f(a[i], b[i]);
    }
}
