// Kernel for the fatbin tests (driver/tests/fatbin.rs); regen.sh rebuilds the files beside it.
extern "C" __global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
