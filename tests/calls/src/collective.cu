// __noinline__ device functions holding a CTA barrier (`__syncthreads()`, a block-reduction
// step) and a warp collective (`__shfl_down_sync`, a warp sum), called from loops and from
// several call sites after an early exit. ptxcross inlines such functions whatever its
// inlining budget (a stack-called body cannot hold a barrier).

// One step of a block tree reduction: s[t] += s[t + stride] for t < stride, then a barrier.
__device__ __noinline__ void block_step(volatile unsigned *s, unsigned stride) {
    unsigned t = threadIdx.x;
    if (t < stride && t + stride < blockDim.x) {
        s[t] += s[t + stride];
    }
    __syncthreads();
}

// The sum of v over the CTA, in every thread: block_step called from a loop.
__device__ __noinline__ unsigned block_sum(volatile unsigned *s, unsigned v) {
    s[threadIdx.x] = v;
    __syncthreads();
    unsigned top = 1;
    while (top < blockDim.x) {
        top <<= 1;
    }
    for (unsigned stride = top >> 1; stride > 0; stride >>= 1) {
        block_step(s, stride);
    }
    unsigned r = s[0];
    __syncthreads(); // s is written again by the next call
    return r;
}

// CTAs whose first element is past n leave at once (the whole CTA: every thread that stays
// reaches every barrier); the others sum their elements (0 past n) twice.
extern "C" __global__ void block_sum_kernel(const unsigned *in, unsigned *out, int n) {
    __shared__ unsigned s[1024];
    if (blockIdx.x * blockDim.x >= (unsigned)n) {
        return;
    }
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = i < (unsigned)n ? in[i] : 0u;
    unsigned a = block_sum(s, x);
    unsigned b = block_sum(s, x * x + threadIdx.x);
    block_step(s, 0); // a third call site: a barrier alone
    out[i] = a ^ (b + threadIdx.x);
}

// A tree sum over the lanes of `mask` (a prefix of the warp's lanes): each lane adds the value
// of lane + d where that lane is in the mask, so lane 0 ends with the sum of the mask's lanes.
__device__ __noinline__ unsigned warp_sum(unsigned v, unsigned mask) {
    unsigned lane = threadIdx.x & 31;
    for (unsigned d = 16; d > 0; d >>= 1) {
        unsigned o = __shfl_down_sync(mask, v, d);
        if (lane + d < 32 && ((mask >> (lane + d)) & 1)) {
            v += o;
        }
    }
    return v;
}

// Threads past n leave before the calls; the lanes that stay (a prefix of their warp, the
// last warp of a CTA possibly partial) are the members of every shuffle.
extern "C" __global__ void warp_sum_kernel(const unsigned *in, unsigned *out, int n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    unsigned lanes = blockDim.x - (threadIdx.x - lane);
    unsigned present = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
    unsigned mask = __ballot_sync(present, i < (unsigned)n);
    if (i >= (unsigned)n) {
        return;
    }
    unsigned x = in[i];
    unsigned acc = 0;
    for (unsigned r = 0; r < 3; ++r) {
        acc = acc * 7 + warp_sum(x + r, mask);
    }
    unsigned y = warp_sum(x ^ 0x5a5a5a5au, mask);
    out[i] = acc ^ (y << 1);
}
