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
/// plain words; 16-byte strong accesses stay word atomics (no 128-bit atomic exists).
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

/// A strong access wider than 8 bytes of memory other threads can write is refused, naming
/// the instruction and its place: NVIDIA performs an aligned 16-byte access as one (CUB's
/// scan look-back relies on it for `{status, value}` descriptors of 8-byte values), and no
/// 128-bit atomic exists in Vulkan or WGSL to do the same. Weak ones, and strong ones of the
/// thread's own local memory, translate.
#[test]
fn strong_accesses_wider_than_eight_bytes_are_refused_where_they_can_race() {
    let kernel = |inst: &str| {
        format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    .reg .b128 %q<2>;\n    .shared .align 16 .b8 sm[16];\n    .local .align 16 .b8 lm[16];\n    ld.param.u64 %rd1, [p];\n    {inst}\n    st.global.v2.u64 [%rd1], {{%rd2, %rd3}};\n    ret;\n}}\n"
        )
    };
    for inst in [
        "ld.relaxed.gpu.global.v2.u64 {%rd2, %rd3}, [%rd1];",
        "st.relaxed.gpu.global.v2.u64 [%rd1], {%rd2, %rd3};",
        "ld.relaxed.gpu.v2.u64 {%rd2, %rd3}, [%rd1];",
        "ld.volatile.global.v4.u32 {%r0, %r1, %r2, %r3}, [%rd1];",
        "st.release.gpu.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};",
        "ld.acquire.gpu.global.v2.f64 {%rd2, %rd3}, [%rd1];",
        "ld.relaxed.cta.shared.v2.u64 {%rd2, %rd3}, [sm];",
        "ld.relaxed.gpu.global.b128 %q1, [%rd1];",
        "st.volatile.global.b128 [%rd1], %q1;",
    ] {
        let ptx = kernel(inst);
        let file = SourceFile::new("case.ptx", &ptx);
        let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
        let err = match lower(&ast, &file, &LowerOptions::default()) {
            Ok(_) => panic!("{inst}: translated, but a racing store could tear it"),
            Err(e) => e[0].render(&file),
        };
        assert!(err.contains("case.ptx:12:5") && err.contains("not supported yet") && err.contains("strong 16-byte access"), "{inst}: {err}");
    }
    for inst in ["ld.global.v2.u64 {%rd2, %rd3}, [%rd1];", "ld.volatile.local.v2.u64 {%rd2, %rd3}, [lm];", "ld.relaxed.gpu.global.v2.u32 {%r1, %r2}, [%rd1];"] {
        lowered_kernel(&kernel(inst), inst);
    }
}
