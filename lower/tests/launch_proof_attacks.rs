//! Adversarial launches against the launch precondition (`launch_proof` + `induction`): for
//! kernels built to break the proof's corners (counters that wrap, `!=` exits a step jumps
//! over, counters changed a second way, inner counters not reset by an outer loop, signed
//! tests with negative starts, sign-extended indices, 64-bit counters, swapped and negated
//! exit tests, generic addresses in other windows), many launches (edge values and random
//! ones) are checked against an independent simulation of each kernel written here from its
//! PTX: whenever [`LaunchProof::holds`] accepts a launch, every heap access that the
//! simulation makes must be inside the heap segment, outside the reserved words and aligned —
//! the only thing a holding precondition may be trusted for. (The simulation is this file's
//! reading of the PTX, not ptxcross's IR or interpreter.) The check asks more than the proof
//! promises — an access without a claim keeps its fault recording in the variant and may be
//! out of range — so every kernel here is one whose accesses the proof claims once it holds;
//! one whose loop bound is loaded (no claim for its store) is checked apart
//! ([`a_bound_loaded_in_the_loop_keeps_its_checks`]).

use ptxcross_lower::ir::Kernel;
use ptxcross_lower::launch_proof::{analyse, specialise, LaunchValues};
use ptxcross_lower::abi;

mod support;

fn kernel(ptx: &str, block: [u32; 3]) -> Kernel {
    support::lower_kernel(ptx, block)
}

/// The parameter buffer (segment 0), `args` as `(byte offset, value, size)`.
fn params(k: &Kernel, args: &[(u32, u64, u32)]) -> Vec<u32> {
    let mut words = vec![0u32; (abi::PARAM_HEADER_WORDS + k.param_bytes.div_ceil(4)) as usize];
    for &(offset, value, size) in args {
        let w = (abi::PARAM_HEADER_WORDS + offset / 4) as usize;
        words[w] = value as u32;
        if size == 8 {
            words[w + 1] = (value >> 32) as u32;
        }
    }
    words
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A 32-bit value biased towards the edges (0, 1, small, around 2^31, near 2^32).
    fn u32_edge(&mut self) -> u32 {
        let r = self.next();
        let small = (r >> 8) as u32 % 300;
        match r % 9 {
            0 => small,
            1 => 0u32.wrapping_sub(small),
            2 => 0x8000_0000u32.wrapping_add(small),
            3 => 0x7fff_ffffu32.wrapping_sub(small),
            4 => 1 << ((r >> 8) % 32),
            5 => (1u32 << ((r >> 8) % 32)).wrapping_neg(),
            6 => (r >> 32) as u32,
            _ => small % 70,
        }
    }
}

/// Where an access lands, for a heap of `heap_words` words in segment 0: `true` when the
/// checked kernel records no fault for it (inside the segment's window, past the reserved
/// words, every byte in the heap, aligned to `size`).
fn heap_ok(addr: u64, size: u64, heap_words: u64) -> bool {
    if addr >> 32 != abi::HEAP_BASE >> 32 {
        return false;
    }
    let off = addr & 0xffff_ffff;
    off.is_multiple_of(size) && off >= 4 * abi::HEAP_RESERVED_WORDS as u64 && off + size.max(4) <= 4 * heap_words
}

/// Launch arguments: `(byte offset, value, size)`.
type Args = Vec<(u32, u64, u32)>;
/// A thread's simulation: `(mode, args, tid, ctaid, access) -> ended`.
type ThreadFn = fn(u32, &[(u32, u64, u32)], [u32; 3], [u32; 3], &mut dyn FnMut(u64, u64)) -> bool;

/// One attack: a kernel, its block, and a simulation of one thread `(tid, ctaid)` under the
/// launch's parameter values (as the `args` generator made them), calling `access(addr,
/// size)` for each heap access; it returns `false` when the thread ran out of its step
/// budget (a loop that may not end: its accesses so far are still checked).
struct Attack {
    name: &'static str,
    ptx: String,
    block: [u32; 3],
    /// Launch arguments `(offset, value, size)` and the grid, from the generator.
    args: fn(&mut Rng) -> (Args, [u32; 3]),
    thread: ThreadFn,
    /// Which variant of a family of kernels (passed to `thread`).
    mode: u32,
}

const STEPS: u32 = 1 << 10;

fn arg(a: &[(u32, u64, u32)], i: usize) -> u64 {
    a[i].1
}

/// A pointer somewhere near the heap: the start of the allocations, a little before, near a
/// heap of up to 2^16 words' end, in another segment, misaligned.
fn pointer(r: &mut Rng) -> u64 {
    let base = abi::HEAP_BASE;
    let off = match r.next() % 6 {
        0 => 256,
        1 => 256 + 4 * (r.next() % 64),
        2 => (r.next() % (1 << 18)) & !3,
        3 => r.next() % (1 << 18),
        4 => 0xffff_ff00,
        _ => 4096,
    };
    match r.next() % 10 {
        0 => abi::SHARED_WINDOW_BASE + off,
        1 => base + (1 << 32) + off,
        _ => base + off,
    }
}

fn check(a: &Attack, launches: usize, seed: u64) -> (usize, usize) {
    let k = kernel(&a.ptx, a.block);
    let Some(proof) = analyse(&k) else {
        eprintln!("{}: no precondition", a.name);
        return (0, launches);
    };
    let mut r = Rng(seed);
    let (mut held, mut total) = (0, 0);
    for _ in 0..launches {
        let (args, grid) = (a.args)(&mut r);
        let p = params(&k, &args);
        // Every thread of small grids; the corners and a sample of big ones.
        let mut ctas: Vec<[u32; 3]> = Vec::new();
        let n_cta = grid.iter().map(|&g| g as u64).product::<u64>();
        if n_cta <= 64 {
            for z in 0..grid[2] {
                for y in 0..grid[1] {
                    for x in 0..grid[0] {
                        ctas.push([x, y, z]);
                    }
                }
            }
        } else {
            ctas.push([0, 0, 0]);
            ctas.push([grid[0] - 1, grid[1] - 1, grid[2] - 1]);
            for _ in 0..2 {
                ctas.push([(r.next() % grid[0] as u64) as u32, (r.next() % grid[1] as u64) as u32, (r.next() % grid[2] as u64) as u32]);
            }
        }
        // The accesses of those threads, with who made them.
        let mut accesses: Vec<(u64, u64, [u32; 3], [u32; 3])> = Vec::new();
        for &cta in &ctas {
            for t in 0..a.block[0] * a.block[1] * a.block[2] {
                let tid = [t % a.block[0], t / a.block[0] % a.block[1], t / (a.block[0] * a.block[1])];
                (a.thread)(a.mode, &args, tid, cta, &mut |addr, size| accesses.push((addr, size, tid, cta)));
            }
        }
        // Heaps around the smallest one that holds every access (when there is one): a
        // word short must fail, the exact one may hold.
        let need = accesses.iter().map(|&(addr, size, ..)| ((addr & 0xffff_ffff) + size.max(4)).div_ceil(4)).max().unwrap_or(64).max(64);
        let mut heaps = vec![need - 1, need, 64 + r.next() % 64, 1 << 20];
        heaps.retain(|&h| (64..=1 << 30).contains(&h));
        for heap_words in heaps {
            total += 1;
            if !proof.holds(LaunchValues { params: &p, grid, heap_words }) {
                continue;
            }
            held += 1;
            if let Some(&(addr, _, tid, cta)) = accesses.iter().find(|&&(addr, size, ..)| !heap_ok(addr, size, heap_words)) {
                panic!(
                    "{}: the precondition holds for args {args:x?}, grid {grid:?}, heap {heap_words} words, but thread {tid:?} of CTA {cta:?} accesses {addr:#x}",
                    a.name
                );
            }
        }
    }
    (held, total)
}

const HEAD: &str = ".version 7.0\n.target sm_80\n.address_size 64\n";

/// A do-while over a pointer and a separate counter (nvcc's tile-loop shape), the counter
/// started at `k` and tested after its step: `i = k; q = x + 4 tid; do { *q = i; q += 4 t;
/// i += s } while (i OP n)`, for each OP (`mode`: lt.u32, le.u32, lt.s32, le.s32, ne.u32).
const DO_WHILE_OPS: [&str; 5] = ["lt.u32", "le.u32", "lt.s32", "le.s32", "ne.u32"];

fn do_while(mode: u32) -> Attack {
    Attack {
        name: DO_WHILE_OPS[mode as usize],
        ptx: format!(
            "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 s, .param .u32 k, .param .u32 t)
{{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [s]; ld.param.u32 %r4, [k]; ld.param.u32 %r5, [t];
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    mul.wide.u32 %rd4, %r5, 4;
LOOP:
    st.global.u32 [%rd3], %r4;
    add.s64 %rd3, %rd3, %rd4;
    add.s32 %r4, %r4, %r2;
    setp.{} %p1, %r4, %r1;
    @%p1 bra LOOP;
    ret;
}}",
            DO_WHILE_OPS[mode as usize]
        ),
        mode,
        block: [8, 1, 1],
        args: |r| {
            let k = match r.next() % 3 {
                0 => r.next() % 64,
                1 => r.u32_edge() as u64,
                _ => 0,
            };
            let s = match r.next() % 3 {
                0 => 1 << (r.next() % 6),
                1 => 1 + r.next() % 64,
                _ => r.u32_edge() as u64,
            };
            let n = match r.next() % 3 {
                0 => (k + s * (r.next() % 40)) & 0xffff_ffff,
                1 => r.next() % 2000,
                _ => r.u32_edge() as u64,
            };
            let t = match r.next() % 2 {
                0 => 8,
                _ => r.u32_edge() as u64 % 4096,
            };
            (vec![(0, pointer(r), 8), (8, n, 4), (12, s, 4), (16, k, 4), (20, t, 4)], [1, 1, 1])
        },
        thread: |m, a, tid, _, acc| {
            let (x, n, s, mut i, t) = (arg(a, 0), arg(a, 1) as u32, arg(a, 2) as u32, arg(a, 3) as u32, arg(a, 4));
            let mut q = x.wrapping_add(4 * tid[0] as u64);
            for _ in 0..STEPS {
                acc(q, 4);
                q = q.wrapping_add(4 * t);
                i = i.wrapping_add(s);
                let go = match m {
                    0 => i < n,
                    1 => i <= n,
                    2 => (i as i32) < n as i32,
                    3 => (i as i32) <= n as i32,
                    _ => i != n,
                };
                if !go {
                    return true;
                }
            }
            false
        },
    }
}

fn attacks() -> Vec<Attack> {
    let mut out = attacks_fixed();
    out.extend((0..DO_WHILE_OPS.len() as u32).map(do_while));
    out
}

fn attacks_fixed() -> Vec<Attack> {
    vec![
        // `for (i = tid; i != n; i += s) x[i] = i`: `!=` stops only where a step lands on
        // `n`; a step that jumps over it runs until `i` wraps.
        Attack {
            name: "ne_head",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 s)
{{
    .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [s];
    mov.u32 %r3, %tid.x;
LOOP:
    setp.eq.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    add.s32 %r3, %r3, %r2;
    bra LOOP;
DONE:
    ret;
}}"
            ),
            mode: 0,
            block: [8, 1, 1],
            args: |r| {
                let s = match r.next() % 3 {
                    0 => 1 << (r.next() % 6),
                    1 => 8,
                    _ => r.u32_edge(),
                };
                (vec![(0, pointer(r), 8), (8, r.u32_edge() as u64 % 2000, 4), (12, s as u64, 4)], [1, 1, 1])
            },
            thread: |_m, a, tid, _, acc| {
                let (x, n, s) = (arg(a, 0), arg(a, 1) as u32, arg(a, 2) as u32);
                let mut i = tid[0];
                for _ in 0..STEPS {
                    if i == n {
                        return true;
                    }
                    acc(x.wrapping_add(4 * i as u64), 4);
                    i = i.wrapping_add(s);
                }
                false
            },
        },
        // A do-while with the `!=` test after the step, started at `k` (uniform), so the
        // congruence rule applies: `i = k; do { x[i]; i += s } while (i != n)`.
        Attack {
            name: "ne_tail_uniform",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 s, .param .u32 k)
{{
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [s]; ld.param.u32 %r3, [k];
LOOP:
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    add.s32 %r3, %r3, %r2;
    setp.ne.u32 %p1, %r3, %r1;
    @%p1 bra LOOP;
    ret;
}}"
            ),
            mode: 0,
            block: [4, 1, 1],
            args: |r| {
                let s = 1u64 << (r.next() % 5);
                let k = r.u32_edge() as u64 % 1000;
                let n = match r.next() % 3 {
                    0 => k + s * (r.next() % 40),
                    1 => k.wrapping_sub(s) & 0xffff_ffff,
                    _ => r.u32_edge() as u64,
                };
                (vec![(0, pointer(r), 8), (8, n, 4), (12, s, 4), (16, k, 4)], [1, 1, 1])
            },
            thread: |_m, a, _, _, acc| {
                let (x, n, s, mut i) = (arg(a, 0), arg(a, 1) as u32, arg(a, 2) as u32, arg(a, 3) as u32);
                for _ in 0..STEPS {
                    acc(x.wrapping_add(4 * i as u64), 4);
                    i = i.wrapping_add(s);
                    if i == n {
                        return true;
                    }
                }
                false
            },
        },
        // The same head-tested (`for (i = k; i != n; i += s) x[i]`): the body sees `i != n`,
        // which the guard's refinement takes off the end of `i`'s range.
        Attack {
            name: "ne_head_uniform",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 s, .param .u32 k)
{{
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [s]; ld.param.u32 %r3, [k];
LOOP:
    setp.eq.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    add.s32 %r3, %r3, %r2;
    bra LOOP;
DONE:
    ret;
}}"
            ),
            mode: 0,
            block: [4, 1, 1],
            args: |r| {
                let s = 1u64 << (r.next() % 5);
                let k = r.u32_edge() as u64 % 1000;
                let n = match r.next() % 4 {
                    0 => k + s * (r.next() % 40),
                    1 => k.wrapping_sub(s) & 0xffff_ffff,
                    2 => k + 1,
                    _ => r.u32_edge() as u64,
                };
                (vec![(0, pointer(r), 8), (8, n, 4), (12, s, 4), (16, k, 4)], [1, 1, 1])
            },
            thread: |_m, a, _, _, acc| {
                let (x, n, s, mut i) = (arg(a, 0), arg(a, 1) as u32, arg(a, 2) as u32, arg(a, 3) as u32);
                for _ in 0..STEPS {
                    if i == n {
                        return true;
                    }
                    acc(x.wrapping_add(4 * i as u64), 4);
                    i = i.wrapping_add(s);
                }
                false
            },
        },
        // A signed loop over a sign-extended index from `tid + k`:
        // `for (i = tid + k; i < n; i += s) x[(s64) i]` (`mul.wide.s32`), k and n signed.
        Attack {
            name: "signed_sext",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 s, .param .u32 k)
{{
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [s]; ld.param.u32 %r3, [k];
    mov.u32 %r4, %tid.x;
    add.s32 %r4, %r4, %r3;
LOOP:
    setp.ge.s32 %p1, %r4, %r1;
    @%p1 bra DONE;
    mul.wide.s32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r5, [%rd3];
    st.global.u32 [%rd1+4], %r5;
    add.s32 %r4, %r4, %r2;
    bra LOOP;
DONE:
    ret;
}}"
            ),
            mode: 0,
            block: [16, 1, 1],
            args: |r| {
                let k = match r.next() % 3 {
                    0 => (r.next() % 64) as u32,
                    1 => 0u32.wrapping_sub((r.next() % 64) as u32),
                    _ => r.u32_edge(),
                };
                let n = match r.next() % 2 {
                    0 => (r.next() % 3000) as u32,
                    _ => r.u32_edge(),
                };
                let s = match r.next() % 2 {
                    0 => 1 + (r.next() % 64) as u32,
                    _ => r.u32_edge(),
                };
                (vec![(0, pointer(r), 8), (8, n as u64, 4), (12, s as u64, 4), (16, k as u64, 4)], [1, 1, 1])
            },
            thread: |_m, a, tid, _, acc| {
                let (x, n, s, k) = (arg(a, 0), arg(a, 1) as u32 as i32, arg(a, 2) as u32, arg(a, 3) as u32);
                let mut i = tid[0].wrapping_add(k) as i32;
                for _ in 0..STEPS {
                    if i >= n {
                        return true;
                    }
                    acc(x.wrapping_add((i as i64 * 4) as u64), 4);
                    acc(x.wrapping_add(4), 4);
                    i = (i as u32).wrapping_add(s) as i32;
                }
                false
            },
        },
        // An inner do-while counter that the outer loop does not reset: `j = tid; for (o =
        // 0; o < m; o++) { do { x[j]; j++ } while (j < n); }` — each later outer iteration
        // runs the inner body once more at j = n, n + 1, ...
        Attack {
            name: "inner_not_reset",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 m)
{{
    .reg .pred %p<3>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [m];
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, 0;
OUTER:
INNER:
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    add.s32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r1;
    @%p1 bra INNER;
    add.s32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, %r2;
    @%p2 bra OUTER;
    ret;
}}"
            ),
            mode: 0,
            block: [8, 1, 1],
            args: |r| (vec![(0, pointer(r), 8), (8, r.next() % 200, 4), (12, r.next() % 50, 4)], [1 + (r.next() % 3) as u32, 1, 1]),
            thread: |_m, a, tid, _, acc| {
                let (x, n, m) = (arg(a, 0), arg(a, 1) as u32, arg(a, 2) as u32);
                let (mut j, mut o, mut steps) = (tid[0], 0u32, 0);
                loop {
                    loop {
                        acc(x.wrapping_add(4 * j as u64), 4);
                        j = j.wrapping_add(1);
                        steps += 1;
                        if steps > STEPS {
                            return false;
                        }
                        if j >= n {
                            break;
                        }
                    }
                    o += 1;
                    if o >= m {
                        return true;
                    }
                }
            },
        },
        // A 64-bit counter and bound, the exit test swapped (`n > i`) and negated through
        // `not.pred`: `i = tid; do { x[i]; i += s } while (!(n <= i))`, all u64.
        Attack {
            name: "u64_swapped_negated",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u64 n, .param .u64 s)
{{
    .reg .pred %p<3>; .reg .b32 %r<2>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd4, [n]; ld.param.u64 %rd5, [s];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd6, %r1;
LOOP:
    shl.b64 %rd2, %rd6, 2;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    add.s64 %rd6, %rd6, %rd5;
    setp.le.u64 %p1, %rd4, %rd6;
    not.pred %p2, %p1;
    @%p2 bra LOOP;
    ret;
}}"
            ),
            mode: 0,
            block: [8, 1, 1],
            args: |r| {
                let n = match r.next() % 3 {
                    0 => r.next() % 3000,
                    1 => u64::MAX - r.next() % 100,
                    _ => (r.u32_edge() as u64) << (r.next() % 40),
                };
                let s = match r.next() % 3 {
                    0 => 1 + r.next() % 64,
                    1 => u64::MAX - r.next() % 100,
                    _ => (r.u32_edge() as u64) << (r.next() % 40),
                };
                (vec![(0, pointer(r), 8), (8, n, 8), (16, s, 8)], [1, 1, 1])
            },
            thread: |_m, a, tid, _, acc| {
                let (x, n, s) = (arg(a, 0), arg(a, 1), arg(a, 2));
                let mut i = tid[0] as u64;
                for _ in 0..STEPS {
                    acc(x.wrapping_add(i.wrapping_shl(2)), 4);
                    i = i.wrapping_add(s);
                    if n <= i {
                        return true;
                    }
                }
                false
            },
        },
        // The counter stepped through a temporary that the test reads, then copied back
        // (`t = i + s; p = t < n; i = t`), plus a second counter (a byte pointer stepped by
        // `4 s`) that indexes: `i = 0; q = x + 4 tid; do { *q; q += 4 s; t = i + s; i = t }
        // while (t <= n)`.
        Attack {
            name: "temp_le_second_counter",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 s)
{{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [s];
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    mul.wide.u32 %rd4, %r2, 4;
    mov.u32 %r4, 0;
LOOP:
    ld.global.u32 %r6, [%rd3];
    add.s64 %rd3, %rd3, %rd4;
    add.s32 %r5, %r4, %r2;
    setp.le.u32 %p1, %r5, %r1;
    mov.u32 %r4, %r5;
    @%p1 bra LOOP;
    st.global.u32 [%rd1], %r6;
    ret;
}}"
            ),
            mode: 0,
            block: [8, 1, 1],
            args: |r| {
                let n = match r.next() % 2 {
                    0 => r.next() % 3000,
                    _ => r.u32_edge() as u64,
                };
                let s = match r.next() % 2 {
                    0 => 1 + r.next() % 64,
                    _ => r.u32_edge() as u64,
                };
                (vec![(0, pointer(r), 8), (8, n, 4), (12, s, 4)], [1, 1, 1])
            },
            thread: |_m, a, tid, _, acc| {
                let (x, n, s) = (arg(a, 0), arg(a, 1) as u32, arg(a, 2) as u32);
                let mut q = x.wrapping_add(4 * tid[0] as u64);
                let mut i = 0u32;
                let mut ok = false;
                for _ in 0..STEPS {
                    acc(q, 4);
                    q = q.wrapping_add(4 * s as u64);
                    i = i.wrapping_add(s);
                    if i > n {
                        ok = true;
                        break;
                    }
                }
                acc(x, 4);
                ok
            },
        },
        // The counter bumped a second time on some iterations only, through a branch that
        // joins again (not a predicated instruction): `i = tid; while (i < n) { x[i]; if
        // (i == b) i += big; i += 1; }`.
        Attack {
            name: "second_bump_branch",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 b, .param .u32 big)
{{
    .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [b]; ld.param.u32 %r5, [big];
    mov.u32 %r3, %tid.x;
LOOP:
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    setp.ne.u32 %p2, %r3, %r2;
    @%p2 bra SKIP;
    add.s32 %r3, %r3, %r5;
SKIP:
    add.s32 %r3, %r3, 1;
    bra LOOP;
DONE:
    ret;
}}"
            ),
            mode: 0,
            block: [8, 1, 1],
            args: |r| (vec![(0, pointer(r), 8), (8, r.next() % 2000, 4), (12, r.next() % 16, 4), (16, r.u32_edge() as u64, 4)], [1, 1, 1]),
            thread: |_m, a, tid, _, acc| {
                let (x, n, b, big) = (arg(a, 0), arg(a, 1) as u32, arg(a, 2) as u32, arg(a, 3) as u32);
                let mut i = tid[0];
                for _ in 0..STEPS {
                    if i >= n {
                        return true;
                    }
                    acc(x.wrapping_add(4 * i as u64), 4);
                    if i == b {
                        i = i.wrapping_add(big);
                    }
                    i = i.wrapping_add(1);
                }
                false
            },
        },
        // A grid-wide index `ctaid.x * ntid.x + tid.x` in 32 bits (wraps for grids near
        // 2^32 / ntid), widened by `mul.wide.u32` after the wrap, as a grid-stride loop's
        // start with a step `s`: `for (i = ctaid * 64 + tid; i < n; i += s) x[i]`.
        Attack {
            name: "grid_index_wraps",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 x, .param .u32 n, .param .u32 s)
{{
    .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [s];
    mov.u32 %r3, %tid.x; mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ntid.x;
    mad.lo.s32 %r6, %r4, %r5, %r3;
LOOP:
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r6, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    add.s32 %r6, %r6, %r2;
    bra LOOP;
DONE:
    ret;
}}"
            ),
            mode: 0,
            block: [64, 1, 1],
            args: |r| {
                let grid = match r.next() % 3 {
                    0 => 1 + (r.next() % 8) as u32,
                    1 => (1 << 26) + (r.next() % 4) as u32,
                    _ => u32::MAX - (r.next() % 4) as u32,
                };
                let n = match r.next() % 2 {
                    0 => r.next() % 3000,
                    _ => r.u32_edge() as u64,
                };
                let s = match r.next() % 2 {
                    0 => (64 * grid as u64) & 0xffff_ffff,
                    _ => r.u32_edge() as u64,
                };
                (vec![(0, pointer(r), 8), (8, n, 4), (12, s, 4)], [grid, 1, 1])
            },
            thread: |_m, a, tid, cta, acc| {
                let (x, n, s) = (arg(a, 0), arg(a, 1) as u32, arg(a, 2) as u32);
                let mut i = cta[0].wrapping_mul(64).wrapping_add(tid[0]);
                for _ in 0..STEPS {
                    if i >= n {
                        return true;
                    }
                    acc(x.wrapping_add(4 * i as u64), 4);
                    i = i.wrapping_add(s);
                }
                false
            },
        },
        // A generic load through a parameter pointer (no `cvta`): an address in the shared
        // window goes to shared memory (no heap claim), anything else to the heap, with the
        // kernel's own shared array making the shared window live; 8-byte loads (`ld.u64`)
        // at `p + 8 tid`.
        Attack {
            name: "generic_windows",
            ptx: format!(
                "{HEAD}.visible .entry k(.param .u64 p, .param .u64 y)
{{
    .reg .b32 %r<3>; .reg .b64 %rd<8>;
    .shared .align 8 .b64 sh[64];
    ld.param.u64 %rd1, [p]; ld.param.u64 %rd7, [y];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 8;
    mov.u64 %rd5, sh;
    add.s64 %rd6, %rd5, %rd2;
    st.shared.u64 [%rd6], %rd2;
    add.s64 %rd3, %rd1, %rd2;
    ld.u64 %rd4, [%rd3];
    cvta.to.global.u64 %rd7, %rd7;
    st.global.u64 [%rd7], %rd4;
    ret;
}}"
            ),
            mode: 0,
            block: [8, 1, 1],
            args: |r| {
                let p = match r.next() % 3 {
                    0 => abi::SHARED_WINDOW_BASE + 8 * (r.next() % 8),
                    1 => abi::SHARED_WINDOW_BASE + abi::WINDOW_SIZE - 8 * (r.next() % 8),
                    _ => pointer(r),
                };
                (vec![(0, p, 8), (8, pointer(r), 8)], [1, 1, 1])
            },
            thread: |_m, a, tid, _, acc| {
                let (p, y) = (arg(a, 0), arg(a, 1));
                let addr = p.wrapping_add(8 * tid[0] as u64);
                let in_window = |base: u64| addr.wrapping_sub(base) < abi::WINDOW_SIZE;
                if !(in_window(abi::SHARED_WINDOW_BASE) || in_window(abi::LOCAL_WINDOW_BASE)) {
                    acc(addr, 8);
                }
                acc(y, 8);
                true
            },
        },
    ]
}

const LAUNCHES: usize = 600;

/// Every attack, `LAUNCHES` argument sets each with four heap sizes; the number of launches whose
/// precondition held is printed (`-- --nocapture`): an attack whose proofs never hold
/// tests nothing, so each must hold for some.
#[test]
fn no_holding_precondition_lets_an_access_fault() {
    for (i, a) in attacks().iter().enumerate() {
        let t = std::time::Instant::now();
        let (held, total) = check(a, LAUNCHES, 0x9e37_79b9_7f4a_7c15 ^ i as u64);
        eprintln!("{}: held for {held} of {total} launches ({:?})", a.name, t.elapsed());
    }
}

/// A loop bound loaded inside the loop (`for (i = tid; i < *np; i += 8) x[i]`): memory may
/// hold anything, so `x[i]` gets no claim, and the variant (which a launch with `np` in range
/// runs) keeps that store's fault recording: only the load of `*np` is claimed.
#[test]
fn a_bound_loaded_in_the_loop_keeps_its_checks() {
    let k = kernel(
        &format!(
            "{HEAD}.visible .entry k(.param .u64 x, .param .u64 np)
{{
    .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [x]; ld.param.u64 %rd4, [np];
    mov.u32 %r3, %tid.x;
LOOP:
    ld.global.u32 %r1, [%rd4];
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    add.s32 %r3, %r3, 8;
    bra LOOP;
DONE:
    ret;
}}"
        ),
        [8, 1, 1],
    );
    let proof = analyse(&k).expect("the load of *np is claimed");
    let p = params(&k, &[(0, abi::HEAP_BASE + 4096, 8), (8, abi::HEAP_BASE + 256, 8)]);
    assert!(proof.holds(LaunchValues { params: &p, grid: [1, 1, 1], heap_words: 1 << 16 }), "np in range");
    let variant = specialise(&k, &proof).expect("a variant");
    assert!(variant.defers_faults(), "x[i]'s checks stay in the variant");
}

/// A grid-stride counter read after its loop: `misread_constants` hides the values leaving a
/// loop of two or more `break`s (the driver's exit phi), through a shadow variable set at
/// each `break` and copied back after the loop, so the counter keeps its one assignment in
/// the loop and stays an induction variable (hiding it in place made the loop unbounded and
/// lost `x[i]`'s claims).
#[test]
fn a_counter_read_after_its_loop_stays_an_induction_variable() {
    let ptx = format!(
        "{HEAD}.visible .entry gs(.param .u64 x, .param .u32 n, .param .u32 s)
{{
    .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x]; ld.param.u32 %r1, [n]; ld.param.u32 %r2, [s];
    mov.u32 %r3, %tid.x;
LOOP:
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    add.s32 %r3, %r3, %r2;
    bra LOOP;
DONE:
    LIVE
    ret;
}}"
    );
    for (live, claims) in [("", 3), ("st.global.u32 [%rd1], %r3;", 6)] {
        let k = kernel(&ptx.replace("LIVE", live), [64, 1, 1]);
        let proof = analyse(&k).expect("claims");
        assert_eq!((proof.loops.len(), proof.claims.len()), (1, claims), "{live:?}");
        // x at byte 256, n = 1000 words: in range with the heap holding them.
        let p = params(&k, &[(0, abi::HEAP_BASE + 256, 8), (8, 1000, 4), (12, 64, 4)]);
        assert!(proof.holds(LaunchValues { params: &p, grid: [1, 1, 1], heap_words: 64 + 1000 }), "{live:?}");
        assert!(!proof.holds(LaunchValues { params: &p, grid: [1, 1, 1], heap_words: 64 + 999 }), "{live:?}");
    }
}
