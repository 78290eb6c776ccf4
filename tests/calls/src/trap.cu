// trap inside a device function: threads whose input is the poison value abort the launch.
__device__ __noinline__ unsigned checked(unsigned x) {
    if (x == 0xdeadu) __trap();
    return x + 1u;
}

extern "C" __global__ void trap_kernel(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = checked(in[i]);
    }
}
