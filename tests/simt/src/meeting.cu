// Warp collectives at different instructions that meet on sm_70+ (ISA 8.5 §9.7.8.6), as users
// write them; tests/tests/warp_meeting.rs computes the values. in[g]/out[2g..2g+2] by the
// global thread index g; blocks 48 and 100 (partial warps).
//   out[2g]     = lanes 0-15: lane 0's x; lanes 16-31: lane 31's 3x + 1 (two __shfl_sync)
//   out[2g + 1] = the ballots of a loop whose trip count (x & 7) differs per lane, folded
//                 (acc = 33 acc + b), plus the ballot after it of odd trip counts
extern "C" __global__ void meeting_arms(const unsigned *in, unsigned *out) {
    unsigned lane = threadIdx.x % 32;
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[g];
    unsigned r;
    if (lane < 16) {
        r = __shfl_sync(0xffffffffu, x, 0);
    } else {
        r = __shfl_sync(0xffffffffu, 3 * x + 1, 31);
    }
    unsigned trips = x & 7, acc = 0;
    for (unsigned i = 0; i < trips; i++) {
        acc = 33 * acc + __ballot_sync(0xffffffffu, (x >> (i + 3)) & 1);
    }
    acc += __ballot_sync(0xffffffffu, trips & 1);
    out[2 * g] = r;
    out[2 * g + 1] = acc;
}
