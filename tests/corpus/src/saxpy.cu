// saxpy: y[i] = a * x[i] + y[i] with a single rounding (fmaf), for i < n.
// One thread per element; the launch has more threads than n (partial last block).
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaf(a, x[i], y[i]);
}
