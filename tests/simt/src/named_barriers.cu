// Named barriers for part of the CTA (PTX ISA §9.7.13.1, `bar.arrive a, b` / `bar.sync a, b`),
// CUTLASS-style warp specialisation through inline PTX. tests/tests/simt_kernels.rs computes
// each kernel's results on the CPU from the definitions below.

// One hand-off: warps 0-1 (producers) first swap neighbouring values among themselves through
// `bar.sync 3, 64`, then fill buf and `bar.arrive 1, 128`, and go on without waiting; warps
// 2-3 (consumers) `bar.sync 1, 128` and read it. The consumers' branch comes first in program
// order, so a translation that runs the two branches one after the other with a CTA-wide
// barrier in each reads buf before the producers wrote it, and one that lets the consumers pass
// their barrier early reads it while the producers are still at `bar.sync 3`. Threads from 128
// on (blocks of 160 or 144: a partial last warp) take no part: they wait at `bar.sync 2` with
// no thread count (every non-exited warp of the CTA) after the others exited.
// out[gid] = consumer: (in[base + ((t - 64) ^ 1)] ^ 0x5a5a) * 3 + 1 (base: the CTA's first
// gid); producer: in[gid] + 7; others: gid.
extern "C" __global__ void handoff(const unsigned *in, unsigned *out) {
    __shared__ unsigned buf[64];
    __shared__ unsigned stage[64];
    unsigned t = threadIdx.x;
    unsigned gid = blockIdx.x * blockDim.x + t;
    if (t >= 64 && t < 128) {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        out[gid] = buf[t - 64] * 3 + 1;
    } else if (t < 64) {
        unsigned v = in[gid];
        stage[t] = v;
        asm volatile("bar.sync 3, 64;" ::: "memory");
        buf[t] = stage[t ^ 1] ^ 0x5a5a;
        asm volatile("bar.arrive 1, 128;" ::: "memory");
        out[gid] = v + 7;
    } else {
        asm volatile("bar.sync 2;" ::: "memory");
        out[gid] = gid;
    }
}

// A pipeline over `iters` stages with two slots and four barriers: FULL(s) = 1 + s (producers
// arrive, consumers sync), EMPTY(s) = 3 + s (consumers arrive, producers sync before reusing
// slot s). Warps 0-1 produce stage i into slot i & 1: buf[s][t] = in[base + 64 i + t] + i;
// warps 2-3 consume it: x = buf[s][t - 64], then they exchange x between their two warps
// through `bar.sync 5, 64` (twice), so the consumers take more barrier rounds per stage than
// the producers, whose EMPTY waits must hold them back: acc = acc * 31 + x + (y >> 3), y the
// x of thread t ^ 32. The FULL/EMPTY barrier ids are held in registers.
// out[gid] = consumer: its acc; producer: the number of stages it produced.
extern "C" __global__ void pipeline(const unsigned *in, unsigned iters, unsigned *out) {
    __shared__ unsigned buf[2][64];
    __shared__ unsigned mine[64];
    unsigned t = threadIdx.x;
    unsigned gid = blockIdx.x * blockDim.x + t;
    unsigned base = blockIdx.x * 64 * iters;
    if (t < 64) {
        unsigned made = 0;
        for (unsigned i = 0; i < iters; i++) {
            unsigned s = i & 1;
            if (i >= 2) asm volatile("bar.sync %0, 128;" ::"r"(3 + s) : "memory");
            buf[s][t] = in[base + 64 * i + t] + i;
            asm volatile("bar.arrive %0, 128;" ::"r"(1 + s) : "memory");
            made++;
        }
        out[gid] = made;
    } else {
        unsigned acc = 0;
        for (unsigned i = 0; i < iters; i++) {
            unsigned s = i & 1;
            asm volatile("bar.sync %0, 128;" ::"r"(1 + s) : "memory");
            unsigned x = buf[s][t - 64];
            asm volatile("bar.arrive %0, 128;" ::"r"(3 + s) : "memory");
            mine[t - 64] = x;
            asm volatile("bar.sync 5, 64;" ::: "memory");
            unsigned y = mine[(t - 64) ^ 32];
            asm volatile("bar.sync 5, 64;" ::: "memory");
            acc = acc * 31 + x + (y >> 3);
        }
        out[gid] = acc;
    }
}

// Partial-CTA barriers while other warps do something else: warps 0 and 1 swap values through
// `bar.sync 1, 64`; warps 2 and 3 run a loop of in[first thread of the CTA] % 4 + 2 rounds,
// each exchanging through `bar.sync 2, count` twice (a count held in a register); from warp 4
// on (blocks of 160, 144 or 320) neighbouring threads swap values through `bar.warp.sync -1`
// (`__syncwarp()`). Then `__syncthreads()` (bar.sync 0: every non-exited warp) and
// every thread reads its neighbour's result. With `stall` non-zero, warp 0 returns before its
// barrier, so warp 1 waits for a count that is never reached (undefined in PTX: the launch
// must end with a fault, not hang).
// r(t): warps 0-1: in[gid ^ 32] + 1; warps 2-3: x after the loop below; others: (gid ^ 1) * 5 + 1.
// out[gid] = r(t) + r((t + 1) % n).
extern "C" __global__ void pairs(const unsigned *in, unsigned count, unsigned stall, unsigned *out) {
    __shared__ unsigned sh[1024];
    __shared__ unsigned res[1024];
    unsigned t = threadIdx.x;
    unsigned n = blockDim.x;
    unsigned gid = blockIdx.x * n + t;
    unsigned w = t / 32;
    unsigned r;
    if (w < 2) {
        if (stall && w == 0) return;
        sh[t] = in[gid];
        asm volatile("bar.sync 1, 64;" ::: "memory");
        r = sh[t ^ 32] + 1;
    } else if (w < 4) {
        unsigned x = in[gid];
        unsigned rounds = in[blockIdx.x * n] % 4 + 2;
        for (unsigned k = 0; k < rounds; k++) {
            sh[t] = x;
            asm volatile("bar.sync 2, %0;" ::"r"(count) : "memory");
            x = x * 3 + sh[t ^ 32] + k;
            asm volatile("bar.sync 2, %0;" ::"r"(count) : "memory");
        }
        r = x;
    } else {
        sh[t] = gid * 5;
        asm volatile("bar.warp.sync -1;" ::: "memory");
        r = sh[t ^ 1] + 1;
    }
    res[t] = r;
    __syncthreads();
    out[gid] = r + res[(t + 1) % n];
}

// `bar.red` for part of the CTA: warps 0-1 count (in & 1) over their 64 threads with
// `bar.red.popc.u32 d, 1, 64, p`; warps 2-3 AND (in % 3 != 0) over theirs with
// `bar.red.and.pred p, 2, 64, q`; the warps from 4 on (blocks of 160 or 144) count (in & 2)
// with `bar.red.popc.u32 d, 3, count, p`, count in a register (32 per warp). The two pairs'
// branches come in reverse warp order.
// out[gid] = the result of its group.
extern "C" __global__ void reds(const unsigned *in, unsigned count, unsigned *out) {
    unsigned t = threadIdx.x;
    unsigned gid = blockIdx.x * blockDim.x + t;
    unsigned x = in[gid];
    unsigned w = t / 32;
    unsigned r;
    if (w >= 4) {
        asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; bar.red.popc.u32 %0, 3, %2, p; }" : "=r"(r) : "r"(x & 2), "r"(count) : "memory");
    } else if (w >= 2) {
        asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %1, 0; bar.red.and.pred q, 2, 64, p; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "r"(x % 3) : "memory");
    } else {
        asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; bar.red.popc.u32 %0, 1, 64, p; }" : "=r"(r) : "r"(x & 1) : "memory");
    }
    out[gid] = r;
}
