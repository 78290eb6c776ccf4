// A __noinline__ device function called from a kernel, and a function that calls a function.
__device__ __noinline__ unsigned mix(unsigned x, unsigned y) {
    return (x * 2654435761u) ^ (y + 0x9e3779b9u);
}

__device__ __noinline__ unsigned twice(unsigned x) {
    return mix(x, x + 1) + mix(x + 2, x);
}

extern "C" __global__ void noinline_kernel(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = twice(in[i]) + mix(in[i], (unsigned)i);
    }
}
