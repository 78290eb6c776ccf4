//! Execution tests of memories, faults, atomics, barriers and control flow: the emitted WGSL
//! runs on the adapter wgpu finds (lavapipe in CI); expected values are computed here.

mod common;
#[path = "common/gpu.rs"]
mod gpu;

use common::*;
use ptxcross_lower::abi;
use ptxcross_lower::ir::*;
use ptxcross_wgsl::{emit, Profile};
use BinaryOp::*;

const B: u32 = abi::HEAP_RESERVED_WORDS;

fn tid(b: &mut Kb) -> VarId {
    let t = b.var(Ty::U32, "tid");
    b.push(assign(t, Expr::Builtin(Builtin::ThreadId(0))));
    t
}

/// Global thread index `ctaid.x * ntid.x + tid.x`.
fn gid(b: &mut Kb) -> VarId {
    let g = b.var(Ty::U32, "gid");
    let t = b.var(Ty::U32, "t");
    let n = b.k.workgroup_size[0];
    b.extend([
        assign(g, Expr::Builtin(Builtin::CtaId(0))),
        assign(g, bin(Mul, Ty::U32, g, c32(n))),
        assign(t, Expr::Builtin(Builtin::ThreadId(0))),
        assign(g, bin(Add, Ty::U32, g, t)),
    ]);
    g
}

fn run(k: Kernel, profile: Profile, heap: &mut [u32], params: &[u32], groups: u32) -> bool {
    let Some(gpu) = gpu::gpu() else { return false };
    let entry = k.entry_point.clone();
    let wgsl = emit(&module(vec![k]), profile).unwrap_or_else(|e| panic!("{e}\n{e:?}"));
    gpu.run(&wgsl, &entry, heap, params, [groups, 1, 1]).unwrap_or_else(|e| panic!("{e}\n{wgsl}"));
    true
}

/// Out-of-range accesses of every memory: loads give 0, stores change nothing, and each
/// memory's fault bit is set; the reserved heap words are never touched but the fault word
/// and the sink word (`abi::HEAP_SINK_WORD`, where bad heap stores go).
fn faults(heap_atomic: bool) {
    let mut b = Kb::new("faults", [1, 1, 1]);
    b.k.shared_words = 4;
    b.k.local_words = 3;
    b.k.features.heap_atomics = heap_atomic;
    let x = b.var(Ty::U32, "x");
    let out = |i: u32| c32(B + i);
    let heap_len = 256u32;
    b.extend([
        store(Memory::Shared, c32(3), c32(33)),
        store(Memory::Local, c32(2), c32(22)),
        assign(x, load(Memory::Heap, c32(10))), // reserved
        store(Memory::Heap, out(0), x),
        assign(x, load(Memory::Heap, c32(heap_len))), // past the end
        store(Memory::Heap, out(1), x),
        // Params have 18 words (the header and two more); the kernel declares none, so words
        // from 16 on are checked (below 16 they may be read directly: the host always binds the
        // header, `Kernel::direct_param_loads`).
        assign(x, load(Memory::Param, c32(18))),
        store(Memory::Heap, out(2), x),
        assign(x, load(Memory::Param, c32(17))), // the last one
        store(Memory::Heap, out(3), x),
        assign(x, load(Memory::Shared, c32(4))),
        store(Memory::Heap, out(4), x),
        assign(x, load(Memory::Shared, c32(3))),
        store(Memory::Heap, out(5), x),
        assign(x, load(Memory::Local, c32(3))),
        store(Memory::Heap, out(6), x),
        assign(x, load(Memory::Local, c32(2))),
        store(Memory::Heap, out(7), x),
        store(Memory::Heap, c32(5), c32(0xbad)),                // reserved: not stored
        store(Memory::Heap, c32(heap_len), c32(0xbad)),         // past the end
        store(Memory::Heap, c32(u32::MAX), c32(0xbad)),
        store(Memory::Shared, c32(4), c32(0xbad)),
        store(Memory::Local, c32(u32::MAX), c32(0xbad)),
        assign(x, Expr::AtomicWord { memory: Memory::Heap, op: AtomicOp::Add, index: c32(1), value: c32(1), comparand: None }),
        store(Memory::Heap, out(8), x),
    ]);
    let mut heap = vec![0u32; heap_len as usize];
    for (i, w) in heap.iter_mut().enumerate().take(B as usize).skip(1) {
        *w = 0x1000 + i as u32;
    }
    for w in &mut heap[B as usize..] {
        *w = 0x5555_5555;
    }
    let mut params = [0; 18];
    params[16..].copy_from_slice(&[41, 42]);
    if !run(b.build(), Profile::WebGpu, &mut heap, &params, 1) {
        return;
    }
    let o = B as usize;
    assert_eq!(&heap[o..o + 9], &[0, 0, 0, 42, 0, 33, 0, 22, 0], "results");
    let fault = abi::FAULT_GLOBAL_OUT_OF_RANGE
        | abi::FAULT_SHARED_OUT_OF_RANGE
        | abi::FAULT_LOCAL_OUT_OF_RANGE
        | abi::FAULT_PARAM_OUT_OF_RANGE;
    assert_eq!(heap[abi::FAULT_WORD as usize], fault, "fault word");
    for (i, &w) in heap.iter().enumerate().take(B as usize).skip(1) {
        // Bad heap stores are redirected to the sink word (branchless bounds checks).
        if i != abi::HEAP_SINK_WORD as usize {
            assert_eq!(w, 0x1000 + i as u32, "reserved word {i}");
        }
    }
    assert!(heap[o + 9..].iter().all(|&w| w == 0x5555_5555));
}

#[test]
fn exec_faults_plain_heap() {
    faults(false);
}

#[test]
fn exec_faults_atomic_heap() {
    faults(true);
}

#[test]
fn exec_fault_statement_and_many_faulting_threads() {
    // 256 threads fault with different bits at once: the plain heap's read-test-write may
    // drop bits but never all of them.
    let mut b = Kb::new("trap", [64, 1, 1]);
    let t = tid(&mut b);
    let p = b.var(Ty::Bool, "p");
    let x = b.var(Ty::U32, "x");
    b.extend([
        assign(p, cmp(CmpOp::Eq, Ty::U32, t, c32(0))),
        if_(p, vec![Stmt::Fault { code: abi::FAULT_TRAP }], vec![assign(x, load(Memory::Local, t))]),
    ]);
    let mut heap = vec![0u32; 128];
    if !run(b.build(), Profile::WebGpu, &mut heap, &[0; 4], 4) {
        return;
    }
    let f = heap[abi::FAULT_WORD as usize];
    assert!(f != 0 && f & !(abi::FAULT_TRAP | abi::FAULT_LOCAL_OUT_OF_RANGE) == 0, "{f:#x}");
}

/// Every atomic op under contention from 4 workgroups of 64 threads, on the heap and on
/// shared memory, plus a compare-exchange increment loop (which a weak CAS would break).
#[test]
fn exec_atomics() {
    const WG: u32 = 64;
    const N: u32 = 4 * WG;
    for memory in [Memory::Heap, Memory::Shared] {
        let mut b = Kb::new("atomics", [WG, 1, 1]);
        b.k.shared_words = 16;
        let g = gid(&mut b);
        let t = b.var(Ty::U32, "t");
        let v = b.var(Ty::U32, "v");
        let old = b.var(Ty::U32, "old");
        let o2 = b.var(Ty::U32, "o2");
        let p = b.var(Ty::Bool, "p");
        let at = b.var(Ty::U32, "at");
        let base = if memory == Memory::Heap { B } else { 0 };
        let n = if memory == Memory::Heap { N } else { WG };
        let id = if memory == Memory::Heap { g } else { tid(&mut b) };
        let atomic = |op: AtomicOp, word: u32, value: Operand| {
            assign(old, Expr::AtomicWord { memory, op, index: c32(base + word), value, comparand: None })
        };
        // v = a signed value per thread: id * 0x01000193 (wraps, both signs)
        b.extend([
            assign(v, bin(Mul, Ty::U32, id, c32(0x0100_0193))),
            atomic(AtomicOp::Add, 0, c32(1)),
            // The old values of the add are a permutation of 0..n: store them.
            assign(at, bin(Add, Ty::U32, g, c32(B + 32))),
            store(Memory::Heap, at, old),
            atomic(AtomicOp::Sub, 1, c32(3)),
            atomic(AtomicOp::MaxS, 2, v.into()),
            atomic(AtomicOp::MinS, 3, v.into()),
            atomic(AtomicOp::MaxU, 4, v.into()),
            atomic(AtomicOp::MinU, 5, v.into()),
            assign(t, bin(And, Ty::U32, id, c32(31))),
            assign(t, bin(Shl, Ty::U32, c32(1), t)),
            atomic(AtomicOp::Or, 6, t.into()),
            assign(t, un(UnaryOp::Not, Ty::U32, t)),
            atomic(AtomicOp::And, 7, t.into()),
            atomic(AtomicOp::Xor, 8, v.into()),
            atomic(AtomicOp::Exchange, 9, id.into()),
            // CAS increment loop
            loop_(vec![
                assign(old, load(memory, c32(base + 10))),
                assign(t, bin(Add, Ty::U32, old, c32(1))),
                assign(
                    o2,
                    Expr::AtomicWord {
                        memory,
                        op: AtomicOp::CompareExchange,
                        index: c32(base + 10),
                        value: t.into(),
                        comparand: Some(old.into()),
                    },
                ),
                assign(p, cmp(CmpOp::Eq, Ty::U32, o2, old)),
                if_(p, vec![Stmt::Break], vec![]),
            ]),
            // A failing compare-exchange changes nothing and returns the old word.
            assign(
                o2,
                Expr::AtomicWord { memory, op: AtomicOp::CompareExchange, index: c32(base + 11), value: c32(5), comparand: Some(c32(1)) },
            ),
        ]);
        if memory == Memory::Shared {
            // Copy shared words 0..12 to the heap.
            let tt = tid(&mut b);
            b.extend([
                Stmt::Barrier,
                assign(p, cmp(CmpOp::LtU, Ty::U32, tt, c32(12))),
                if_(
                    p,
                    vec![
                        assign(old, load(Memory::Shared, tt)),
                        assign(at, Expr::Builtin(Builtin::CtaId(0))),
                        assign(at, bin(Mul, Ty::U32, at, c32(16))),
                        assign(at, bin(Add, Ty::U32, at, tt)),
                        assign(at, bin(Add, Ty::U32, at, c32(B + 512))),
                        store(Memory::Heap, at, old),
                    ],
                    vec![],
                ),
            ]);
        }
        let mut heap = vec![0u32; 1024];
        let init = |h: &mut [u32], o: usize| {
            h[o + 2] = 0x8000_0000; // signed min
            h[o + 3] = 0x7fff_ffff; // signed max
            h[o + 4] = 0;
            h[o + 5] = u32::MAX;
            h[o + 7] = u32::MAX;
            h[o + 11] = 7;
        };
        init(&mut heap, B as usize);
        let mut k = b.build();
        if memory == Memory::Shared {
            // Shared memory starts zeroed: set the initial values in the kernel.
            let mut pre = Vec::new();
            for (w, val) in [(2, 0x8000_0000u32), (3, 0x7fff_ffff), (5, u32::MAX), (7, u32::MAX), (11, 7)] {
                pre.push(store(Memory::Shared, c32(w), c32(val)));
            }
            pre.push(Stmt::Barrier);
            k.body.stmts.splice(0..0, pre);
            // Every thread writes the same values: harmless, all before the barrier.
        }
        if !run(k, Profile::WebGpu, &mut heap, &[0; 4], N / WG) {
            return;
        }
        assert_eq!(heap[abi::FAULT_WORD as usize], 0);
        let groups: Vec<Vec<u32>> = if memory == Memory::Heap {
            vec![(0..N).collect()]
        } else {
            (0..N / WG).map(|_| (0..WG).collect()).collect()
        };
        for (gi, ids) in groups.iter().enumerate() {
            let o = if memory == Memory::Heap { B as usize } else { (B + 512 + 16 * gi as u32) as usize };
            let w = &heap[o..o + 12];
            let vals: Vec<u32> = ids.iter().map(|i| i.wrapping_mul(0x0100_0193)).collect();
            assert_eq!(w[0], n, "{memory:?} add");
            assert_eq!(w[1], 0u32.wrapping_sub(3 * n), "{memory:?} sub");
            assert_eq!(w[2] as i32, vals.iter().map(|&v| v as i32).max().unwrap(), "{memory:?} max_s");
            assert_eq!(w[3] as i32, vals.iter().map(|&v| v as i32).min().unwrap(), "{memory:?} min_s");
            assert_eq!(w[4], *vals.iter().max().unwrap(), "{memory:?} max_u");
            assert_eq!(w[5], *vals.iter().min().unwrap(), "{memory:?} min_u");
            assert_eq!(w[6], u32::MAX, "{memory:?} or");
            assert_eq!(w[7], 0, "{memory:?} and");
            assert_eq!(w[8], vals.iter().fold(0, |a, v| a ^ v), "{memory:?} xor");
            assert!(ids.contains(&w[9]), "{memory:?} exchange");
            assert_eq!(w[10], n, "{memory:?} compare-exchange loop");
            assert_eq!(w[11], 7, "{memory:?} failing compare-exchange");
        }
        // The add's old values: each of 0..n once (per group for shared).
        let mut olds: Vec<u32> = heap[(B + 32) as usize..(B + 32 + N) as usize].to_vec();
        olds.sort();
        let want: Vec<u32> = if memory == Memory::Heap {
            (0..N).collect()
        } else {
            let mut v: Vec<u32> = (0..N).map(|i| i % WG).collect();
            v.sort();
            v
        };
        assert_eq!(olds, want, "{memory:?} add old values");
    }
}

/// Shared memory and a barrier: each workgroup reverses its slice through shared memory.
#[test]
fn exec_shared_reverse_with_barrier() {
    const WG: u32 = 128;
    let mut b = Kb::new("reverse", [WG, 1, 1]);
    b.k.shared_words = WG;
    let g = gid(&mut b);
    let t = tid(&mut b);
    let x = b.var(Ty::U32, "x");
    let at = b.var(Ty::U32, "at");
    let r = b.var(Ty::U32, "r");
    b.extend([
        assign(at, bin(Add, Ty::U32, g, c32(B))),
        assign(x, load(Memory::Heap, at)),
        store(Memory::Shared, t, x),
        Stmt::Barrier,
        assign(r, bin(Sub, Ty::U32, c32(WG - 1), t)),
        assign(x, load(Memory::Shared, r)),
        store(Memory::Heap, at, x),
    ]);
    let groups = 8;
    let mut heap: Vec<u32> = (0..B + WG * groups).map(|i| i * 7 + 1).collect();
    heap[0] = 0;
    let before = heap.clone();
    if !run(b.build(), Profile::WebGpu, &mut heap, &[0; 4], groups) {
        return;
    }
    for gi in 0..groups {
        for i in 0..WG {
            let idx = (B + gi * WG + i) as usize;
            let src = (B + gi * WG + WG - 1 - i) as usize;
            assert_eq!(heap[idx], before[src]);
        }
    }
    assert_eq!(heap[0], 0);
}

/// Loops with break/continue, local memory, an early return inside a loop, nested ifs.
#[test]
fn exec_control_flow_and_local_memory() {
    const WG: u32 = 64;
    let mut b = Kb::new("control", [WG, 1, 1]);
    b.k.local_words = 8;
    let g = gid(&mut b);
    let i = b.var(Ty::U32, "i");
    let s = b.var(Ty::U32, "s");
    let x = b.var(Ty::U32, "x");
    let p = b.var(Ty::Bool, "p");
    let at = b.var(Ty::U32, "at");
    b.extend([
        // local[i] = g * i for i < 8
        assign(i, Expr::Use(c32(0))),
        loop_(vec![
            assign(p, cmp(CmpOp::GeU, Ty::U32, i, c32(8))),
            if_(p, vec![Stmt::Break], vec![]),
            assign(x, bin(Mul, Ty::U32, g, i)),
            store(Memory::Local, i, x),
            assign(i, bin(Add, Ty::U32, i, c32(1))),
        ]),
        // s = sum of local[i] for odd i, + number of odd i below g (continue on even)
        assign(i, Expr::Use(c32(0))),
        assign(s, Expr::Use(c32(0))),
        loop_(vec![
            assign(p, cmp(CmpOp::GeU, Ty::U32, i, g)),
            if_(p, vec![Stmt::Break], vec![]),
            assign(x, bin(And, Ty::U32, i, c32(1))),
            assign(i, bin(Add, Ty::U32, i, c32(1))),
            assign(p, cmp(CmpOp::Eq, Ty::U32, x, c32(0))),
            if_(p, vec![Stmt::Continue], vec![]),
            assign(s, bin(Add, Ty::U32, s, c32(1))),
            assign(p, cmp(CmpOp::LtU, Ty::U32, i, c32(9))),
            if_(
                p,
                vec![
                    assign(x, bin(Sub, Ty::U32, i, c32(1))),
                    assign(x, load(Memory::Local, x)),
                    assign(s, bin(Add, Ty::U32, s, x)),
                ],
                vec![],
            ),
            // threads with g % 5 == 3 return once s exceeds 100, before the store
            assign(x, bin(RemU, Ty::U32, g, c32(5))),
            assign(p, cmp(CmpOp::Eq, Ty::U32, x, c32(3))),
            if_(
                p,
                vec![
                    assign(p, cmp(CmpOp::GtU, Ty::U32, s, c32(100))),
                    if_(p, vec![Stmt::Return], vec![]),
                ],
                vec![],
            ),
        ]),
        assign(at, bin(Add, Ty::U32, g, c32(B))),
        store(Memory::Heap, at, s),
    ]);
    let groups = 2;
    let mut heap = vec![0xffff_ffffu32; (B + WG * groups) as usize];
    heap[0] = 0;
    if !run(b.build(), Profile::WebGpu, &mut heap, &[0; 4], groups) {
        return;
    }
    for g in 0..WG * groups {
        let mut s = 0u32;
        let mut returned = false;
        let mut i = 0;
        while i < g {
            let odd = i & 1;
            i += 1;
            if odd == 0 {
                continue;
            }
            s += 1;
            if i < 9 {
                s = s.wrapping_add(g.wrapping_mul(i - 1));
            }
            if g % 5 == 3 && s > 100 {
                returned = true;
                break;
            }
        }
        let want = if returned { 0xffff_ffff } else { s };
        assert_eq!(heap[(B + g) as usize], want, "thread {g}");
    }
    assert_eq!(heap[0], 0);
}

/// A module of two kernels: each entry point runs with its own shared memory.
#[test]
fn exec_two_kernels_in_one_module() {
    let Some(gpu) = gpu::gpu() else { return };
    let mut a = Kb::new("inc", [32, 1, 1]);
    a.k.shared_words = 32;
    let t = tid(&mut a);
    let x = a.var(Ty::U32, "x");
    let at = a.var(Ty::U32, "at");
    a.extend([
        assign(at, bin(Add, Ty::U32, t, c32(B))),
        assign(x, load(Memory::Heap, at)),
        store(Memory::Shared, t, x),
        Stmt::Barrier,
        assign(x, load(Memory::Shared, t)),
        assign(x, bin(Add, Ty::U32, x, c32(1))),
        store(Memory::Heap, at, x),
    ]);
    let mut d = Kb::new("double_it", [32, 1, 1]);
    d.k.shared_words = 64;
    d.k.features.heap_atomics = true;
    let t = tid(&mut d);
    let x = d.var(Ty::U32, "x");
    let at = d.var(Ty::U32, "at");
    d.extend([
        assign(at, bin(Add, Ty::U32, t, c32(B))),
        assign(x, load(Memory::Heap, at)),
        assign(x, bin(Shl, Ty::U32, x, c32(1))),
        store(Memory::Heap, at, x),
        assign(x, Expr::AtomicWord { memory: Memory::Heap, op: AtomicOp::Add, index: c32(B + 40), value: c32(1), comparand: None }),
    ]);
    let wgsl = emit(&module(vec![a.build(), d.build()]), Profile::WebGpu).unwrap();
    let mut heap: Vec<u32> = (0..B + 64).collect();
    heap[0] = 0;
    gpu.run(&wgsl, "inc", &mut heap, &[0; 4], [1, 1, 1]).unwrap();
    gpu.run(&wgsl, "double_it", &mut heap, &[0; 4], [1, 1, 1]).unwrap();
    for i in 0..32 {
        assert_eq!(heap[(B + i) as usize], 2 * (B + i + 1));
    }
    assert_eq!(heap[(B + 40) as usize], B + 40 + 32);
}

/// vecadd with 64-bit pointers from the parameter buffer (wgpu profile).
#[test]
fn exec_vecadd_64_bit_pointers() {
    let Some(gpu) = gpu::gpu() else { return };
    if !gpu.int64() {
        eprintln!("NOTE: no SHADER_INT64: skipped");
        return;
    }
    let n = 100u32;
    let (a, bb, c) = (B, B + 128, B + 256);
    let mut heap = vec![0u32; (B + 384) as usize];
    for i in 0..n {
        heap[(a + i) as usize] = (i as f32 * 0.5).to_bits();
        heap[(bb + i) as usize] = (i as f32 * 0.25 - 3.0).to_bits();
    }
    let ptr = |w: u32| abi::HEAP_BASE + 4 * w as u64;
    let mut params = vec![0u32; abi::PARAM_HEADER_WORDS as usize];
    for p in [ptr(a), ptr(bb), ptr(c)] {
        params.extend([p as u32, (p >> 32) as u32]);
    }
    params.push(n);
    let wgsl = emit(&module(vec![vecadd()]), Profile::Wgpu).unwrap();
    gpu.run(&wgsl, "vecadd", &mut heap, &params, [2, 1, 1]).unwrap();
    for i in 0..128 {
        let want = if i < n { i as f32 * 0.5 + (i as f32 * 0.25 - 3.0) } else { 0.0 };
        assert_eq!(f32::from_bits(heap[(c + i) as usize]), want, "c[{i}]");
    }
    assert_eq!(heap[0], 0);
}

/// `mul.rn` then `add.rn` must round twice: WGSL compilers (naga → SPIR-V without
/// NoContraction, then LLVM in lavapipe) may fuse them into one fma unless prevented.
#[test]
fn exec_mul_then_add_is_not_contracted() {
    for ty in [Ty::F32, Ty::F64] {
        let Some(gpu) = gpu::gpu() else { return };
        if ty == Ty::F64 && !(gpu.int64() && gpu.float64()) {
            continue;
        }
        let profile = if ty == Ty::F64 { Profile::Wgpu } else { Profile::WebGpu };
        let mut b = Kb::new("muladd", [64, 1, 1]);
        let g = gid(&mut b);
        let at = b.var(Ty::U32, "at");
        let w = b.var(Ty::U32, "w");
        let w2 = b.var(Ty::U32, "w2");
        let (x, y, z, p, s) = (b.var(ty, "x"), b.var(ty, "y"), b.var(ty, "z"), b.var(ty, "p"), b.var(ty, "s"));
        let mut stmts = vec![assign(at, bin(Mul, Ty::U32, g, c32(6))), assign(at, bin(Add, Ty::U32, at, c32(B)))];
        if ty == Ty::F32 {
            for (v, k) in [(x, 0u32), (y, 1), (z, 2)] {
                stmts.extend([
                    assign(w, bin(Add, Ty::U32, at, c32(2 * k))),
                    assign(w, load(Memory::Heap, w)),
                    assign(v, conv(ConvertOp::Bitcast, Ty::U32, Ty::F32, w)),
                ]);
            }
        } else {
            let u = b.var(Ty::U64, "u");
            let t = b.var(Ty::U64, "t");
            for (v, k) in [(x, 0u32), (y, 1), (z, 2)] {
                stmts.extend([
                    assign(w, bin(Add, Ty::U32, at, c32(2 * k))),
                    assign(w2, bin(Add, Ty::U32, w, c32(1))),
                    assign(w, load(Memory::Heap, w)),
                    assign(w2, load(Memory::Heap, w2)),
                    assign(u, conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, w2)),
                    assign(u, bin(Shl, Ty::U64, u, c32(32))),
                    assign(t, conv(ConvertOp::ZeroExtend, Ty::U32, Ty::U64, w)),
                    assign(u, bin(Or, Ty::U64, u, t)),
                    assign(v, conv(ConvertOp::Bitcast, Ty::U64, Ty::F64, u)),
                ]);
            }
        }
        stmts.extend([
            assign(p, bin(FMul, ty, x, y)),
            assign(s, bin(FAdd, ty, p, z)),
            assign(p, bin(FMul, ty, x, x)),
            assign(p, bin(FSub, ty, p, z)),
        ]);
        if ty == Ty::F32 {
            stmts.extend([
                assign(w, conv(ConvertOp::Bitcast, Ty::F32, Ty::U32, s)),
                assign(w2, bin(Add, Ty::U32, at, c32(6 * 64))),
                store(Memory::Heap, w2, w),
                assign(w, conv(ConvertOp::Bitcast, Ty::F32, Ty::U32, p)),
                assign(w2, bin(Add, Ty::U32, w2, c32(1))),
                store(Memory::Heap, w2, w),
            ]);
        } else {
            let u = b.var(Ty::U64, "u2");
            let oat = b.var(Ty::U32, "oat");
            stmts.push(assign(oat, bin(Add, Ty::U32, at, c32(6 * 64))));
            for (v, k) in [(s, 0u32), (p, 2)] {
                stmts.extend([
                    assign(u, conv(ConvertOp::Bitcast, Ty::F64, Ty::U64, v)),
                    assign(w, conv(ConvertOp::Truncate, Ty::U64, Ty::U32, u)),
                    assign(w2, bin(Add, Ty::U32, oat, c32(k))),
                    store(Memory::Heap, w2, w),
                    assign(u, bin(ShrU, Ty::U64, u, c32(32))),
                    assign(w, conv(ConvertOp::Truncate, Ty::U64, Ty::U32, u)),
                    assign(w2, bin(Add, Ty::U32, w2, c32(1))),
                    store(Memory::Heap, w2, w),
                ]);
            }
        }
        b.extend(stmts);
        // Inputs where a fused result differs: x = 1 + 2^-k, y = 1 - 2^-k, z = -1 (x*y = 1 - 2^-2k).
        let mut heap = vec![0u32; (B + 6 * 64 * 2 + 64) as usize];
        let mut want = Vec::new();
        for i in 0..64u32 {
            let o = (B + 6 * i) as usize;
            let k = 5 + (i % 40);
            let vals: [u64; 3] = if ty == Ty::F32 {
                let (x, y, z) = (1.0 + (2f32).powi(-(k as i32 % 20 + 2)), 1.0 - (2f32).powi(-(k as i32 % 20 + 2)), -1.0f32 - i as f32 * 1e-7);
                want.push(((x * y + z).to_bits() as u64, (x * x - z).to_bits() as u64));
                [x.to_bits() as u64, y.to_bits() as u64, z.to_bits() as u64]
            } else {
                let (x, y, z) = (1.0 + (2f64).powi(-(k as i32 + 10)), 1.0 - (2f64).powi(-(k as i32 + 10)), -1.0f64 - i as f64 * 1e-15);
                want.push(((x * y + z).to_bits(), (x * x - z).to_bits()));
                [x.to_bits(), y.to_bits(), z.to_bits()]
            };
            for (j, v) in vals.iter().enumerate() {
                heap[o + 2 * j] = *v as u32;
                heap[o + 2 * j + 1] = (*v >> 32) as u32;
            }
        }
        if !run(b.build(), profile, &mut heap, &[0; 4], 1) {
            return;
        }
        for (i, (s, p)) in want.iter().enumerate() {
            let o = (B + 6 * i as u32 + 6 * 64) as usize;
            let (gs, gp) = if ty == Ty::F32 {
                (heap[o] as u64, heap[o + 1] as u64)
            } else {
                (heap[o] as u64 | (heap[o + 1] as u64) << 32, heap[o + 2] as u64 | (heap[o + 3] as u64) << 32)
            };
            assert_eq!((gs, gp), (*s, *p), "{ty:?} thread {i}: x*y+z and x*x-z rounded twice");
        }
    }
}

/// The corpus' mandelbrot loop (mul.rn / add.rn / sub.rn only), built by hand: lavapipe's
/// compiler rewrote it inexactly (fusing, refactoring) and changed iteration counts until
/// float operands were hidden behind run-time zeros. Reference: the same f32 ops on the CPU.
#[test]
fn exec_mandelbrot_float_chain_is_exact() {
    let (w, h, maxit) = (67u32, 45u32, 256u32);
    let (x0, y0, dx, dy) = (-2.25f32, -1.25f32, 0.044776119f32, 0.055555556f32);
    let mut b = Kb::new("mandel", [16, 16, 1]);
    let f = |b: &mut Kb, n: &str| b.var(Ty::F32, n);
    let (px, py, n, t) = (b.var(Ty::U32, "px"), b.var(Ty::U32, "py"), b.var(Ty::U32, "n"), b.var(Ty::U32, "t"));
    let p = b.var(Ty::Bool, "p");
    let (cr, ci, zr, zi, a, bb, m, nr, tt) =
        (f(&mut b, "cr"), f(&mut b, "ci"), f(&mut b, "zr"), f(&mut b, "zi"), f(&mut b, "a"), f(&mut b, "b"), f(&mut b, "m"), f(&mut b, "nr"), f(&mut b, "t"));
    let c = cf32;
    b.extend([
        assign(px, Expr::Builtin(Builtin::CtaId(0))),
        assign(px, bin(Mul, Ty::U32, px, c32(16))),
        assign(t, Expr::Builtin(Builtin::ThreadId(0))),
        assign(px, bin(Add, Ty::U32, px, t)),
        assign(py, Expr::Builtin(Builtin::CtaId(1))),
        assign(py, bin(Mul, Ty::U32, py, c32(16))),
        assign(t, Expr::Builtin(Builtin::ThreadId(1))),
        assign(py, bin(Add, Ty::U32, py, t)),
        assign(p, cmp(CmpOp::GeU, Ty::U32, px, c32(w))),
        if_(p, vec![Stmt::Return], vec![]),
        assign(p, cmp(CmpOp::GeU, Ty::U32, py, c32(h))),
        if_(p, vec![Stmt::Return], vec![]),
        assign(ci, conv(ConvertOp::SintToFloat, Ty::U32, Ty::F32, py)),
        assign(ci, bin(FMul, Ty::F32, ci, c(dy))),
        assign(ci, bin(FAdd, Ty::F32, c(y0), ci)),
        assign(cr, conv(ConvertOp::SintToFloat, Ty::U32, Ty::F32, px)),
        assign(cr, bin(FMul, Ty::F32, cr, c(dx))),
        assign(cr, bin(FAdd, Ty::F32, c(x0), cr)),
        loop_(vec![
            assign(p, cmp(CmpOp::GeU, Ty::U32, n, c32(maxit))),
            if_(p, vec![Stmt::Break], vec![]),
            assign(a, bin(FMul, Ty::F32, zi, zi)),
            assign(bb, bin(FMul, Ty::F32, zr, zr)),
            assign(m, bin(FAdd, Ty::F32, bb, a)),
            assign(p, cmp(CmpOp::FGt, Ty::F32, m, c(4.0))),
            if_(p, vec![Stmt::Break], vec![]),
            assign(nr, bin(FSub, Ty::F32, bb, a)),
            assign(nr, bin(FAdd, Ty::F32, nr, cr)),
            assign(tt, bin(FMul, Ty::F32, c(2.0), zr)),
            assign(tt, bin(FMul, Ty::F32, tt, zi)),
            assign(zi, bin(FAdd, Ty::F32, tt, ci)),
            assign(zr, Expr::Use(nr.into())),
            assign(n, bin(Add, Ty::U32, n, c32(1))),
        ]),
        assign(t, bin(Mul, Ty::U32, py, c32(w))),
        assign(t, bin(Add, Ty::U32, t, px)),
        assign(t, bin(Add, Ty::U32, t, c32(B))),
        store(Memory::Heap, t, n),
    ]);
    let mut heap = vec![0u32; (B + w * h) as usize];
    let Some(gpu) = gpu::gpu() else { return };
    let wgsl = emit(&module(vec![b.build()]), Profile::WebGpu).unwrap();
    gpu.run(&wgsl, "mandel", &mut heap, &[0; 4], [w.div_ceil(16), h.div_ceil(16), 1]).unwrap();
    let mut wrong = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let ci = y0 + (y as i32 as f32) * dy;
            let cr = x0 + (x as i32 as f32) * dx;
            let (mut zr, mut zi, mut n) = (0f32, 0f32, 0u32);
            while n < maxit {
                let (a, b) = (zi * zi, zr * zr);
                if b + a > 4.0 {
                    break;
                }
                let nr = (b - a) + cr;
                zi = (2.0 * zr) * zi + ci;
                zr = nr;
                n += 1;
            }
            let got = heap[(B + y * w + x) as usize];
            if got != n {
                wrong.push(format!("({x},{y}): {got} != {n}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{} pixels differ: {:?}", wrong.len(), &wrong[..wrong.len().min(10)]);
}
