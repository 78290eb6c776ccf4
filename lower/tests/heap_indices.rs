//! Which heap accesses the backends make without their own check
//! (`Kernel::heap_indices_in_range`): those whose index `lower` has range-tested itself, in
//! the shape that method checks. The shape is the proof, so a wrong shape must not pass.

use ptxcross_lower::ir::{BinaryOp, Block, Builtin, CmpOp, Const, Expr, Kernel, Memory, Operand, Stmt, Ty, VarId, VarInfo};
use ptxcross_lower::{abi, LowerOptions};

mod support;

fn kernel(ptx: &str) -> Kernel {
    support::lower_kernel(ptx, [64, 1, 1])
}

/// (is a store, index proven in range) for every heap word access of `b`.
fn heap_accesses(b: &Block, proven: &[bool], out: &mut Vec<(bool, bool)>) {
    let p = |o: &Operand| matches!(o, Operand::Var(v) if proven[v.index()]);
    for s in &b.stmts {
        match s {
            Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Heap, index }, .. } => out.push((false, p(index))),
            Stmt::StoreWord { memory: Memory::Heap, index, .. } => out.push((true, p(index))),
            _ => {}
        }
        for body in s.bodies() {
            heap_accesses(body, proven, out);
        }
    }
}

#[test]
fn plain_loads_and_stores_of_every_size_are_checked_once_in_lower() {
    let k = kernel(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 x)
{
    .reg .b16 %h<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 16;
    add.u64 %rd1, %rd1, %rd2;
    ld.global.u32 %r2, [%rd1];
    ld.global.u64 %rd3, [%rd1+8];
    ld.global.v2.u32 {%r2, %r3}, [%rd1];
    ld.global.u8 %h1, [%rd1+3];
    st.global.u32 [%rd1], %r2;
    st.global.u64 [%rd1+8], %rd3;
    ret;
}
",
    );
    let proven = k.heap_indices_in_range();
    let mut out = Vec::new();
    heap_accesses(&k.body, &proven, &mut out);
    // 1 + 2 + 2 + 1 loads, 1 + 2 stores.
    assert_eq!(out.iter().filter(|(st, _)| !st).count(), 6, "{out:?}");
    assert_eq!(out.iter().filter(|(st, _)| *st).count(), 3, "{out:?}");
    assert!(out.iter().all(|(_, p)| *p), "every plain heap access is range-tested by lower: {out:?}");
}

/// A kernel body: `hw = HeapWords; m = max(hw, 64 + k); lim = m - (64 + k); r = i - 64;
/// ok = r < lim; a = i + j; v = select(ok, a, sink)`, with `i` a loaded word; returns whether
/// `v` is proven in range.
fn proven(k_limit: u32, j: u32, sub: u32, sink: u32, twice: bool) -> bool {
    let vars: Vec<VarInfo> = (0..9).map(|_| VarInfo { ty: Ty::U32, name: "t".into() }).collect();
    let mut vars = vars;
    vars[5].ty = Ty::Bool;
    let v = |i: u32| Operand::Var(VarId(i));
    let c = |x: u32| Operand::Const(Const::U32(x));
    let bin = |op, lhs, rhs| Expr::Binary { op, ty: Ty::U32, lhs, rhs };
    let d = abi::HEAP_RESERVED_WORDS + k_limit;
    let mut stmts = vec![
        Stmt::Assign { dst: VarId(0), expr: Expr::LoadWord { memory: Memory::Param, index: c(16) } },
        Stmt::Assign { dst: VarId(1), expr: Expr::Builtin(Builtin::HeapWords) },
        Stmt::Assign { dst: VarId(2), expr: bin(BinaryOp::MaxU, v(1), c(d)) },
        Stmt::Assign { dst: VarId(3), expr: bin(BinaryOp::Sub, v(2), c(d)) },
        Stmt::Assign { dst: VarId(4), expr: bin(BinaryOp::Sub, v(0), c(sub)) },
        Stmt::Assign { dst: VarId(5), expr: Expr::Compare { op: CmpOp::LtU, ty: Ty::U32, lhs: v(4), rhs: v(3) } },
        Stmt::Assign { dst: VarId(6), expr: bin(BinaryOp::Add, v(0), c(j)) },
        Stmt::Assign { dst: VarId(7), expr: Expr::Select { ty: Ty::U32, cond: v(5), a: v(6), b: c(sink) } },
        Stmt::Assign { dst: VarId(8), expr: Expr::LoadWord { memory: Memory::Heap, index: v(7) } },
    ];
    if twice {
        // `lim` reassigned: no longer a value, so no longer a proof.
        stmts.insert(4, Stmt::Assign { dst: VarId(3), expr: Expr::Use(c(u32::MAX)) });
    }
    let k = Kernel {
        name: "k".into(),
        entry_point: "k".into(),
        workgroup_size: [1, 1, 1],
        vars,
        body: Block { stmts },
        shared_words: 0,
        local_words: 0,
        local_placement: Default::default(),
        params: Vec::new(),
        fault_site_var: None,
        fault_sites: Vec::new(),
        param_bytes: 8,
        features: Default::default(),
        functions: Vec::new(),
        printf: Vec::new(),
    };
    k.heap_indices_in_range()[7]
}

#[test]
fn only_the_exact_shape_is_a_proof() {
    let (res, sink) = (abi::HEAP_RESERVED_WORDS, abi::HEAP_SINK_WORD);
    assert!(proven(0, 0, res, sink, false));
    assert!(proven(1, 1, res, sink, false));
    assert!(proven(1, 0, res, sink, false));
    // The second word of a doubleword tested for one word only.
    assert!(!proven(0, 1, res, sink, false));
    // Not tested against the reserved words (a wrapping `i - 0` would admit them).
    assert!(!proven(0, 0, 0, sink, false));
    // Another fallback index than the sink word.
    assert!(!proven(0, 0, res, 0, false));
    // A variable assigned twice proves nothing.
    assert!(!proven(0, 0, res, sink, true));
}

/// (memory, index in range by the value facts) for every shared and local word access of `b`.
fn indexed(k: &Kernel, b: &Block, facts: &ptxcross_lower::ir::IndexFacts, out: &mut Vec<(Memory, bool)>) {
    for s in &b.stmts {
        match s {
            Stmt::Assign { expr: Expr::LoadWord { memory: m @ (Memory::Shared | Memory::Local), index }, .. }
            | Stmt::StoreWord { memory: m @ (Memory::Shared | Memory::Local), index, .. } => {
                out.push((*m, k.index_in_range(*m, *index, facts)))
            }
            _ => {}
        }
        for body in s.bodies() {
            indexed(k, body, facts, out);
        }
    }
}

fn shared_kernel(index_expr: &str) -> Vec<(Memory, bool)> {
    // 64 threads, 64 shared words: s[f(tid)] = tid, then a load of it back.
    let k = kernel(&format!(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 out)
{{
    .shared .align 4 .b8 s[256];
    .reg .b32 %r<7>;
    mov.u32 %r1, %tid.x;
    {index_expr}
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, s;
    add.u32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r1;
    ld.shared.u32 %r6, [%r5];
    ret;
}}
"
    ));
    let facts = k.index_facts();
    let mut out = Vec::new();
    // The kernel's own accesses: after the shared-memory prologue (its loop zeroes the array
    // through a loop variable, which keeps its check).
    let at = k.body.stmts.iter().position(|s| matches!(s, Stmt::Barrier | Stmt::SharedBarrier)).map_or(0, |i| i + 1);
    indexed(&k, &Block { stmts: k.body.stmts[at..].to_vec() }, &facts, &mut out);
    out
}

#[test]
fn shared_indices_from_tid_are_in_range_up_to_the_array_end() {
    // tid.x < 64 (the block): words 0..63 of 64.
    let out = shared_kernel("mov.u32 %r2, %r1;");
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out.iter().all(|(m, ok)| *m == Memory::Shared && *ok), "{out:?}");
    // tid >> 1 | 32: words 32..63.
    let out = shared_kernel("shr.u32 %r0, %r1, 1; or.b32 %r2, %r0, 32;");
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out.iter().all(|(_, ok)| *ok), "{out:?}");
    // tid + 1: the last thread's word is one past the array: not proven.
    let out = shared_kernel("add.u32 %r2, %r1, 1;");
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out.iter().all(|(_, ok)| !*ok), "one past the end must keep the check: {out:?}");
    // tid & 63 | 64: past the array for every thread.
    let out = shared_kernel("or.b32 %r2, %r1, 64;");
    assert!(out.iter().all(|(_, ok)| !*ok), "{out:?}");
}

/// A kernel translated for three segment slots: every plain access of every slot is proven in
/// range for exactly the memory it accesses (its slot's `SegmentWords` limit, or the heap's),
/// never for another one, so the backends access each through its own binding directly.
#[test]
fn segment_slot_indices_are_proven_for_their_own_slot_only() {
    let ptx = ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 x, .param .u64 y)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.global.u32 %r2, [%rd1];
    ld.global.u64 %rd3, [%rd1+8];
    st.global.u32 [%rd2], %r2;
    st.global.u64 [%rd2+8], %rd3;
    ret;
}
";
    let k = support::lower_kernel_with(ptx, &LowerOptions { block: Some([64, 1, 1]), segment_slots: 3, ..Default::default() });
    assert_eq!(k.features.segment_slots, 3);
    let proofs = k.heap_index_memories_of(&k.value_vars());
    let heap_only = k.heap_indices_in_range();
    // (memory accessed, memory proven) of every heap word access.
    fn walk(b: &Block, proofs: &[Option<Memory>], heap_only: &[bool], out: &mut Vec<(Memory, Option<Memory>)>) {
        for s in &b.stmts {
            let (m, i) = match s {
                Stmt::Assign { expr: Expr::LoadWord { memory, index }, .. } | Stmt::StoreWord { memory, index, .. } if memory.is_heap() => (*memory, *index),
                _ => {
                    for body in s.bodies() {
                        walk(body, proofs, heap_only, out);
                    }
                    continue;
                }
            };
            let Operand::Var(v) = i else { panic!("constant heap index") };
            // The boolean API proves heap (slot 0) indices only.
            assert_eq!(heap_only[v.index()], proofs[v.index()] == Some(Memory::Heap));
            out.push((m, proofs[v.index()]));
        }
    }
    let mut out = Vec::new();
    walk(&k.body, &proofs, &heap_only, &mut out);
    // Per slot: 1 + 2 loads, 1 + 2 stores.
    for m in [Memory::Heap, Memory::Segment(1), Memory::Segment(2)] {
        assert_eq!(out.iter().filter(|(a, _)| *a == m).count(), 6, "{m:?}: {out:?}");
    }
    assert!(out.iter().all(|(a, p)| *p == Some(*a)), "{out:?}");
    // The slots' segment words, after the parameters, are read without a check (the host
    // binds them for every launch of this kernel); the word after them is not in range.
    let direct = k.direct_param_loads();
    let mut slot_reads = Vec::new();
    for s in &k.body.stmts {
        if let Stmt::Assign { dst, expr: Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(w)) } } = s {
            if *w >= abi::segment_slot_word(1, k.param_bytes) {
                slot_reads.push((*w, direct[dst.index()]));
            }
        }
    }
    slot_reads.sort();
    let words: Vec<(u32, bool)> = (1..3).map(|j| (abi::segment_slot_word(j, k.param_bytes), true)).collect();
    assert_eq!(slot_reads, words);
    assert!(!k.param_word_in_range(Operand::Const(Const::U32(abi::segment_slot_word(3, k.param_bytes)))));
}

/// The shared-memory zeroing prologue (`isolation.rs`) of `words` words for a block of
/// `block` threads: (its stores' indices in range by the value facts, stores written out, loops).
/// A kernel with a shared array of `words` words whose one access is `access`.
fn shared_array_kernel(words: u32, access: &str) -> String {
    format!(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 out)
{{
    .shared .align 4 .b32 s[{words}];
    .reg .b32 %r<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, s;
    {access};
    ret;
}}
"
    )
}

fn prologue(words: u32, block: [u32; 3]) -> (Vec<bool>, usize, usize) {
    let k = support::lower_kernel(&shared_array_kernel(words, "ld.shared.u32 %r3, [%r2]"), block);
    let facts = k.index_facts();
    let at = k.body.stmts.iter().position(|s| matches!(s, Stmt::Barrier | Stmt::SharedBarrier)).expect("the prologue's barrier");
    let head = Block { stmts: k.body.stmts[..at].to_vec() };
    let mut out = Vec::new();
    indexed(&k, &head, &facts, &mut out);
    let plain = head.stmts.iter().filter(|s| matches!(s, Stmt::StoreWord { .. })).count();
    let loops = head.stmts.iter().filter(|s| matches!(s, Stmt::Loop { .. })).count();
    (out.into_iter().map(|(_, ok)| ok).collect(), plain, loops)
}

#[test]
fn the_shared_zeroing_prologue_stores_in_range_without_a_check() {
    // Whole rounds only: one store per round, written out, no loop.
    assert_eq!(prologue(256, [256, 1, 1]), (vec![true], 1, 0));
    assert_eq!(prologue(1024, [32, 8, 1]), (vec![true; 4], 4, 0));
    // transpose's 32×33 tile for 32×8 threads: four rounds and a guarded remainder.
    assert_eq!(prologue(1056, [32, 8, 1]), (vec![true; 5], 4, 0));
    // Fewer words than threads: the guarded remainder alone.
    assert_eq!(prologue(7, [64, 1, 1]), (vec![true], 0, 0));
    // More than eight rounds: the loop, its index bounded by a `min`.
    assert_eq!(prologue(1000, [96, 1, 1]), (vec![true], 0, 1));
    // A 3-D block: the linear id still lies below the thread count.
    assert_eq!(prologue(120, [4, 3, 5]), (vec![true; 2], 2, 0));
}

/// `zeroing_prologue` of the kernel of [`prologue`]: the top-level statements it names.
fn named_prologue(words: u32, block: [u32; 3]) -> (Kernel, Vec<usize>) {
    let k = support::lower_kernel(&shared_array_kernel(words, "st.shared.u32 [%r2], %r1"), block);
    let skip = ptxcross_lower::zeroing_prologue(&k);
    (k, skip)
}

#[test]
fn the_zeroing_prologue_is_named_exactly_for_targets_that_zero_shared_memory() {
    // Every shape: the prologue's stores, its remainder `if` or loop, and its barrier; no
    // other statement (the assignments before the barrier stay: the kernel may reuse them).
    for (words, block, parts) in [
        (256, [256, 1, 1], 1),
        (1056, [32, 8, 1], 5),
        (7, [64, 1, 1], 1),
        (1000, [96, 1, 1], 1),
        (120, [4, 3, 5], 2),
    ] {
        let (k, skip) = named_prologue(words, block);
        let at = k.body.stmts.iter().position(|s| matches!(s, Stmt::Barrier | Stmt::SharedBarrier)).unwrap();
        assert_eq!(skip.last(), Some(&at), "{words} words: the barrier");
        assert_eq!(skip.len(), parts + 1, "{words} words: {skip:?}");
        for (i, s) in k.body.stmts[..at].iter().enumerate() {
            assert_eq!(skip.contains(&i), !matches!(s, Stmt::Assign { .. }), "{words} words, statement {i}: {s:?}");
        }
        // The kernel's own store comes after the barrier and is never named.
        assert!(k.body.stmts[at + 1..].iter().any(|s| matches!(s, Stmt::StoreWord { memory: Memory::Shared, .. })));
    }
    // Anything before the barrier that is not the prologue's leaves it whole: a heap store, or
    // a shared store at an index that is not the prologue's (here the kernel's own store,
    // moved ahead of the barrier).
    let (mut k, _) = named_prologue(1056, [32, 8, 1]);
    let at = k.body.stmts.iter().position(|s| matches!(s, Stmt::Barrier | Stmt::SharedBarrier)).unwrap();
    let own = k.body.stmts[at + 1..].iter().find(|s| matches!(s, Stmt::StoreWord { memory: Memory::Shared, .. })).unwrap().clone();
    let mut moved = k.clone();
    moved.body.stmts.insert(0, own);
    assert_eq!(ptxcross_lower::zeroing_prologue(&moved), Vec::<usize>::new());
    k.body.stmts.insert(0, Stmt::StoreWord { memory: Memory::Heap, index: Operand::Const(Const::U32(2)), value: Operand::Const(Const::U32(0)) });
    assert_eq!(ptxcross_lower::zeroing_prologue(&k), Vec::<usize>::new());
    // No shared memory: nothing.
    let k = support::lower_kernel(".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n", [32, 1, 1]);
    assert!(ptxcross_lower::zeroing_prologue(&k).is_empty());
}
