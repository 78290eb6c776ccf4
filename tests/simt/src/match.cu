// __match_any_sync grouping and sub-warp shuffles, on partial and divergent warps.

// Warp-aggregated histogram: lanes with equal keys find their peers with __match_any_sync; the
// lowest peer (the leader) adds the group's size and value sum with one atomic each. Threads
// past n return first; the mask is the warp's lanes below n (computed, not __activemask()).
// Each thread writes its peers mask and its rank among its peers.
extern "C" __global__ void match_groups(const unsigned *keys, const int *vals, unsigned n, unsigned *peers_out,
                                        unsigned *rank_out, unsigned *counts, int *sums) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x % 32;
    if (gid >= n) return;
    unsigned wbase = gid - lane;
    unsigned live = n - wbase < 32 ? n - wbase : 32;
    // Lanes of this warp that exist (partial block) and are below n.
    unsigned in_block = blockDim.x - (threadIdx.x - lane);
    if (in_block < live) live = in_block;
    unsigned mask = live == 32 ? 0xffffffffu : (1u << live) - 1;
    unsigned key = keys[gid];
    int v = vals[gid];
    unsigned peers = __match_any_sync(mask, key);
    unsigned leader = __ffs(peers) - 1;
    // Sum of the group's values: a segmented reduction over the peers.
    // Every lane of the mask executes the same 32 shuffles (a source lane outside the mask
    // gives an undefined value, which no peers mask selects).
    int total = 0;
    for (unsigned src = 0; src < 32; src++) {
        int o = __shfl_sync(mask, v, src);
        if (peers >> src & 1) total += o;
    }
    if (lane == leader) {
        atomicAdd(&counts[key], (unsigned)__popc(peers));
        atomicAdd(&sums[key], total);
    }
    peers_out[gid] = peers;
    rank_out[gid] = __popc(peers & ((1u << lane) - 1));
}

// __match_all_sync and vote on a divergent subset: lanes with (key & 1) take part (their mask
// is a ballot taken before the branch); out[gid] = match_all result | pred << 31 for those,
// ~0 for the others. any/all/uni votes of (key > 8) among the same lanes go to votes[warp].
extern "C" __global__ void match_all_odd(const unsigned *keys, unsigned *out, unsigned *votes) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned key = keys[gid];
    bool odd = key & 1;
    unsigned m = __ballot_sync(0xffffffffu, odd);
    unsigned r = 0xffffffffu;
    if (odd) {
        int pred;
        unsigned all = __match_all_sync(m, key >> 4, &pred);
        r = all | (unsigned)pred << 31;
        unsigned a = __all_sync(m, key > 8), y = __any_sync(m, key > 8), u = __uni_sync(m, key > 8);
        if ((threadIdx.x % 32) == __ffs(m) - 1) votes[gid / 32] = a | y << 1 | u << 2 | 8;
    }
    out[gid] = r;
}

// Sub-warp shuffles with a width (the `c` operand's segment mask): width-8 down-reduction,
// width-16 idx broadcast of an out-of-segment source lane (taken modulo the width), and an up
// shuffle whose source falls below the segment (the lane keeps its own value). redux.sync
// adds over the full warp. out[4 * gid ..]: the four results.
extern "C" __global__ void sub_warp(const int *in, int *out) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    int s = v;
    for (int d = 4; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d, 8);
    int b = __shfl_sync(0xffffffffu, v, 21, 16);
    int u = __shfl_up_sync(0xffffffffu, v, 3, 8);
    int r = __reduce_add_sync(0xffffffffu, v);
    out[4 * gid] = s;
    out[4 * gid + 1] = b;
    out[4 * gid + 2] = u;
    out[4 * gid + 3] = r;
}
