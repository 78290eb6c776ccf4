// Double-precision division, reciprocal and square root as CUDA code writes them: nvcc emits
// div.rn.f64, rcp.rn.f64 and sqrt.rn.f64 (IEEE, correctly rounded) for them.
extern "C" __global__ void f64math(const double *a, const double *b, double *quot, double *recip, double *root)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    quot[i] = a[i] / b[i];
    recip[i] = 1.0 / b[i];
    root[i] = sqrt(a[i]);
}
