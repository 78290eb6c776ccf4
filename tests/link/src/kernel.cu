// Separate compilation (nvcc -rdc=true): the kernel calls a function and reads a table that
// live in another translation unit (helper.cu), and has a private helper whose name the other
// unit uses too. Linked right, out[i] = scale(in[i], i) + mix(i) + table[i % 16].
extern __device__ float scale(float x, int i);
extern __device__ int table[16];

// Same name as helper.cu's `mix`, different body: linking must keep both.
static __device__ __noinline__ int mix(int x) { return (x ^ 7) * 5; }

extern "C" __global__ void linked(const float *in, float *out, const int *count) {
    int n = *count;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = scale(in[i], i) + (float)mix(i) + (float)table[i % 16];
    }
}
