// Memory ordering across CTAs and inside one.
//
// fence_sum: the CUDA samples' threadFenceReduction pattern. Every CTA reduces its slice, thread
// 0 stores the partial sum with a plain store, __threadfence() (fence.sc.gpu) orders it before
// the ticket (atomicInc), and the CTA that draws the last ticket fences again and sums the
// partials with plain loads. No CTA waits for another (no forward-progress assumption).
//
// release_acquire: the same hand-off with release/acquire operations at .gpu scope (a release
// store of a per-CTA flag, an acq_rel ticket, acquire loads of the flags in a spin loop), and
// inside each CTA a message through shared memory at .cta scope: thread 0 writes, then a
// release store of a flag; every thread spins on acquire loads of the flag, then reads.
static __device__ __forceinline__ void st_release_gpu(unsigned *p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
static __device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
static __device__ __forceinline__ unsigned atom_add_acq_rel_gpu(unsigned *p, unsigned v) {
    unsigned r;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory");
    return r;
}
static __device__ __forceinline__ void st_release_cta(unsigned *p, unsigned v) {
    asm volatile("st.release.cta.shared.u32 [%0], %1;" ::"r"((unsigned)(unsigned long long)p), "r"(v) : "memory");
}
static __device__ __forceinline__ unsigned ld_acquire_cta(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)(unsigned long long)p) : "memory");
    return v;
}

#define BLOCK 128

static __device__ int block_sum(int *s, int v) {
    unsigned t = threadIdx.x;
    s[t] = v;
    __syncthreads();
    for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    int r = s[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void fence_sum(const int *in, unsigned n, int *partial, unsigned *count, int *result) {
    __shared__ int s[BLOCK];
    __shared__ bool last;
    unsigned t = threadIdx.x;
    int v = 0;
    for (unsigned i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) v += in[i];
    int sum = block_sum(s, v);
    if (t == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();
        unsigned ticket = atomicInc(count, gridDim.x);
        __threadfence();
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        int w = 0;
        for (unsigned i = t; i < gridDim.x; i += BLOCK) w += partial[i];
        int total = block_sum(s, w);
        if (t == 0) *result = total;
    }
}

extern "C" __global__ void release_acquire(const int *in, int *data, unsigned *flags, unsigned *count,
                                           int *result, int *cta_seen) {
    __shared__ int s[BLOCK];
    __shared__ int message[4];
    __shared__ unsigned ready;
    __shared__ bool last;
    unsigned t = threadIdx.x, b = blockIdx.x;
    if (t == 0) ready = 0;
    __syncthreads();
    // Inside the CTA: thread 0 publishes four words, then every thread waits for the flag
    // (thread 0 finds it set: its branch comes first, so no lane of its warp waits for a lane
    // that has not run, whatever the hardware's forward-progress rules).
    if (t == 0) {
        for (int j = 0; j < 4; j++) message[j] = (int)(b * 4 + j) * 7;
        st_release_cta(&ready, 1);
    }
    while (ld_acquire_cta(&ready) == 0) {
    }
    int m = message[0] + message[1] + message[2] + message[3];
    if (m != (int)(b * 16 + 6) * 7) atomicAdd((unsigned *)&cta_seen[b], 1u);
    // Across CTAs: data, then a release flag, then an acq_rel ticket.
    data[b * BLOCK + t] = in[b * BLOCK + t] * 3;
    __syncthreads();
    if (t == 0) {
        st_release_gpu(&flags[b], 1);
        unsigned ticket = atom_add_acq_rel_gpu(count, 1);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        int w = 0;
        for (unsigned c = 0; c < gridDim.x; c++) {
            while (ld_acquire_gpu(&flags[c]) == 0) {
            }
            w += data[c * BLOCK + t];
        }
        int total = block_sum(s, w);
        if (t == 0) *result = total;
    }
}
