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

// Warp specialisation with warp collectives (issue 10): warp 0 produces, the other warps
// (blocks of 100 or 48: a partial last warp) consume and reduce with warp collectives. The
// consumers' branch comes first in program order. Consumers first take pre =
// __reduce_add_sync(0xffffffff, in[gid]) over their warp; lanes whose input is 3 mod 7 then
// exit (out[gid] = pre + t). The others wait at `bar.sync 1, count` (count: the CTA's
// warps, in a register) for the producer's `bar.arrive 1, count`, read v = buf[(5t + 3) % n],
// take m = __ballot_sync(0xffffffff, 1) (the warp's live lanes), reduce v with a tree of
// __shfl_down_sync(m, s, d) for d = 16, 8, 4, 2, 1 (a lane adds y when lane + d < 32 is in m),
// and out[gid] = s ^ __ballot_sync(m, v & 1) ^ (__reduce_add_sync(m, v) << 3) ^ (pre * 7).
// Warp 0 fills buf[i] = in[base + i] * 3 + 1 for i = t, t + 32, ... < n, arrives, then
// out[gid] = __reduce_add_sync(0xffffffff, in[gid]) + __shfl_xor_sync(0xffffffff, in[gid], 5).
extern "C" __global__ void wspec(const unsigned *in, unsigned *out) {
    __shared__ unsigned buf[128];
    unsigned t = threadIdx.x;
    unsigned n = blockDim.x;
    unsigned gid = blockIdx.x * n + t;
    unsigned lane = t & 31;
    unsigned count = (n + 31) / 32 * 32;
    unsigned x = in[gid];
    if (t >= 32) {
        unsigned pre = __reduce_add_sync(0xffffffff, x);
        if (x % 7 == 3) {
            out[gid] = pre + t;
            return;
        }
        asm volatile("bar.sync 1, %0;" ::"r"(count) : "memory");
        unsigned v = buf[(5 * t + 3) % n];
        unsigned m = __ballot_sync(0xffffffff, 1);
        unsigned s = v;
        for (unsigned d = 16; d > 0; d /= 2) {
            unsigned y = __shfl_down_sync(m, s, d);
            if (lane + d < 32 && (m >> (lane + d)) & 1) s += y;
        }
        out[gid] = s ^ __ballot_sync(m, v & 1) ^ ((unsigned)__reduce_add_sync(m, v) << 3) ^ (pre * 7);
    } else {
        for (unsigned i = t; i < n; i += 32) buf[i] = in[blockIdx.x * n + i] * 3 + 1;
        asm volatile("bar.arrive 1, %0;" ::"r"(count) : "memory");
        out[gid] = (unsigned)__reduce_add_sync(0xffffffff, x) + __shfl_xor_sync(0xffffffff, x, 5);
    }
}

// A collective whose lanes get there in different scheduler rounds (blocks of 64 or 48).
// Warp 0 splits: lanes 0-15 wait at `barrier.sync 1, 64` for warp 1 (the non-.aligned form:
// each thread waits for its warp's other lanes to arrive, §9.7.13.1), while lanes 16-31 only
// `barrier.arrive 1, 64` and go on to the whole warp's collectives, where they wait; once
// released, lanes 0-15 add buf[lane + 32] and exchange among themselves with
// __shfl_xor_sync(0x0000ffff, x, 1) (one more round) before joining them; lanes 16-31 take
// x ^ 0x1234. Then, for the whole warp: b = __ballot_sync(0xffffffff, x & 1),
// s = __reduce_add_sync(0xffffffff, x), y = __shfl_sync(0xffffffff, x, (7 lane) & 31),
// out[gid] = s ^ b ^ (y * 5).
// Warp 1 (16 lanes in a block of 48) first waits at __syncwarp() (a round), then writes
// buf[t] = in[gid] * 9 + 1, `bar.arrive 1, 64`, and out[gid] = __activemask() ^ (in[gid] + 2).
extern "C" __global__ void split(const unsigned *in, unsigned *out) {
    __shared__ unsigned buf[64];
    unsigned t = threadIdx.x;
    unsigned gid = blockIdx.x * blockDim.x + t;
    unsigned lane = t & 31;
    unsigned x = in[gid];
    if (t < 32) {
        if (lane < 16) {
            asm volatile("barrier.sync 1, 64;" ::: "memory");
            x += buf[lane + 32];
            x = x * 3 + __shfl_xor_sync(0x0000ffff, x, 1);
        } else {
            asm volatile("barrier.arrive 1, 64;" ::: "memory");
            x ^= 0x1234;
        }
        unsigned b = __ballot_sync(0xffffffff, x & 1);
        unsigned s = __reduce_add_sync(0xffffffff, x);
        unsigned y = __shfl_sync(0xffffffff, x, (7 * lane) & 31);
        out[gid] = s ^ b ^ (y * 5);
    } else {
        __syncwarp();
        buf[t] = x * 9 + 1;
        asm volatile("bar.arrive 1, 64;" ::: "memory");
        out[gid] = __activemask() ^ (x + 2);
    }
}
