//! SIMT predication (`lower/src/simt.rs`) under adversarial shapes: barriers and collectives
//! in nested loops whose exits are per thread — `@p ret` inside a loop, a per-thread `break`
//! out of the outer loop, a per-thread inner loop with a `continue`, a uniform inner loop with
//! barriers and a per-thread `continue` — on partial warps (CTAs of 48 and 100 threads),
//! both backends, against a CPU model of the PTX written from the spec:
//! - `bar.sync` waits for the CTA's non-exited threads (§9.7.13.1: "causes executing thread
//!   to wait for all non-exited threads"); a thread that left the loop without a barrier
//!   after it exits, so the others' barriers complete;
//! - `activemask` after a barrier is the warp's non-exited lanes (every one of them executes
//!   the `.aligned` barrier in convergence, §9.7.13.1), and `vote.sync.ballot` over it sets
//!   bit `l` for each such lane whose predicate is true (§9.7.13.9);
//! - `bar.red.popc` counts the non-exited threads of the CTA with a true predicate (§9.7.13.1).

use ptxcross::Backend;
use ptxcross_tests::launch::{bytes, gpu_or_skip, run, words, Launch, PER_THREAD_HEADER};

const KERNEL: &str = r#"
.visible .entry k(.param .u64 out, .param .u64 inp)
{
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<16>;
    .shared .align 4 .b32 sh[128];
    .shared .align 4 .b32 sh2[128];
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd2, %rd5;
    add.s64 %rd7, %rd1, %rd5;
    ld.global.u32 %r20, [%rd6];
    mov.u64 %rd8, sh;
    mul.wide.u32 %rd9, %r1, 4;
    add.s64 %rd10, %rd8, %rd9;
    mov.u64 %rd12, sh2;
    add.s64 %rd11, %rd12, %rd9;
    xor.b32 %r21, %r1, 1;
    mul.wide.u32 %rd13, %r21, 4;
    add.s64 %rd13, %rd12, %rd13;
    st.shared.u32 [%rd10], %r20;
    st.shared.u32 [%rd11], %r20;
    st.global.u32 [%rd7], %r20;
    mov.u32 %r10, 0;
OUTER:
    bar.sync 0;
    add.u32 %r11, %r1, %r10;
    add.u32 %r11, %r11, 1;
    rem.u32 %r11, %r11, %r3;
    mul.wide.u32 %rd3, %r11, 4;
    add.s64 %rd3, %rd8, %rd3;
    ld.shared.u32 %r14, [%rd3];
    and.b32 %r15, %r14, 15;
    setp.eq.u32 %p1, %r15, 0;
    setp.eq.u32 %p2, %r10, 1;
    and.pred %p1, %p1, %p2;
    @%p1 ret;
    setp.eq.u32 %p2, %r15, 1;
    setp.eq.u32 %p3, %r10, 2;
    and.pred %p2, %p2, %p3;
    @%p2 bra DONE;
    and.b32 %r16, %r14, 3;
    mov.u32 %r17, 0;
IN1:
    setp.ge.u32 %p3, %r17, %r16;
    @%p3 bra IN1_END;
    add.u32 %r17, %r17, 1;
    setp.eq.u32 %p4, %r17, 2;
    @%p4 bra IN1;
    mad.lo.u32 %r20, %r17, 3, %r20;
    bra IN1;
IN1_END:
    mov.u32 %r18, 0;
IN2:
    bar.sync 0;
    st.shared.u32 [%rd11], %r20;
    bar.sync 0;
    ld.shared.u32 %r22, [%rd13];
    and.b32 %r23, %r22, 4;
    setp.ne.u32 %p5, %r23, 0;
    @%p5 bra IN2_NEXT;
    add.u32 %r20, %r20, %r22;
IN2_NEXT:
    add.u32 %r18, %r18, 1;
    setp.lt.u32 %p6, %r18, 2;
    @%p6 bra IN2;
    bar.sync 0;
    activemask.b32 %r24;
    and.b32 %r25, %r20, 1;
    setp.ne.u32 %p7, %r25, 0;
    vote.sync.ballot.b32 %r26, %p7, %r24;
    popc.b32 %r27, %r26;
    add.u32 %r20, %r20, %r27;
    and.b32 %r25, %r20, 2;
    setp.ne.u32 %p7, %r25, 0;
    bar.red.popc.u32 %r28, 0, %p7;
    mad.lo.u32 %r20, %r28, 5, %r20;
    st.shared.u32 [%rd10], %r20;
    st.global.u32 [%rd7], %r20;
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p6, %r10, 4;
    @%p6 bra OUTER;
    bar.sync 0;
    xor.b32 %r29, %r20, 0x55;
    st.global.u32 [%rd7], %r29;
    ret;
DONE:
    xor.b32 %r29, %r20, 0x1000;
    st.global.u32 [%rd7], %r29;
    ret;
}
"#;

/// The kernel's output words for one CTA of `x.len()` threads with inputs `x` (see the module
/// doc for the rules), phase by phase: between two barriers every non-exited thread runs the
/// same code, so each phase is computed for all of them from the state the last barrier left.
fn model(x: &[u32]) -> (Vec<u32>, usize, usize) {
    let n = x.len();
    let mut acc = x.to_vec();
    let mut sh = acc.clone();
    let mut sh2 = acc.clone();
    let mut out = acc.clone();
    let mut alive = vec![true; n];
    let (mut returned, mut broke) = (0, 0);
    for o in 0..4u32 {
        let v: Vec<u32> = (0..n).map(|t| sh[(t + o as usize + 1) % n]).collect();
        for t in 0..n {
            if !alive[t] {
                continue;
            }
            if o == 1 && v[t] & 15 == 0 {
                alive[t] = false; // `@%p1 ret`: out keeps its last value
                returned += 1;
                continue;
            }
            if o == 2 && v[t] & 15 == 1 {
                alive[t] = false; // `bra DONE`, then `ret`
                broke += 1;
                out[t] = acc[t] ^ 0x1000;
                continue;
            }
            let mut j = 0;
            while j < v[t] & 3 {
                j += 1;
                if j == 2 {
                    continue;
                }
                acc[t] = acc[t].wrapping_add(j * 3);
            }
        }
        for _ in 0..2 {
            for t in 0..n {
                if alive[t] {
                    sh2[t] = acc[t];
                }
            }
            for t in 0..n {
                if alive[t] {
                    let p = sh2[t ^ 1];
                    if p & 4 == 0 {
                        acc[t] = acc[t].wrapping_add(p);
                    }
                }
            }
        }
        let ballots: Vec<u32> = (0..n)
            .map(|t| {
                let w = t / 32 * 32;
                (w..(w + 32).min(n)).filter(|&l| alive[l] && acc[l] & 1 != 0).fold(0, |b, l| b | 1 << (l - w))
            })
            .collect();
        for t in 0..n {
            if alive[t] {
                acc[t] = acc[t].wrapping_add(ballots[t].count_ones());
            }
        }
        let count = (0..n).filter(|&t| alive[t] && acc[t] & 2 != 0).count() as u32;
        for t in 0..n {
            if alive[t] {
                acc[t] = acc[t].wrapping_add(count * 5);
                sh[t] = acc[t];
                out[t] = acc[t];
            }
        }
    }
    for t in 0..n {
        if alive[t] {
            out[t] = acc[t] ^ 0x55;
        }
    }
    (out, returned, broke)
}

#[test]
fn barriers_and_votes_in_nested_loops_with_per_thread_exits_on_partial_warps() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = format!("{PER_THREAD_HEADER}{KERNEL}");
    for block in [48u32, 100] {
        let grid = 3u32;
        let n = (block * grid) as usize;
        let mut s = 0x1234_5678u32 ^ block;
        let input: Vec<u32> = (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                s
            })
            .collect();
        let ctas: Vec<_> = input.chunks(block as usize).map(model).collect();
        // The exits happen: some threads return inside the loop, some break out.
        assert!(ctas.iter().any(|c| c.1 > 0) && ctas.iter().any(|c| c.2 > 0), "{block}: {:?}", ctas.iter().map(|c| (c.1, c.2)).collect::<Vec<_>>());
        let want: Vec<u32> = ctas.into_iter().flat_map(|c| c.0).collect();
        for backend in Backend::ALL {
            let launch = Launch { ptx: &ptx, kernel: "k", block: [block, 1, 1], grid: [grid, 1, 1], buffers: vec![vec![0; n * 4], bytes(&input)] };
            let out = run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{backend}, {block} threads: {e}"));
            let got = words(&out[0]);
            let bad: Vec<usize> = (0..n).filter(|&i| got[i] != want[i]).collect();
            assert!(
                bad.is_empty(),
                "{backend}, {block} threads: {} of {n} words wrong, first thread {} (CTA {}): expected {:#x}, got {:#x}",
                bad.len(),
                bad[0] % block as usize,
                bad[0] / block as usize,
                want[bad[0]],
                got[bad[0]]
            );
        }
    }
}

/// Warp-level only (no CTA barrier): lanes `ret` inside a loop at per-lane iterations; each
/// iteration the rest meet at `bar.warp.sync` (full mask: "wait for non-exited threads",
/// §9.7.13.3), take `activemask`, and add the value of the lowest lane still running
/// (`shfl.sync.idx` from lane `ctz(mask)`, §9.7.9.6: a source lane in `membermask`).
const WARP_KERNEL: &str = r#"
.visible .entry w(.param .u64 out, .param .u64 inp)
{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd2, %rd5;
    add.s64 %rd7, %rd1, %rd5;
    ld.global.u32 %r20, [%rd6];
    mov.u32 %r10, 0;
LOOP:
    bar.warp.sync -1;
    activemask.b32 %r11;
    brev.b32 %r12, %r11;
    bfind.shiftamt.u32 %r13, %r12;
    shfl.sync.idx.b32 %r14, %r20, %r13, 31, %r11;
    add.u32 %r20, %r20, %r14;
    st.global.u32 [%rd7], %r20;
    and.b32 %r15, %r20, 7;
    setp.eq.u32 %p1, %r15, 0;
    @%p1 ret;
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, 6;
    @%p2 bra LOOP;
    xor.b32 %r20, %r20, 0x77;
    st.global.u32 [%rd7], %r20;
    ret;
}
"#;

fn warp_model(x: &[u32]) -> (Vec<u32>, usize) {
    let mut acc = x.to_vec();
    let mut out = vec![0u32; x.len()];
    let mut exits = 0;
    for w in x.chunks(32).enumerate().map(|(i, c)| i * 32..i * 32 + c.len()) {
        let mut alive: Vec<usize> = w.clone().collect();
        for _ in 0..6 {
            let leader = acc[alive[0]];
            for &l in &alive {
                acc[l] = acc[l].wrapping_add(leader);
                out[l] = acc[l];
            }
            let before = alive.len();
            alive.retain(|&l| acc[l] & 7 != 0);
            exits += before - alive.len();
            if alive.is_empty() {
                break;
            }
        }
        for &l in &alive {
            out[l] = acc[l] ^ 0x77;
        }
    }
    (out, exits)
}

#[test]
fn warp_shuffles_from_the_lowest_live_lane_as_lanes_return_inside_a_loop() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = format!("{PER_THREAD_HEADER}{WARP_KERNEL}");
    for block in [48u32, 100] {
        let grid = 2u32;
        let n = (block * grid) as usize;
        let mut s = 0x0bad_cafeu32 ^ block;
        let input: Vec<u32> = (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                s
            })
            .collect();
        let ctas: Vec<_> = input.chunks(block as usize).map(warp_model).collect();
        assert!(ctas.iter().all(|c| c.1 > 0), "some lanes return early");
        let want: Vec<u32> = ctas.into_iter().flat_map(|c| c.0).collect();
        for backend in Backend::ALL {
            let launch = Launch { ptx: &ptx, kernel: "w", block: [block, 1, 1], grid: [grid, 1, 1], buffers: vec![vec![0; n * 4], bytes(&input)] };
            let out = run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{backend}, {block} threads: {e}"));
            let got = words(&out[0]);
            let bad: Vec<usize> = (0..n).filter(|&i| got[i] != want[i]).collect();
            assert!(
                bad.is_empty(),
                "{backend}, {block} threads: {} of {n} words wrong, first thread {} (CTA {}): expected {:#x}, got {:#x}",
                bad.len(),
                bad[0] % block as usize,
                bad[0] / block as usize,
                want[bad[0]],
                got[bad[0]]
            );
        }
    }
}

/// Collectives in a loop whose trip count is per lane, the membermask narrowed by a ballot
/// each iteration (the CUDA idiom `mask = __ballot_sync(mask, i < n)`): every lane in `mask`
/// takes part in the ballot (§9.7.13.9), the lanes whose predicate is false leave the loop
/// (and store), the rest shuffle from the lowest lane of the new mask (§9.7.9.6) and go on.
const BALLOT_LOOP: &str = r#"
.visible .entry b(.param .u64 out, .param .u64 inp)
{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd2, %rd5;
    add.s64 %rd7, %rd1, %rd5;
    ld.global.u32 %r20, [%rd6];
    and.b32 %r21, %r20, 7;
    bar.warp.sync -1;
    activemask.b32 %r11;
    mov.u32 %r10, 0;
LOOP:
    setp.lt.u32 %p1, %r10, %r21;
    vote.sync.ballot.b32 %r12, %p1, %r11;
    @!%p1 bra DONE;
    mov.u32 %r11, %r12;
    brev.b32 %r13, %r11;
    bfind.shiftamt.u32 %r14, %r13;
    shfl.sync.idx.b32 %r15, %r20, %r14, 31, %r11;
    add.u32 %r20, %r20, %r15;
    popc.b32 %r16, %r11;
    add.u32 %r20, %r20, %r16;
    add.u32 %r10, %r10, 1;
    bra LOOP;
DONE:
    st.global.u32 [%rd7], %r20;
    ret;
}
"#;

fn ballot_loop_model(x: &[u32]) -> Vec<u32> {
    let mut acc = x.to_vec();
    for w in x.chunks(32).enumerate().map(|(i, c)| i * 32..i * 32 + c.len()) {
        let mut mask: Vec<usize> = w.collect();
        for k in 0.. {
            mask.retain(|&l| k < x[l] & 7);
            let Some(&leader) = mask.first() else { break };
            let (v, count) = (acc[leader], mask.len() as u32);
            for &l in &mask {
                acc[l] = acc[l].wrapping_add(v).wrapping_add(count);
            }
        }
    }
    acc
}

#[test]
fn ballot_narrowed_membermasks_in_a_loop_with_per_lane_trip_counts() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = format!("{PER_THREAD_HEADER}{BALLOT_LOOP}");
    for block in [48u32, 100] {
        let grid = 2u32;
        let n = (block * grid) as usize;
        let mut s = 0x5eed_0b0eu32 ^ block;
        let input: Vec<u32> = (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                s
            })
            .collect();
        let want: Vec<u32> = input.chunks(block as usize).flat_map(ballot_loop_model).collect();
        for backend in Backend::ALL {
            let launch = Launch { ptx: &ptx, kernel: "b", block: [block, 1, 1], grid: [grid, 1, 1], buffers: vec![vec![0; n * 4], bytes(&input)] };
            let out = run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{backend}, {block} threads: {e}"));
            let got = words(&out[0]);
            let bad: Vec<usize> = (0..n).filter(|&i| got[i] != want[i]).collect();
            assert!(
                bad.is_empty(),
                "{backend}, {block} threads: {} of {n} words wrong, first thread {} (CTA {}): expected {:#x}, got {:#x}",
                bad.len(),
                bad[0] % block as usize,
                bad[0] / block as usize,
                want[bad[0]],
                got[bad[0]]
            );
        }
    }
}

/// Warp collectives under a branch that is uniform in each warp but not across the CTA (odd
/// warps only), in a loop whose trip count is the warp's (`warp + 1`): where warps are
/// emulated through workgroup memory and barriers (subgroups narrower than 32), the SIMT pass
/// must run that branch for every thread with masks. `shfl.sync.bfly` with `c = 31` and a
/// full mask reads lane `lane ^ b` (§9.7.9.6); full warps only (CTAs of 96 and 160).
const WARP_BRANCH: &str = r#"
.visible .entry wb(.param .u64 out, .param .u64 inp)
{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [inp];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd2, %rd5;
    add.s64 %rd7, %rd1, %rd5;
    ld.global.u32 %r20, [%rd6];
    shr.u32 %r5, %r1, 5;
    and.b32 %r6, %r5, 1;
    setp.eq.u32 %p1, %r6, 0;
    @%p1 bra SKIP;
    add.u32 %r7, %r5, 1;
    mov.u32 %r10, 0;
LOOP:
    rem.u32 %r11, %r10, 5;
    shl.b32 %r12, 1, %r11;
    shfl.sync.bfly.b32 %r13, %r20, %r12, 31, -1;
    add.u32 %r20, %r20, %r13;
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, %r7;
    @%p2 bra LOOP;
SKIP:
    st.global.u32 [%rd7], %r20;
    ret;
}
"#;

fn warp_branch_model(x: &[u32]) -> Vec<u32> {
    let mut v = x.to_vec();
    for (w, warp) in v.chunks_mut(32).enumerate() {
        if w % 2 == 0 {
            continue;
        }
        for k in 0..=w {
            let b = 1usize << (k % 5);
            let before = warp.to_vec();
            for (l, x) in warp.iter_mut().enumerate() {
                *x = x.wrapping_add(before[l ^ b]);
            }
        }
    }
    v
}

#[test]
fn warp_shuffles_under_a_warp_uniform_branch_in_a_loop_of_per_warp_trips() {
    let Some(gpu) = gpu_or_skip() else { return };
    let ptx = format!("{PER_THREAD_HEADER}{WARP_BRANCH}");
    for block in [96u32, 160] {
        let grid = 2u32;
        let n = (block * grid) as usize;
        let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x55aa_0f0f).collect();
        let want: Vec<u32> = input.chunks(block as usize).flat_map(warp_branch_model).collect();
        for backend in Backend::ALL {
            let launch = Launch { ptx: &ptx, kernel: "wb", block: [block, 1, 1], grid: [grid, 1, 1], buffers: vec![vec![0; n * 4], bytes(&input)] };
            let out = run(&gpu, &launch, backend).unwrap_or_else(|e| panic!("{backend}, {block} threads: {e}"));
            let got = words(&out[0]);
            let bad: Vec<usize> = (0..n).filter(|&i| got[i] != want[i]).collect();
            assert!(
                bad.is_empty(),
                "{backend}, {block} threads: {} of {n} words wrong, first thread {} (CTA {}): expected {:#x}, got {:#x}",
                bad.len(),
                bad[0] % block as usize,
                bad[0] / block as usize,
                want[bad[0]],
                got[bad[0]]
            );
        }
    }
}
