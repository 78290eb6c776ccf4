// mandelbrot: escape-time iteration count per pixel (data-dependent trip count, break).
// All float arithmetic uses explicit round-to-nearest intrinsics, so no multiply-add can be
// contracted and the result is fixed by this source.
extern "C" __global__ void mandelbrot(unsigned int *out, int width, int height,
                                      float x0, float y0, float dx, float dy, int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;

    float cr = __fadd_rn(x0, __fmul_rn((float)px, dx));
    float ci = __fadd_rn(y0, __fmul_rn((float)py, dy));
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    for (; it < max_iter; ++it) {
        float zr2 = __fmul_rn(zr, zr);
        float zi2 = __fmul_rn(zi, zi);
        if (__fadd_rn(zr2, zi2) > 4.0f)
            break;
        float t = __fadd_rn(__fsub_rn(zr2, zi2), cr);
        zi = __fadd_rn(__fmul_rn(__fmul_rn(2.0f, zr), zi), ci);
        zr = t;
    }
    out[py * width + px] = (unsigned int)it;
}
