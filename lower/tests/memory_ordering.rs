//! Where the lowering puts memory-ordering operations (spec §8 "Memory Consistency Model",
//! §9.7.10.8 ld, §9.7.10.11 st, §9.7.14.5 atom, §9.7.14.4 membar/fence): fences at the operation's scope
//! before a release and after an acquire, strong (atomic) word accesses for `.volatile` and
//! `.relaxed`, and plain accesses otherwise. The values these give are checked end to end in
//! tests/tests/simt_kernels.rs (fences) and simt_atomics.rs.

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::ir::{AtomicOp, Block, Expr, Memory, Scope, Stmt};
use ptxcross_lower::{lower, LowerOptions};

/// What the body does, in order: `F(cta|gpu)` fences, `A` heap/shared word atomics (with
/// their op), `L`/`S` plain heap/shared loads/stores, `B` barriers.
fn trace(b: &Block, out: &mut Vec<String>) {
    for s in &b.stmts {
        match s {
            Stmt::Fence { scope } => out.push(format!("F{}", if *scope == Scope::Workgroup { "cta" } else { "gpu" })),
            // A barrier with no heap access before it orders shared memory only (barriers.rs).
            Stmt::Barrier | Stmt::SharedBarrier => out.push("B".into()),
            Stmt::StoreWord { memory: Memory::Heap | Memory::Shared, .. } => out.push("S".into()),
            Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Heap | Memory::Shared, .. }, .. } => out.push("L".into()),
            Stmt::Assign { expr: Expr::AtomicWord { op, .. }, .. } => out.push(format!("A{}", if *op == AtomicOp::Or { "or" } else { "x" })),
            Stmt::Assign { expr: Expr::AtomicDword { .. }, .. } => out.push("D".into()),
            Stmt::If { then_body, else_body, .. } => {
                trace(then_body, out);
                trace(else_body, out);
            }
            Stmt::Loop { body } => trace(body, out),
            _ => {}
        }
    }
}

/// The trace of `inst` (reading `[%rd1]`, registers `%r1`, `%rd2`) in a kernel without shared
/// memory, from the instruction on.
fn lowered(inst: &str) -> Vec<String> {
    let ptx = format!(
        ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    ld.param.u64 %rd1, [p];\n    {inst}\n    ret;\n}}\n"
    );
    let mut out = Vec::new();
    trace(&lowered_kernel(&ptx, inst).body, &mut out);
    out
}

/// The one kernel of module `ptx` lowered for blocks of 32 (`inst` names it in a panic).
fn lowered_kernel(ptx: &str, inst: &str) -> ptxcross_lower::ir::Kernel {
    let file = SourceFile::new("case.ptx", ptx);
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    let module = lower(&ast, &file, &LowerOptions { block: Some([32, 1, 1]), ..Default::default() })
        .unwrap_or_else(|e| panic!("{inst}: {}", e[0].render(&file)));
    module.kernels.into_iter().next().expect("one kernel")
}

#[test]
fn acquire_and_release_put_fences_at_their_scope() {
    for (inst, want) in [
        ("ld.global.u32 %r1, [%rd1];", "L"),
        ("ld.relaxed.gpu.global.u32 %r1, [%rd1];", "Aor"),
        ("ld.volatile.global.u32 %r1, [%rd1];", "Aor"),
        ("ld.acquire.gpu.global.u32 %r1, [%rd1];", "Aor Fgpu"),
        ("ld.acquire.cta.global.u32 %r1, [%rd1];", "Aor Fcta"),
        ("ld.acquire.sys.global.u64 %rd2, [%rd1];", "D Fgpu"),
        ("st.global.u32 [%rd1], %r1;", "S"),
        ("st.relaxed.gpu.global.u32 [%rd1], %r1;", "Ax"),
        ("st.release.gpu.global.u32 [%rd1], %r1;", "Fgpu Ax"),
        ("st.release.cta.global.u32 [%rd1], %r1;", "Fcta Ax"),
        ("atom.global.add.u32 %r1, [%rd1], 1;", "Ax"),
        ("atom.acquire.gpu.global.add.u32 %r1, [%rd1], 1;", "Ax Fgpu"),
        ("atom.release.cta.global.exch.b32 %r1, [%rd1], 1;", "Fcta Ax"),
        ("atom.acq_rel.gpu.global.add.u32 %r1, [%rd1], 1;", "Fgpu Ax Fgpu"),
        ("red.release.gpu.global.add.u32 [%rd1], 1;", "Fgpu Ax"),
        ("atom.acq_rel.sys.global.cas.b64 %rd2, [%rd1], 1, 2;", "Fgpu D Fgpu"),
        ("membar.gl;", "Fgpu"),
        ("membar.sys;", "Fgpu"),
        ("fence.sc.gpu;", "Fgpu"),
        ("fence.acq_rel.sys;", "Fgpu"),
        ("fence.acq_rel.cluster;", "Fgpu"),
        ("fence.sc.cta;", "B"),
        ("membar.cta;", "B"),
    ] {
        let got = lowered(inst).join(" ");
        assert_eq!(got, want, "{inst}");
    }
}

/// A strong access of exactly 8 bytes (a 64-bit scalar, `.v2` of 32-bit, `.v4` of 16-bit) to
/// the heap is ONE doubleword atomic, never two word atomics: a load must not return halves of
/// two racing strong stores (§8.10.3 single-copy atomicity; NVIDIA performs an aligned 8-byte
/// vector access as one access, and CUB's decoupled look-back relies on it). Weak accesses stay
/// plain words; 16-byte strong accesses take a lock (`strong_sixteen_byte_accesses_run_under_a_lock`).
#[test]
fn strong_eight_byte_accesses_are_one_doubleword_atomic() {
    for (inst, want) in [
        ("ld.relaxed.gpu.global.u64 %rd2, [%rd1];", "D"),
        ("ld.relaxed.gpu.u64 %rd2, [%rd1];", "D"),
        ("ld.volatile.global.b64 %rd2, [%rd1];", "D"),
        ("ld.relaxed.gpu.global.v2.u32 {%r1, %r2}, [%rd1];", "D"),
        ("ld.acquire.gpu.global.v2.u32 {%r1, %r2}, [%rd1];", "D Fgpu"),
        ("ld.relaxed.gpu.global.v4.u16 {%r0, %r1, %r2, %r3}, [%rd1];", "D"),
        ("st.relaxed.gpu.global.u64 [%rd1], %rd2;", "D"),
        ("st.volatile.global.u64 [%rd1], %rd2;", "D"),
        ("st.relaxed.gpu.global.v2.u32 [%rd1], {%r1, %r2};", "D"),
        ("st.release.gpu.global.v2.u32 [%rd1], {%r1, %r2};", "Fgpu D"),
        ("st.relaxed.gpu.global.v4.u16 [%rd1], {%r0, %r1, %r2, %r3};", "D"),
        // Weak: plain words (a data race on them is undefined, §8.7.1).
        ("ld.global.u64 %rd2, [%rd1];", "L L"),
        ("ld.global.v2.u32 {%r1, %r2}, [%rd1];", "L L"),
        ("st.global.u64 [%rd1], %rd2;", "S S"),
        // 4 bytes: word atomics, as before.
        ("ld.relaxed.gpu.global.v2.u16 {%r1, %r2}, [%rd1];", "Aor Aor"),
    ] {
        let got = lowered(inst).join(" ");
        assert_eq!(got, want, "{inst}");
    }
}

/// On shared memory the doubleword atomic makes the kernel's shared memory doublewords
/// (`shared64`): every shared access of the kernel is then a doubleword access.
#[test]
fn strong_eight_byte_shared_accesses_are_doubleword_atomics() {
    for inst in ["ld.relaxed.cta.shared.u64 %rd2, [sm];", "st.volatile.shared.v2.u32 [sm], {%r1, %r2};"] {
        let ptx = format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    .shared .align 8 .b8 sm[16];\n    {inst}\n    ld.param.u64 %rd1, [p];\n    st.global.u64 [%rd1], %rd2;\n    st.global.u32 [%rd1], %r1;\n    ret;\n}}\n"
        );
        let k = &lowered_kernel(&ptx, inst);
        let mut out = Vec::new();
        trace(&k.body, &mut out);
        assert!(out.contains(&"D".to_string()) && !out.iter().any(|t| t.starts_with('A')), "{inst}: {out:?}");
        assert!(k.features.shared_atomics64 && k.shared_dwords(), "{inst}: shared memory is doublewords");
    }
}

/// Without 64-bit integers (the `webgpu` profile's `split_int64`) there is no doubleword
/// atomic: a strong 8-byte access is refused like a 64-bit atomic, naming the instruction.
#[test]
fn strong_eight_byte_accesses_are_refused_without_64_bit_atomics() {
    for inst in ["ld.relaxed.gpu.global.u64 %rd2, [%rd1];", "st.relaxed.gpu.global.v2.u32 [%rd1], {%r1, %r2};"] {
        let ptx = format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    ld.param.u64 %rd1, [p];\n    {inst}\n    st.global.u32 [%rd1], %r1;\n    ret;\n}}\n"
        );
        let file = SourceFile::new("case.ptx", ptx.as_str());
        let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
        let options = LowerOptions { block: Some([32, 1, 1]), split_int64: true, ..Default::default() };
        let errors = lower(&ast, &file, &options).expect_err(inst);
        let e = errors[0].render(&file);
        assert!(e.contains("64-bit atomic") && e.contains("case.ptx:9:5"), "{inst}: {e}");
    }
}

/// A strong 8-byte access through a generic address in a kernel with shared memory: one
/// doubleword atomic where the address is global; where it reaches shared memory a fault
/// (`abi::FAULT_STRONG_SHARED_DWORD`, a refusal at run time) rather than doubleword shared
/// memory for the whole kernel (CUB's look-back scans use generic addresses to global memory).
#[test]
fn generic_strong_eight_byte_accesses_refuse_shared_memory_at_run_time() {
    use ptxcross_lower::abi::FAULT_STRONG_SHARED_DWORD;
    fn faults(b: &Block) -> bool {
        b.stmts.iter().any(|s| match s {
            Stmt::Fault { code } => *code == FAULT_STRONG_SHARED_DWORD,
            Stmt::If { then_body, else_body, .. } => faults(then_body) || faults(else_body),
            Stmt::Loop { body } => faults(body),
            _ => false,
        })
    }
    for inst in ["ld.relaxed.gpu.u64 %rd2, [%rd1];", "st.relaxed.gpu.v2.u32 [%rd1], {%r1, %r2};"] {
        let ptx = format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    .shared .align 8 .b8 sm[16];\n    ld.param.u64 %rd1, [p];\n    st.shared.u32 [sm], %r1;\n    {inst}\n    st.global.u64 [%rd1], %rd2;\n    ret;\n}}\n"
        );
        let k = &lowered_kernel(&ptx, inst);
        let mut out = Vec::new();
        trace(&k.body, &mut out);
        assert!(out.contains(&"D".to_string()), "{inst}: {out:?}");
        assert!(faults(&k.body) && !k.shared_dwords() && !k.features.shared_atomics64, "{inst}: {out:?}");
    }
}

/// The structure of a strong 16-byte access's lock (`wide_lock`): `loop[…]` a loop, `if[…]`
/// the then-branch of an `If` (its else-branch after `|` when not empty), `cas`/`unlock` the
/// compare-exchange 0 → 1 and the exchange with 0 of a lock word, `A` a heap/shared word
/// atomic of the data, `S`/`L` a plain store/load, `D` a doubleword atomic, `F` a fence,
/// `brk`, `spin fault` (the lock's), `fault` (others).
fn lock_trace(b: &Block, out: &mut Vec<String>) {
    use ptxcross_lower::ir::{Const, Operand};
    let c = |o: &Operand| if let Operand::Const(Const::U32(v)) = o { Some(*v) } else { None };
    for s in &b.stmts {
        match s {
            Stmt::Fence { .. } => out.push("F".into()),
            Stmt::Break => out.push("brk".into()),
            Stmt::Fault { code } => out.push(if *code == ptxcross_lower::abi::FAULT_LOCK_SPIN { "spin fault" } else { "fault" }.into()),
            Stmt::StoreWord { memory: Memory::Heap | Memory::Shared, .. } => out.push("S".into()),
            Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Heap | Memory::Shared, .. }, .. } => out.push("L".into()),
            Stmt::Assign { expr: Expr::AtomicWord { op: AtomicOp::CompareExchange, value, comparand: Some(cmp), .. }, .. }
                if c(value) == Some(1) && c(cmp) == Some(0) =>
            {
                out.push("cas".into())
            }
            Stmt::Assign { expr: Expr::AtomicWord { op: AtomicOp::Exchange, value, .. }, .. } if c(value) == Some(0) => out.push("unlock".into()),
            Stmt::Assign { expr: Expr::AtomicWord { .. }, .. } => out.push("A".into()),
            Stmt::Assign { expr: Expr::AtomicDword { .. }, .. } => out.push("D".into()),
            Stmt::If { then_body, else_body, .. } => {
                let mut t = Vec::new();
                lock_trace(then_body, &mut t);
                let mut e = Vec::new();
                lock_trace(else_body, &mut e);
                // Bounds and alignment checks (`if bad { fault }`) are not the lock's.
                if t.iter().any(|x| x != "fault") || !e.is_empty() {
                    out.push(if e.is_empty() { format!("if[{}]", t.join(" ")) } else { format!("if[{}|{}]", t.join(" "), e.join(" ")) });
                }
            }
            Stmt::Loop { body } => {
                let mut t = Vec::new();
                lock_trace(body, &mut t);
                // `loop_exits`'s never-taken exit.
                if t.first().map(String::as_str) == Some("if[brk]") {
                    t.remove(0);
                }
                out.push(format!("loop[{}]", t.join(" ")));
            }
            _ => {}
        }
    }
}

/// A strong 16-byte access (`.v2.u64`, `.v4.u32`, `.v2.f64`, `.b128`) of memory other threads
/// can write runs under a lock (`wide_lock`): NVIDIA performs an aligned 16-byte access as one
/// (§8.10.3; CUB's scan look-back relies on it for `{status, value}` descriptors of 8-byte
/// values), and no 128-bit atomic exists in Vulkan or WGSL. The section (fence, the data's word
/// atomics, fence, unlock) lies inside the iteration that won the compare-exchange, so
/// lockstep lanes cannot deadlock, and the loop is left from its own level after the section's
/// `if`, never from inside it (NVIDIA's Vulkan driver hung or faulted with the `break` inside:
/// docs/nvidia.md); a lock still held after the spin limit faults. The access's
/// own `.acquire`/`.release` fences stay around it. Weak ones, strong ones of the thread's own
/// local memory, and 8-byte ones take no lock; wider strong ones are refused, naming the
/// instruction and its place. `atom.cas/exch.b128` take the same lock.
#[test]
fn strong_sixteen_byte_accesses_run_under_a_lock() {
    let kernel = |inst: &str| {
        format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    .reg .b128 %q<2>;\n    .shared .align 16 .b8 sm[16];\n    .local .align 16 .b8 lm[16];\n    ld.param.u64 %rd1, [p];\n    {inst}\n    st.global.v2.u64 [%rd1], {{%rd2, %rd3}};\n    ret;\n}}\n"
        )
    };
    let trace_of = |inst: &str| {
        let k = lowered_kernel(&kernel(inst), inst);
        let mut out = Vec::new();
        lock_trace(&k.body, &mut out);
        out.join(" ")
    };
    // A lost compare-exchange reads the lock word 16 times before the next.
    let polls = vec!["A"; 16].join(" ");
    let locked = |data: &str| format!("loop[cas if[F {data} F unlock|{polls}] if[brk] if[brk]] if[spin fault]");
    // A misaligned store faults and stores nothing.
    let (load4, store4) = (locked("A A A A"), format!("if[fault|{}]", locked("A A A A")));
    for (inst, want) in [
        ("ld.relaxed.gpu.global.v2.u64 {%rd2, %rd3}, [%rd1];", load4.clone()),
        ("st.relaxed.gpu.global.v2.u64 [%rd1], {%rd2, %rd3};", store4.clone()),
        ("ld.volatile.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd1];", load4.clone()),
        ("st.release.gpu.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};", format!("F {store4}")),
        ("ld.acquire.gpu.global.v2.f64 {%rd2, %rd3}, [%rd1];", format!("{load4} F")),
        ("ld.relaxed.cta.shared.v2.u64 {%rd2, %rd3}, [sm];", load4.clone()),
        // A constant, aligned address: no alignment test.
        ("st.volatile.shared.v4.u32 [sm], {%r0, %r1, %r2, %r3};", load4.clone()),
        ("ld.relaxed.gpu.global.b128 %q1, [%rd1];", load4.clone()),
        ("st.volatile.global.b128 [%rd1], %q1;", locked("if[fault|A A A A]")),
        // 128-bit atomics (sm_90): read, and store (`.cas`: where the old value matched)
        // inside the section; the `.sem` fences around it.
        ("atom.acq_rel.gpu.global.cas.b128 %q0, [%rd1], %q1, %q0;", format!("F {} F", locked("A A A A if[if[fault|A A A A]]"))),
        ("atom.global.exch.b128 %q0, [%rd1], %q1;", locked("A A A A if[fault|A A A A]")),
    ] {
        let got = trace_of(inst);
        assert!(got.contains(&want), "{inst}: {got}");
    }
    // Through a generic address: a lock for global and for shared memory, none for local.
    let got = trace_of("ld.relaxed.gpu.v2.u64 {%rd2, %rd3}, [%rd1];");
    assert_eq!(got.matches("loop[cas").count(), 2, "{got}");
    for inst in ["ld.global.v2.u64 {%rd2, %rd3}, [%rd1];", "ld.volatile.local.v2.u64 {%rd2, %rd3}, [lm];", "ld.relaxed.gpu.global.v2.u32 {%r1, %r2}, [%rd1];"] {
        let got = trace_of(inst);
        assert!(!got.contains("cas"), "{inst}: {got}");
    }
    for inst in ["ld.relaxed.gpu.global.v4.u64 {%rd0, %rd1, %rd2, %rd3}, [%rd1];", "st.relaxed.gpu.global.v8.u32 [%rd1], {%r0, %r1, %r2, %r3, %r0, %r1, %r2, %r3};"] {
        let ptx = kernel(inst);
        let file = SourceFile::new("case.ptx", &ptx);
        let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
        let err = match lower(&ast, &file, &LowerOptions::default()) {
            Ok(_) => panic!("{inst}: translated, but a racing store could tear it"),
            Err(e) => e[0].render(&file),
        };
        assert!(err.contains("case.ptx:12:5") && err.contains("not supported yet") && err.contains("strong 32-byte access"), "{inst}: {err}");
    }
}
