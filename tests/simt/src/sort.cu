// Bitonic sort in shared memory: each CTA sorts one segment of SEG = 256 ints ascending (the
// last, partial segment is padded with INT_MAX, which sorts last and is not written back).
// Each thread handles the indices tid, tid + blockDim.x, ... (block sizes 48 and 100 give
// threads different trip counts between the barriers); the output is the sorted segment.
#define SEG 256
extern "C" __global__ void bitonic_sort(const int *in, int *out, unsigned n) {
    __shared__ int s[SEG];
    unsigned base = blockIdx.x * SEG;
    unsigned m = n - base < SEG ? n - base : SEG;
    for (unsigned i = threadIdx.x; i < SEG; i += blockDim.x) s[i] = i < m ? in[base + i] : 0x7fffffff;
    __syncthreads();
    for (unsigned k = 2; k <= SEG; k *= 2) {
        for (unsigned j = k / 2; j > 0; j /= 2) {
            for (unsigned i = threadIdx.x; i < SEG; i += blockDim.x) {
                unsigned p = i ^ j;
                if (p > i) {
                    int a = s[i], b = s[p];
                    bool up = (i & k) == 0;
                    if (up ? a > b : a < b) {
                        s[i] = b;
                        s[p] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    for (unsigned i = threadIdx.x; i < m; i += blockDim.x) out[base + i] = s[i];
}

// Bitonic sort of one warp's 32 keys in registers with __shfl_xor_sync (full warps only): the
// lane's key after the network is the warp's (lane)th smallest.
extern "C" __global__ void warp_bitonic(const int *in, int *out) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x % 32;
    int v = in[gid];
    for (unsigned k = 2; k <= 32; k *= 2) {
        for (unsigned j = k / 2; j > 0; j /= 2) {
            int o = __shfl_xor_sync(0xffffffffu, v, j);
            bool lower = (lane & j) == 0;
            bool up = (lane & k) == 0;
            // The lower lane of a pair keeps the smaller key in an ascending run.
            v = (lower == up) ? min(v, o) : max(v, o);
        }
    }
    out[gid] = v;
}
