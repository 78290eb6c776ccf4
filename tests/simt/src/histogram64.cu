// 64-bit atomics whose results are used, under heavy contention (16 bins for every thread of
// the grid): each thread takes a ticket from a 64-bit counter (the old value atomicAdd returns)
// and records it, so the tickets of a bin must be exactly 0..count-1; a second set of counters
// steps by 2^32 - 1, so every add carries across the word boundary, and records those old
// values too; a 64-bit atomicMax; a double sum with atomicAdd(double); and a double maximum
// through an atomicCAS loop (the CUDA programming guide's pattern). A grid-stride loop covers
// any n; the last round is partial.
extern "C" __global__ void histogram64(const unsigned char *data, unsigned n, unsigned long long *counters,
                                       unsigned long long *tickets, unsigned long long *steps, double *fsum,
                                       double *fmax) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned char d = data[i];
        unsigned b = d & 15;
        tickets[i] = atomicAdd(&counters[b], 1ull);
        steps[i] = atomicAdd(&counters[16 + b], 0xffffffffull);
        atomicMax(&counters[32], (unsigned long long)d << 40 | i);
        atomicAdd(fsum, (double)d);
        // An integer, exact as a double.
        double v = (double)(d * 1024u + (i & 1023u));
        unsigned long long *a = (unsigned long long *)fmax;
        unsigned long long old = *a, assumed;
        do {
            assumed = old;
            if (__longlong_as_double(assumed) >= v) break;
            old = atomicCAS(a, assumed, __double_as_longlong(v));
        } while (assumed != old);
    }
}
