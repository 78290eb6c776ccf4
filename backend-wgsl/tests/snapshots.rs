//! The exact WGSL of a few small kernels, committed under tests/snapshots/ so that every change
//! of the output shows in review. `UPDATE_SNAPSHOTS=1 cargo test -p ptxcross-wgsl --test
//! snapshots` rewrites them.

mod common;
use common::*;
use ptxcross_lower::ir::*;
use ptxcross_wgsl::{emit, Profile};

fn snapshot(name: &str, module: &Module, profile: Profile) {
    let wgsl = emit(module, profile).unwrap_or_else(|e| panic!("{e}\n{e:?}"));
    dump(&wgsl);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(format!("{name}.wgsl"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &wgsl).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_SNAPSHOTS=1 to create it)", path.display()));
    if wgsl != expected {
        panic!(
            "{name}: the WGSL differs from {} (UPDATE_SNAPSHOTS=1 to accept):\n{wgsl}",
            path.display()
        );
    }
}

#[test]
fn vecadd32_webgpu() {
    snapshot("vecadd32_webgpu", &module(vec![vecadd32()]), Profile::WebGpu);
}

#[test]
fn vecadd_wgpu() {
    snapshot("vecadd_wgpu", &module(vec![vecadd()]), Profile::Wgpu);
}

/// A block-wide histogram: shared atomics, a barrier, a loop, a signed heap atomic, mul.hi.
#[test]
fn histogram_webgpu() {
    use BinaryOp::*;
    let mut b = Kb::new("histogram", [64, 1, 1]);
    let t = b.var(Ty::U32, "%r1");
    let i = b.var(Ty::U32, "%r2");
    let x = b.var(Ty::U32, "%r3");
    let p = b.var(Ty::Bool, "%p1");
    let f = b.var(Ty::F32, "%f1");
    b.k.shared_words = 16;
    b.k.features.shared_atomics = true;
    b.k.features.heap_atomics = true;
    b.extend([
        assign(t, Expr::Builtin(Builtin::ThreadId(0))),
        assign(p, cmp(CmpOp::LtU, Ty::U32, t, c32(16))),
        if_(p, vec![store(Memory::Shared, t, c32(0))], vec![]),
        Stmt::Barrier,
        // A uniform loop (every thread runs 16 iterations), so the barrier after it is
        // reached uniformly, as Tint demands.
        assign(i, Expr::Use(c32(0))),
        loop_(vec![
            assign(p, cmp(CmpOp::GeU, Ty::U32, i, c32(16))),
            if_(p, vec![Stmt::Break], vec![]),
            assign(x, bin(Mul, Ty::U32, i, c32(64))),
            assign(x, bin(Add, Ty::U32, x, t)),
            assign(x, bin(Add, Ty::U32, x, c32(64))),
            assign(x, load(Memory::Heap, x)),
            assign(x, bin(MulHiU, Ty::U32, x, c32(0x9e37_79b9))),
            assign(x, bin(ShrU, Ty::U32, x, c32(28))),
            assign(x, Expr::AtomicWord { memory: Memory::Shared, op: AtomicOp::Add, index: x.into(), value: c32(1), comparand: None }),
            assign(i, bin(Add, Ty::U32, i, c32(1))),
        ]),
        Stmt::Barrier,
        assign(p, cmp(CmpOp::LtU, Ty::U32, t, c32(16))),
        if_(
            p,
            vec![
                assign(x, load(Memory::Shared, t)),
                assign(f, conv(ConvertOp::UintToFloat, Ty::U32, Ty::F32, x)),
                assign(f, bin(FMul, Ty::F32, f, cf32(0.0009765625))),
                assign(p, cmp(CmpOp::FGt, Ty::F32, f, cf32(f32::INFINITY))),
                if_(p, vec![Stmt::Fault { code: 32 }], vec![]),
                assign(x, Expr::AtomicWord { memory: Memory::Heap, op: AtomicOp::MaxS, index: c32(2048), value: x.into(), comparand: None }),
            ],
            vec![],
        ),
    ]);
    snapshot("histogram_webgpu", &module(vec![b.build()]), Profile::WebGpu);
}
