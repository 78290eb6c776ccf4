// Per-thread arrays that nvcc must keep in local memory (indexed with run-time values), of
// 1 KiB, 4 KiB and 8 KiB per thread: the sizes at which per-invocation private arrays made
// pipeline creation explode on lavapipe (issue 7); 64 and 256 bytes stay private arrays. The expected outputs are computed by a CPU
// implementation in tests/tests/local_memory.rs.
template <int WORDS>
__device__ void scramble(const unsigned *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a[WORDS];
    unsigned x = in[i];
    // `#pragma unroll 1`: loops stay loops (unrolled, the fill becomes thousands of stores with
    // constant offsets, and the array's size no longer dominates what the driver compiles).
    // Fill with a linear congruential sequence seeded by the input.
    #pragma unroll 1
    for (int j = 0; j < WORDS; j++) {
        x = x * 1664525u + 1013904223u;
        a[j] = x;
    }
    // Data-dependent reads and writes: the indices depend on the values.
    unsigned acc = 0;
    #pragma unroll 1
    for (int j = 0; j < WORDS; j++) {
        unsigned v = a[(x + j * 7u) % WORDS];
        a[v % WORDS] ^= (unsigned)j;
        acc = acc * 31u + v;
        x ^= v >> 3;
    }
    // Read everything back in a value-dependent order.
    #pragma unroll 1
    for (int j = 0; j < WORDS; j++) {
        acc += a[(acc ^ (unsigned)j) % WORDS];
    }
    out[i] = acc;
}

extern "C" __global__ void local_64b(const unsigned *in, unsigned *out, int n) { scramble<16>(in, out, n); }
extern "C" __global__ void local_256b(const unsigned *in, unsigned *out, int n) { scramble<64>(in, out, n); }
extern "C" __global__ void local_1k(const unsigned *in, unsigned *out, int n) { scramble<256>(in, out, n); }
extern "C" __global__ void local_4k(const unsigned *in, unsigned *out, int n) { scramble<1024>(in, out, n); }
extern "C" __global__ void local_8k(const unsigned *in, unsigned *out, int n) { scramble<2048>(in, out, n); }
