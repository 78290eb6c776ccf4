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
    let file = SourceFile::new("case.ptx", ptx.as_str());
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    let module = lower(&ast, &file, &LowerOptions { block: Some([32, 1, 1]), ..Default::default() })
        .unwrap_or_else(|e| panic!("{inst}: {}", e[0].render(&file)));
    let mut out = Vec::new();
    trace(&module.kernels[0].body, &mut out);
    out
}

#[test]
fn acquire_and_release_put_fences_at_their_scope() {
    for (inst, want) in [
        ("ld.global.u32 %r1, [%rd1];", "L"),
        ("ld.relaxed.gpu.global.u32 %r1, [%rd1];", "Aor"),
        ("ld.volatile.global.u32 %r1, [%rd1];", "Aor"),
        ("ld.acquire.gpu.global.u32 %r1, [%rd1];", "Aor Fgpu"),
        ("ld.acquire.cta.global.u32 %r1, [%rd1];", "Aor Fcta"),
        ("ld.acquire.sys.global.u64 %rd2, [%rd1];", "Aor Aor Fgpu"),
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
