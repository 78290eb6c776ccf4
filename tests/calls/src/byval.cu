// Structs passed and returned by value through a __noinline__ function.
struct Vec3 {
    float x, y, z;
};

struct Pair {
    double d;
    int k;
    unsigned char tag;
};

__device__ __noinline__ Vec3 scale_add(Vec3 a, Vec3 b, float s) {
    Vec3 r;
    r.x = a.x * s + b.x;
    r.y = a.y * s + b.y;
    r.z = a.z * s + b.z;
    return r;
}

__device__ __noinline__ double weigh(Pair p) {
    return p.d + (double)p.k - (double)p.tag;
}

extern "C" __global__ void byval_kernel(const float *in, const int *k, double *dout, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        Vec3 a = {in[3 * i], in[3 * i + 1], in[3 * i + 2]};
        Vec3 b = {1.0f, -2.0f, 0.5f};
        Vec3 r = scale_add(a, b, 3.0f);
        out[3 * i] = r.x;
        out[3 * i + 1] = r.y;
        out[3 * i + 2] = r.z;
        Pair p = {(double)in[3 * i], k[i], (unsigned char)(i & 0xff)};
        dout[i] = weigh(p);
    }
}
