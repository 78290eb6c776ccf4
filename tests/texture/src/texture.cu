// Texture objects end to end (tests/tests/texture_e2e.rs, driver/tests/texture.rs): every
// kernel samples at coordinates it is given and stores the four channels, so the tests choose
// the coordinates (texel centres, 1/256 steps, out of range, NaN) and check each value
// against a CPU implementation of the CUDA C++ Programming Guide's "Texture Fetching".
#include <cuda_runtime.h>

extern "C" __global__ void fetch1d(cudaTextureObject_t t, const int *idx, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float4>(t, idx[i]);
}

extern "C" __global__ void fetch1d_int(cudaTextureObject_t t, const int *idx, int4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int4>(t, idx[i]);
}

extern "C" __global__ void sample1d(cudaTextureObject_t t, const float *x, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float4>(t, x[i]);
}

extern "C" __global__ void sample2d(cudaTextureObject_t t, const float2 *xy, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}

extern "C" __global__ void sample2d_uint(cudaTextureObject_t t, const float2 *xy, uint4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<uint4>(t, xy[i].x, xy[i].y);
}

extern "C" __global__ void sample2d_lod(cudaTextureObject_t t, const float2 *xy, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLod<float4>(t, xy[i].x, xy[i].y, 2.5f);
}

extern "C" __global__ void sample3d(cudaTextureObject_t t, const float4 *xyz, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float4>(t, xyz[i].x, xyz[i].y, xyz[i].z);
}

// Surfaces: x is a byte offset (surf2Dread/surf2Dwrite), y a row; each boundary mode.
extern "C" __global__ void surface_read(cudaSurfaceObject_t s, const int2 *xy, uchar4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i] = surf2Dread<uchar4>(s, xy[i].x, xy[i].y, cudaBoundaryModeZero);
        out[2 * i + 1] = surf2Dread<uchar4>(s, xy[i].x, xy[i].y, cudaBoundaryModeClamp);
    }
}

extern "C" __global__ void surface_write(cudaSurfaceObject_t s, const int2 *xy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) surf2Dwrite(make_uchar4(i, i + 1, i + 2, i + 3), s, xy[i].x, xy[i].y, cudaBoundaryModeZero);
}

extern "C" __global__ void surface_trap(cudaSurfaceObject_t s, const int2 *xy, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = surf2Dread<unsigned>(s, xy[i].x, xy[i].y);
}
