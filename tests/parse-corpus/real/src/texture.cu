// Texture and surface objects (bindless), __ldg, read-only and volatile loads, vector types.
#include <cuda_runtime.h>

__global__ void tex_sample(cudaTextureObject_t tex1d, cudaTextureObject_t tex2d,
                           cudaSurfaceObject_t surf, float4 *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float a = tex1Dfetch<float>(tex1d, x);
    float4 b = tex2D<float4>(tex2d, x + 0.5f, y + 0.5f);
    float4 c = tex2DLod<float4>(tex2d, x * 0.25f, y * 0.25f, 1.0f);
    uchar4 s;
    surf2Dread(&s, surf, x * 4, y);
    s.x ^= 0xff;
    surf2Dwrite(s, surf, x * 4, y);
    out[y * w + x] = make_float4(a + b.x + c.x, b.y, b.z + s.y, b.w + c.w);
}

__global__ void readonly_loads(const float4 *__restrict__ in, const double2 *__restrict__ d,
                               volatile int *flags, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = __ldg(&in[i]);
    double2 w = __ldcg(&d[i]);
    float e = __ldcs(&in[(i + 1) % n].x);
    __stcs(&out[i].w, e);
    int f = flags[i];
    out[i] = make_float4(v.x * (float)w.x, v.y + (float)w.y, v.z, v.w + (float)f);
    __stwt(&out[(i + 7) % n].x, 1.0f);
}
