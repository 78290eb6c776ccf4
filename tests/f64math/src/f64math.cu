// Double-precision division, reciprocal and square root as CUDA code writes them: nvcc emits
// div.rn.f64, rcp.rn.f64 and sqrt.rn.f64 (IEEE, correctly rounded) for them; the multiply-add
// is contracted into fma.rn.f64 (nvcc's default --fmad=true).
extern "C" __global__ void f64math(const double *a, const double *b, double *quot, double *recip, double *root,
                                   double *fused)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double q = a[i] / b[i];
    quot[i] = q;
    recip[i] = 1.0 / b[i];
    root[i] = sqrt(a[i]);
    fused[i] = a[i] * b[i] + q;
}
