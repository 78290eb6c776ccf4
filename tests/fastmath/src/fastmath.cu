// Fast-math CUDA (built with -use_fast_math, see ../regen.sh): the intrinsics become PTX's
// .approx transcendentals (ex2/lg2/sin/cos/rsqrt/tanh .approx[.ftz].f32). Run end to end by
// tests/tests/approx_sweep.rs (`nvcc_fast_math_kernels`) against a CPU reference.

// Sizes come through pointers (the test harness passes every parameter as a buffer).

// One thread per element: exp, log, sigmoid, a rotation by theta, rsqrt and tanh.
extern "C" __global__ void pointwise(const float *x, const float *y, const float *theta,
                                     float *out, const int *np) {
    int n = *np;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i], b = y[i], t = theta[i];
    float s, c;
    __sincosf(t, &s, &c);
    out[8 * i + 0] = __expf(a);
    out[8 * i + 1] = __logf(b);
    out[8 * i + 2] = 1.0f / (1.0f + __expf(-a));
    out[8 * i + 3] = a * c - b * s;
    out[8 * i + 4] = a * s + b * c;
    out[8 * i + 5] = rsqrtf(b);
    out[8 * i + 6] = tanhf(a);
    out[8 * i + 7] = __powf(b, 0.75f);
}

// Softmax over rows of 8, one thread per row (numerically stable: the row's max first).
extern "C" __global__ void softmax8(const float *in, float *out, const int *rowsp) {
    int rows = *rowsp;
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float *v = in + 8 * r;
    float m = v[0];
    for (int k = 1; k < 8; k++) m = fmaxf(m, v[k]);
    float e[8], sum = 0.0f;
    for (int k = 0; k < 8; k++) {
        e[k] = __expf(v[k] - m);
        sum += e[k];
    }
    for (int k = 0; k < 8; k++) out[8 * r + k] = e[k] / sum;
}
