// Templates, device-function calls through .param, recursion, indirect calls (function pointers
// and virtual functions -> .callprototype), printf (-> .extern .func vprintf), malloc,
// __constant__ tables, globals initialised with addresses, local arrays, a dense switch.
// Header-free so NVRTC compiles it too.

extern "C" __device__ int printf(const char *, ...);   // NVRTC and nvcc both accept this

__constant__ float c_coeffs[8] = {1.0f, 0.5f, 0.25f, 0.125f, -1.0f, -0.5f, -0.25f, -0.125f};
__device__ int g_table[4] = {1, 2, 3, 4};
__device__ int *g_table_ptr = &g_table[2];
__device__ char g_message[] = "hello";

template <typename T, int N>
struct Vec {
    T v[N];
    __device__ T dot(const Vec &o) const {
        T s = T(0);
#pragma unroll
        for (int i = 0; i < N; i++) s += v[i] * o.v[i];
        return s;
    }
};

template <typename T, int N>
__global__ void dot_kernel(const Vec<T, N> *a, const Vec<T, N> *b, T *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i].dot(b[i]);
}
template __global__ void dot_kernel<float, 3>(const Vec<float, 3> *, const Vec<float, 3> *, float *, int);
template __global__ void dot_kernel<double, 4>(const Vec<double, 4> *, const Vec<double, 4> *, double *, int);
template __global__ void dot_kernel<int, 8>(const Vec<int, 8> *, const Vec<int, 8> *, int *, int);
template __global__ void dot_kernel<short, 2>(const Vec<short, 2> *, const Vec<short, 2> *, short *, int);

__device__ __noinline__ unsigned long long fib(unsigned n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

struct Big { double d; int k[5]; char c; };

__device__ __noinline__ Big make_big(int x, Big in) {
    Big b = in;
    b.d += x;
    for (int i = 0; i < 5; i++) b.k[i] += x * i;
    b.c = (char)x;
    return b;
}

typedef float (*unary_fn)(float);
__device__ __noinline__ float op_sq(float x) { return x * x; }
__device__ __noinline__ float op_neg(float x) { return -x; }
__device__ __noinline__ float op_half(float x) { return x * 0.5f; }
__device__ unary_fn g_ops[3] = {op_sq, op_neg, op_half};

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float s;
    __device__ Square(float s) : s(s) {}
    __device__ float area() const override { return s * s; }
};
struct Circle : Shape {
    float r;
    __device__ Circle(float r) : r(r) {}
    __device__ float area() const override { return 3.14159265f * r * r; }
};

extern "C" __global__ void calls(const float *in, float *out, unsigned long long *fibs, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    float y = g_ops[i % 3](x) * c_coeffs[i & 7];
    Square sq(x);
    Circle ci(x);
    const Shape *s = (i & 1) ? (const Shape *)&sq : (const Shape *)&ci;
    y += s->area();
    Big b = {1.0, {0, 1, 2, 3, 4}, 'a'};
    b = make_big(i, b);
    y += (float)b.d + b.k[i % 5] + b.c;
    fibs[i] = fib(i % 20);
    if (i == 0) printf("%s: n=%d y=%f ptr=%p big=%lld\n", g_message, n, (double)y, g_table_ptr, fibs[0]);
    out[i] = y;
}

extern "C" __global__ void local_and_switch(const int *sel, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int scratch[32];
    for (int k = 0; k < 32; k++) scratch[k] = k * sel[i];
    int r;
    switch (sel[i] & 15) {
    case 0: r = scratch[sel[i] & 31]; break;
    case 1: r = 17; break;
    case 2: r = scratch[3] * 3; break;
    case 3: r = -5; break;
    case 4: r = scratch[(i * 7) & 31] ^ 0x55; break;
    case 5: r = 99; break;
    case 6: r = i * i; break;
    case 7: r = sel[i] >> 2; break;
    case 8: r = 1234567; break;
    case 9: r = g_table[i & 3]; break;
    case 10: r = scratch[31]; break;
    default: r = 0; break;
    }
    out[i] = r;
}

extern "C" __global__ void heap(int n, int **keep) {
    int *p = (int *)malloc(n * sizeof(int));
    if (p) {
        for (int k = 0; k < n; k++) p[k] = k;
        keep[threadIdx.x] = p;
        if (n > 100) { free(p); keep[threadIdx.x] = 0; }
    }
}

extern "C" __global__ void dyn_shared(const double *in, double *out, int n) {
    extern __shared__ double sh[];
    int t = threadIdx.x;
    sh[t] = t < n ? in[t] : 0.0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sh[0] + sin(in[0]) * exp(in[1]) + erfc(in[2]) + pow(in[3], 1.5);
}
