// Device-side printf kernels for tests/tests/printf_e2e.rs (compiled by ../regen.sh).
#include <cassert>
#include <cstdio>
#include <cstddef>

// Integers: every conversion, flag, width, precision and length the lowering reads, on
// values from the inputs (negative, 64-bit). `ret[t]` is printf's result.
__global__ void ints(const int *a, const long long *b, int *ret, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = a[t];
    long long y = b[t];
    ret[t] = printf("i%03d|%d|%i|%u|%x|%X|%o|%5d|%-5d|%05d|%+d|% d|%#x|%#o|%lld|%llx|%hhd|%hd|%c|%ld|%lu|%zu|%*d|%.*d|%%|\n",
                    t, x, x, x, x, x, x, x, x, x, x, x, x, x, y, y, x, x, 'A' + t % 26, y, y, (size_t)y, t % 7 - 3, x, t % 5, x);
}

// Floats (promoted to double) and doubles: NaN, infinities, -0, subnormals come from the inputs.
__global__ void floats(const float *f, const double *d, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float x = f[t];
    double y = d[t];
    printf("f%03d|%f|%.3f|%e|%.2E|%g|%G|%a|%A|%10.4f|%-12.3e|%+g|%#g|%F|%.0f|%.17g|%.*f|\n",
           t, x, y, x, y, y, x, y, x, y, x, y, y, y, x, y, t % 4, y);
}

// Strings: %s of module strings (width, precision, left-justified), a null string, %p.
__global__ void strings(const double *p, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const char *s = (t & 1) ? "odd" : "even";
    const char *none = (t % 3 == 0) ? (const char *)0 : "set";
    printf("s%03d|%s|%8s|%-6.2s|%s|%p|%c|\n", t, s, "world", "truncated", none, (const void *)(p + t), (char)('a' + t % 26));
}

// Many small records: more than the printf buffer holds.
__global__ void flood(int per_thread) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < per_thread; i++) printf("%d\n", t * per_thread + i);
}

// A device-side assert after a printf: the launch fails naming the assertion; the text printed
// before it is kept.
__global__ void checked(const int *a, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    printf("checking %d\n", t);
    assert(a[t] >= 0);
}
