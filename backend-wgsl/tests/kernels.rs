//! Whole kernels: control flow, memories, atomics, barriers, builtins, names, profiles, and
//! the refusal of IR that breaks its contract.

mod common;
use common::*;
use ptxcross_lower::abi;
use ptxcross_lower::ir::*;
use ptxcross_wgsl::{emit, requirements, validate, EmitError, Profile};

fn ok(k: Kernel, profile: Profile) -> String {
    let w = emit(&module(vec![k]), profile).unwrap_or_else(|e| panic!("{e}\n{e:?}"));
    dump(&w);
    w
}

fn invalid(k: Kernel) -> String {
    match emit(&module(vec![k]), Profile::Wgpu) {
        Err(EmitError::InvalidIr { message, .. }) => message,
        other => panic!("expected InvalidIr, got {other:?}"),
    }
}

#[test]
fn vecadd_wgpu() {
    let wgsl = ok(vecadd(), Profile::Wgpu);
    assert!(wgsl.contains("@compute @workgroup_size(64, 1, 1)\nfn vecadd("), "{wgsl}");
    assert!(wgsl.contains("@group(0) @binding(0) var<storage, read_write> px_heap: array<u32>;"));
    assert!(wgsl.contains("@group(0) @binding(1) var<storage, read> px_params: array<u32>;"));
    validate(&wgsl, Profile::Wgpu).unwrap();
    // 64-bit values: not standard WGSL.
    assert!(validate(&wgsl, Profile::WebGpu).is_err());
}

#[test]
fn webgpu_refuses_64_bit_kernels() {
    match emit(&module(vec![vecadd()]), Profile::WebGpu) {
        Err(e @ EmitError::Unsupported { .. }) => {
            assert_eq!(e.to_string(), "the webgpu profile does not support 64-bit integers yet (kernel vecadd)")
        }
        other => panic!("{other:?}"),
    }
    // f64 only.
    let mut b = Kb::new("dbl", [1, 1, 1]);
    let x = b.var(Ty::F64, "%fd1");
    b.push(assign(x, bin(BinaryOp::FAdd, Ty::F64, x, x)));
    let e = emit(&module(vec![b.build()]), Profile::WebGpu).unwrap_err();
    assert!(matches!(e, EmitError::Unsupported { .. }) && e.to_string().contains("kernel dbl"), "{e}");
    // A 64-bit constant in a 32-bit kernel counts too.
    let mut b = Kb::new("c64", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.push(assign(x, conv(ConvertOp::Truncate, Ty::U64, Ty::U32, c64(5))));
    assert!(matches!(emit(&module(vec![b.build()]), Profile::WebGpu), Err(EmitError::Unsupported { .. })));
    // features.int64 alone (lower says the kernel needs it).
    let mut k = vecadd32();
    k.features.int64 = true;
    assert!(matches!(emit(&module(vec![k]), Profile::WebGpu), Err(EmitError::Unsupported { .. })));
}

#[test]
fn vecadd32_webgpu() {
    let wgsl = ok(vecadd32(), Profile::WebGpu);
    assert!(!wgsl.contains("u64") && !wgsl.contains("i64"), "{wgsl}");
    assert!(wgsl.contains("0.5f"), "{wgsl}");
    validate(&wgsl, Profile::WebGpu).unwrap();
}

#[test]
fn requirements_follow_the_ir() {
    assert_eq!(requirements(&vecadd32()), ptxcross_wgsl::Requirements { int64: false, float64: false, int64_atomics: false });
    assert_eq!(requirements(&vecadd()), ptxcross_wgsl::Requirements { int64: true, float64: false, int64_atomics: false });
    let mut b = Kb::new("dbl", [1, 1, 1]);
    let x = b.var(Ty::F64, "%fd1");
    b.push(assign(x, un(UnaryOp::FNeg, Ty::F64, x)));
    let k = b.build();
    // f64 sign/NaN/constant bit tricks go through u64.
    assert_eq!(requirements(&k), ptxcross_wgsl::Requirements { int64: true, float64: true, int64_atomics: false });
    let wgsl = ok(k, Profile::Wgpu);
    assert!(wgsl.contains("bitcast<f64>(bitcast<u64>(v0) ^ 0x8000000000000000lu)"), "{wgsl}");
}

/// `for (i = 0; ; i++) { if (i == 10) break; if (i & 1) continue; sum += i; }`
#[test]
fn loop_with_break_and_continue() {
    use BinaryOp::*;
    let mut b = Kb::new("loops", [1, 1, 1]);
    let i = b.var(Ty::U32, "i");
    let sum = b.var(Ty::U32, "sum");
    let p = b.var(Ty::Bool, "p");
    let odd = b.var(Ty::U32, "odd");
    b.push(loop_(vec![
        assign(p, cmp(CmpOp::Eq, Ty::U32, i, c32(10))),
        if_(p, vec![Stmt::Break], vec![]),
        assign(odd, bin(And, Ty::U32, i, c32(1))),
        assign(i, bin(Add, Ty::U32, i, c32(1))),
        assign(p, cmp(CmpOp::Ne, Ty::U32, odd, c32(0))),
        if_(p, vec![Stmt::Continue], vec![]),
        assign(sum, bin(Add, Ty::U32, sum, i)),
    ]));
    b.push(store(Memory::Heap, c32(64), sum));
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains("loop {") && wgsl.contains("break;") && wgsl.contains("continue;"), "{wgsl}");
}

#[test]
fn nested_ifs_and_return_in_a_loop() {
    use BinaryOp::*;
    let mut b = Kb::new("nested", [8, 4, 2]);
    let t = b.var(Ty::U32, "t");
    let p = b.var(Ty::Bool, "p");
    let q = b.var(Ty::Bool, "q");
    b.extend([
        assign(t, Expr::Builtin(Builtin::ThreadId(1))),
        loop_(vec![
            assign(p, cmp(CmpOp::LtU, Ty::U32, t, c32(3))),
            assign(q, cmp(CmpOp::GtS, Ty::U32, t, c32(u32::MAX))),
            if_(
                p,
                vec![if_(
                    q,
                    vec![store(Memory::Heap, c32(70), t), Stmt::Return],
                    vec![if_(cbool(true), vec![Stmt::Break], vec![Stmt::Continue])],
                )],
                vec![assign(t, bin(Sub, Ty::U32, t, c32(1)))],
            ),
            loop_(vec![Stmt::Break]),
        ]),
        Stmt::Return,
    ]);
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains("@workgroup_size(8, 4, 2)"), "{wgsl}");
    assert!(wgsl.contains("} else {"), "{wgsl}");
}

#[test]
fn nothing_after_a_terminator() {
    let mut b = Kb::new("dead", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.push(loop_(vec![Stmt::Break, assign(x, c32(111).into_expr())]));
    b.push(if_(cbool(true), vec![Stmt::Return, assign(x, c32(222).into_expr())], vec![]));
    b.push(loop_(vec![Stmt::Continue, Stmt::Break]));
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(!wgsl.contains("111u") && !wgsl.contains("222u"), "{wgsl}");
}

#[test]
fn loops_without_exit_get_one_wgsl_accepts() {
    // `loop { continue; }` never ends; WGSL (Tint) rejects a loop with no break or return.
    let mut b = Kb::new("spin", [1, 1, 1]);
    b.push(loop_(vec![loop_(vec![Stmt::Break]), if_(cbool(true), vec![Stmt::Continue], vec![])]));
    b.push(loop_(vec![loop_(vec![Stmt::Return])]));
    b.push(loop_(vec![if_(cbool(true), vec![], vec![Stmt::Break])]));
    // Unreachable exits do not count: after `continue`, and after an if whose branches both
    // leave (WGSL's behavior analysis ignores what follows).
    b.push(loop_(vec![Stmt::Continue, Stmt::Break]));
    b.push(loop_(vec![if_(cbool(true), vec![Stmt::Continue], vec![Stmt::Continue]), Stmt::Break]));
    let wgsl = ok(b.build(), Profile::WebGpu);
    // The first loop lacks an exit of its own (the inner break leaves the inner loop).
    assert_eq!(wgsl.matches("if (false) { break; }").count(), 3, "{wgsl}");
    assert!(wgsl.contains("    loop {\n        if (false) { break; } // the IR loop has no exit\n        loop {\n            break;"), "{wgsl}");
}

trait IntoExpr {
    fn into_expr(self) -> Expr;
}
impl IntoExpr for Operand {
    fn into_expr(self) -> Expr {
        Expr::Use(self)
    }
}

#[test]
fn break_or_continue_outside_a_loop_is_invalid() {
    for s in [Stmt::Break, Stmt::Continue] {
        let mut b = Kb::new("k", [1, 1, 1]);
        b.push(if_(cbool(true), vec![s.clone()], vec![]));
        assert!(invalid(b.build()).contains("outside of a loop"));
    }
}

fn every_atomic(memory: Memory, index: Operand) -> Vec<Stmt> {
    AtomicOp::ALL
        .iter()
        .map(|&op| {
            let comparand = (op == AtomicOp::CompareExchange).then_some(c32(7));
            assign(VarId(0), Expr::AtomicWord { memory, op, index, value: c32(3), comparand })
        })
        .collect()
}

#[test]
fn heap_atomics() {
    let mut b = Kb::new("atom", [64, 1, 1]);
    let old = b.var(Ty::U32, "old");
    b.k.features.heap_atomics = true;
    b.extend(every_atomic(Memory::Heap, c32(100)));
    b.extend([
        assign(old, load(Memory::Heap, old)),
        store(Memory::Heap, old, c32(1)),
        Stmt::Fault { code: abi::FAULT_TRAP },
    ]);
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains("var<storage, read_write> px_heap: array<atomic<u32>>;"), "{wgsl}");
    // Plain accesses are branchless: index `j` is `i` or, out of range, the sink word.
    assert!(wgsl.contains("atomicLoad(&px_heap[j])") && wgsl.contains("atomicStore(&px_heap[j], v)"), "{wgsl}");
    assert!(wgsl.contains("let j = select(2u, i, ok);"), "{wgsl}");
    assert!(wgsl.contains("atomicOr(&px_heap[0u], bits);"), "{wgsl}");
    assert!(wgsl.contains("px_fault(32u);"), "{wgsl}");
    for f in ["add", "sub", "and", "or", "xor", "exchange", "min_u", "max_u", "min_s", "max_s", "cmpxchg"] {
        assert!(wgsl.contains(&format!("fn px_heap_atomic_{f}(")), "{f}: {wgsl}");
    }
    assert!(wgsl.contains("px_heap_atomic_cmpxchg(100u, 7u, 3u)"), "{wgsl}");
}

#[test]
fn heap_atomics_are_detected_without_the_feature_flag() {
    // The declaration follows what the IR does, whatever `features` claims.
    let mut b = Kb::new("atom", [1, 1, 1]);
    b.var(Ty::U32, "old");
    b.extend(every_atomic(Memory::Heap, c32(100)));
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains("array<atomic<u32>>"), "{wgsl}");
}

#[test]
fn shared_memory_atomics_and_barrier() {
    let mut b = Kb::new("reduce", [128, 1, 1]);
    let x = b.var(Ty::U32, "x");
    let t = b.var(Ty::U32, "t");
    b.k.shared_words = 128;
    b.k.features.shared_atomics = true;
    b.extend(every_atomic(Memory::Shared, t.into()));
    b.extend([
        assign(t, Expr::Builtin(Builtin::ThreadId(0))),
        store(Memory::Shared, t, t),
        Stmt::Barrier,
        assign(x, load(Memory::Shared, c32(0))),
        store(Memory::Heap, c32(64), x),
    ]);
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains("var<workgroup> px_shared: array<atomic<u32>, 128>;"), "{wgsl}");
    assert!(wgsl.contains("    storageBarrier();\n    workgroupBarrier();\n"), "{wgsl}");
    assert!(wgsl.contains("if (i < 128u)"), "{wgsl}");
    assert!(wgsl.contains("px_fault(2u);"), "{wgsl}");
    // The heap is not atomic here.
    assert!(wgsl.contains("px_heap: array<u32>;"), "{wgsl}");
}

#[test]
fn plain_shared_and_local_memory() {
    let mut b = Kb::new("mem", [32, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.k.shared_words = 33;
    b.k.local_words = 5;
    b.extend([
        store(Memory::Local, x, c32(9)),
        // A constant index inside the array (`Kernel::index_in_range`): no check.
        store(Memory::Local, c32(4), c32(9)),
        assign(x, load(Memory::Local, x)),
        store(Memory::Shared, x, x),
        assign(x, load(Memory::Shared, c32(32))),
        assign(x, load(Memory::Param, x)),
    ]);
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains("var<workgroup> px_shared: array<u32, 33>;"), "{wgsl}");
    assert!(wgsl.contains("var<private> px_local: array<u32, 5>;"), "{wgsl}");
    // Branchless bounds checks: the fault bits are deferred to the thread's end.
    assert!(wgsl.contains("px_defer(!ok, 4u);") && wgsl.contains("px_defer(!ok, 8u);"), "{wgsl}");
    assert!(wgsl.contains("px_local[j] = select(px_local[j], v, ok);"), "{wgsl}");
    assert!(wgsl.contains("px_local[4u] = 9u;"), "{wgsl}");
    assert!(wgsl.contains("    px_flush();\n}"), "{wgsl}");
}

#[test]
fn memories_without_words_only_fault() {
    let mut b = Kb::new("nomem", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.extend([
        store(Memory::Local, c32(0), c32(9)),
        assign(x, load(Memory::Local, x)),
        store(Memory::Shared, x, x),
        assign(x, load(Memory::Shared, c32(0))),
        assign(x, Expr::AtomicWord { memory: Memory::Shared, op: AtomicOp::Add, index: x.into(), value: x.into(), comparand: None }),
    ]);
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(!wgsl.contains("var<workgroup>") && !wgsl.contains("var<private>"), "{wgsl}");
}

#[test]
fn builtins() {
    let mut b = Kb::new("ids", [4, 4, 4]);
    let x = b.var(Ty::U32, "x");
    for d in 0..3 {
        for bi in [Builtin::ThreadId(d), Builtin::CtaId(d), Builtin::NumCtas(d)] {
            b.push(assign(x, Expr::Builtin(bi)));
        }
    }
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains(
        "fn ids(@builtin(local_invocation_id) px_lid: vec3<u32>, @builtin(workgroup_id) px_wid: vec3<u32>, @builtin(num_workgroups) px_nwg: vec3<u32>)"
    ), "{wgsl}");
    assert!(wgsl.contains("v0 = px_nwg.z;"), "{wgsl}");

    let mut b = Kb::new("bad", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.push(assign(x, Expr::Builtin(Builtin::CtaId(3))));
    assert!(invalid(b.build()).contains("dimension 3"));
}

#[test]
fn float_constants_keep_their_bits() {
    let cases: [(u32, &str); 9] = [
        (0x3f80_0000, "1.0f"),
        (0x3dcc_cccd, "0.1f"),
        ((-2.5f32).to_bits(), "(-2.5f)"),
        (0, "0f"),
        (0x8000_0000, "px_f32_from_bits(0x80000000u)"),
        (0x7fc0_0001, "px_f32_from_bits(0x7fc00001u)"),
        (0xff80_0000, "px_f32_from_bits(0xff800000u)"),
        (1, "px_f32_from_bits(0x00000001u)"),
        (f32::MAX.to_bits(), "px_f32_from_bits(0x7f7fffffu)"),
    ];
    for (bits, text) in cases {
        let mut b = Kb::new("k", [1, 1, 1]);
        let x = b.var(Ty::F32, "x");
        b.push(assign(x, Expr::Use(Operand::Const(Const::F32(bits)))));
        let wgsl = ok(b.build(), Profile::WebGpu);
        // Assigned once: a `let` (`Kernel::value_vars`).
        assert!(wgsl.contains(&format!("let v0: f32 = {text};")), "{bits:#x}: {wgsl}");
    }
    let cases: [(u64, &str); 5] = [
        (1.0f64.to_bits(), "1.0lf"),
        (0.1f64.to_bits(), "0.1lf"),
        ((-1e-7f64).to_bits(), "(-1e-7lf)"),
        (0x7ff8_0000_0000_0001, "px_f64_from_bits(0x7ff8000000000001lu)"),
        (0x8000_0000_0000_0000, "px_f64_from_bits(0x8000000000000000lu)"),
    ];
    for (bits, text) in cases {
        let mut b = Kb::new("k", [1, 1, 1]);
        let x = b.var(Ty::F64, "x");
        b.push(assign(x, Expr::Use(Operand::Const(Const::F64(bits)))));
        let wgsl = ok(b.build(), Profile::Wgpu);
        assert!(wgsl.contains(&format!("let v0: f64 = {text};")), "{bits:#x}: {wgsl}");
    }
}

#[test]
fn fneg_and_fabs_are_bit_operations() {
    let mut b = Kb::new("k", [1, 1, 1]);
    let x = b.var(Ty::F32, "x");
    b.push(assign(x, un(UnaryOp::FNeg, Ty::F32, x)));
    b.push(assign(x, un(UnaryOp::FAbs, Ty::F32, x)));
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains("v0 = bitcast<f32>(bitcast<u32>(v0) ^ 0x80000000u);"), "{wgsl}");
    assert!(wgsl.contains("v0 = bitcast<f32>(bitcast<u32>(v0) & 0x7fffffffu);"), "{wgsl}");
}

#[test]
fn ordered_float_compares_test_nan_on_bits() {
    let mut b = Kb::new("k", [1, 1, 1]);
    let x = b.var(Ty::F32, "x");
    let p = b.var(Ty::Bool, "p");
    b.push(assign(p, cmp(CmpOp::FNe, Ty::F32, x, x)));
    let wgsl = ok(b.build(), Profile::WebGpu);
    assert!(wgsl.contains("let v1: bool = px_ordered_f32(v0, v0) && (px_hide_f32(v0, px_z0) != px_hide_f32(v0, px_z1));"), "{wgsl}");
    assert!(wgsl.contains("(bitcast<u32>(a) & 0x7fffffffu) <= 0x7f800000u"), "{wgsl}");
}

#[test]
fn several_kernels_share_heap_and_params() {
    let mut a = Kb::new("first", [64, 1, 1]);
    let x = a.var(Ty::U32, "x");
    a.k.shared_words = 16;
    a.k.local_words = 2;
    a.extend([
        store(Memory::Shared, c32(1), c32(2)),
        store(Memory::Local, c32(1), c32(2)),
        assign(x, Expr::AtomicWord { memory: Memory::Heap, op: AtomicOp::Add, index: c32(64), value: c32(1), comparand: None }),
    ]);
    let mut b = Kb::new("second", [32, 1, 1]);
    let y = b.var(Ty::U32, "y");
    b.k.shared_words = 8;
    b.k.features.shared_atomics = true;
    b.extend([
        assign(y, Expr::AtomicWord { memory: Memory::Shared, op: AtomicOp::Or, index: c32(1), value: c32(1), comparand: None }),
        store(Memory::Shared, c32(1), y),
        store(Memory::Heap, c32(64), y),
    ]);
    let wgsl = emit(&module(vec![a.build(), vecadd32(), b.build()]), Profile::WebGpu).unwrap_or_else(|e| panic!("{e}"));
    // One heap, atomic because `first` needs it; everyone goes through atomicLoad/Store.
    assert_eq!(wgsl.matches("@binding(0)").count(), 1, "{wgsl}");
    assert!(wgsl.contains("px_heap: array<atomic<u32>>"), "{wgsl}");
    assert!(wgsl.contains("var<workgroup> px_k0_shared: array<u32, 16>;"), "{wgsl}");
    assert!(wgsl.contains("var<private> px_k0_local: array<u32, 2>;"), "{wgsl}");
    assert!(wgsl.contains("var<workgroup> px_k2_shared: array<atomic<u32>, 8>;"), "{wgsl}");
    assert!(wgsl.contains("fn px_k2_shared_atomic_or("), "{wgsl}");
    for f in ["fn first(", "fn vecadd32(", "fn second("] {
        assert!(wgsl.contains(f), "{wgsl}");
    }
}

#[test]
fn entry_point_names() {
    // A kernel whose name starts with the backend's prefix moves the prefix.
    let mut k = vecadd32();
    k.entry_point = "px_heap_load".into();
    let wgsl = ok(k, Profile::WebGpu);
    assert!(wgsl.contains("fn px_heap_load(@builtin") && wgsl.contains("fn px1_heap_load(i: u32)"), "{wgsl}");
    // Names WGSL reserves, or that are no identifiers.
    for name in ["loop", "__x", "_", "1a", "a-b", "", "new", "while"] {
        let mut k = vecadd32();
        k.entry_point = name.into();
        let m = invalid(k);
        assert!(m.contains("entry point name"), "{name}: {m}");
    }
    // Predeclared names may be shadowed unless the kernel's code uses that built-in.
    for name in ["transpose", "dot", "sin"] {
        let mut k = vecadd32();
        k.entry_point = name.into();
        let wgsl = ok(k, Profile::WebGpu);
        assert!(wgsl.contains(&format!("fn {name}(@builtin")), "{wgsl}");
    }
    for name in ["bitcast", "u32", "storage", "arrayLength"] {
        let mut k = vecadd32();
        k.entry_point = name.into();
        let m = invalid(k);
        assert!(m.contains("would shadow"), "{name}: {m}");
    }
    // Two kernels with one entry point.
    let err = emit(&module(vec![vecadd32(), vecadd32()]), Profile::WebGpu).unwrap_err();
    assert!(err.to_string().contains("used twice"), "{err}");
}

#[test]
fn comments_are_sanitized() {
    let mut b = Kb::new("k", [1, 1, 1]);
    b.k.name = "evil\nname */ \u{2028}".into();
    b.var(Ty::U32, "%r1\nfn oops() {}");
    let wgsl = ok(b.build(), Profile::WebGpu);
    // Still a comment (and the text validated).
    assert!(wgsl.contains("var v0: u32; // %r1?fn oops() {}\n"), "{wgsl}");
    assert!(wgsl.contains("// kernel evil?name */ ?\n"), "{wgsl}");
}

#[test]
fn contract_violations_are_invalid_ir() {
    // Undeclared variable.
    let mut b = Kb::new("k", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.push(assign(x, Expr::Use(VarId(9).into())));
    assert!(invalid(b.build()).contains("v9"));
    // Assignment of the wrong type.
    let mut b = Kb::new("k", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.push(assign(x, Expr::Use(cf32(1.0))));
    assert!(invalid(b.build()).contains("type"));
    // Float operand to an integer op.
    let mut b = Kb::new("k", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.push(assign(x, bin(BinaryOp::Add, Ty::U32, x, cf32(1.0))));
    invalid(b.build());
    // Non-Bool condition.
    let mut b = Kb::new("k", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.push(if_(x, vec![], vec![]));
    invalid(b.build());
    // Atomics on local memory; compare-exchange without comparand; comparand elsewhere.
    for (memory, op, comparand) in [
        (Memory::Local, AtomicOp::Add, None),
        (Memory::Param, AtomicOp::Add, None),
        (Memory::Heap, AtomicOp::CompareExchange, None),
        (Memory::Heap, AtomicOp::Add, Some(c32(1))),
    ] {
        let mut b = Kb::new("k", [1, 1, 1]);
        let x = b.var(Ty::U32, "x");
        b.push(assign(x, Expr::AtomicWord { memory, op, index: c32(64), value: c32(1), comparand }));
        invalid(b.build());
    }
    // Stores to the read-only parameters.
    let mut b = Kb::new("k", [1, 1, 1]);
    b.push(store(Memory::Param, c32(4), c32(1)));
    invalid(b.build());
    // Word index of the wrong type.
    let mut b = Kb::new("k", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    b.push(assign(x, load(Memory::Heap, c64(64))));
    invalid(b.build());
    // Zero workgroup dimension.
    invalid(Kb::new("k", [0, 1, 1]).build());
}

#[test]
fn empty_module() {
    let wgsl = emit(&Module::default(), Profile::WebGpu).unwrap();
    validate(&wgsl, Profile::WebGpu).unwrap();
}

#[test]
fn validate_reports_naga_errors() {
    let e = validate("fn f() -> u32 { return 1.0; }", Profile::WebGpu).unwrap_err();
    assert!(e.contains("error"), "{e}");
    let e = validate("@compute @workgroup_size(1) fn f() { var x: u64; }", Profile::WebGpu).unwrap_err();
    assert!(!e.is_empty());
    validate("@compute @workgroup_size(1) fn f() { var x: u64; }", Profile::Wgpu).unwrap();
}

fn nested_ifs(depth: usize) -> Kernel {
    let mut b = Kb::new("deep", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    let p = b.var(Ty::Bool, "p");
    let mut s = vec![store(Memory::Heap, c32(64), x)];
    for i in 0..depth {
        s = if i % 2 == 0 { vec![if_(p, s, vec![])] } else { vec![if_(p, vec![], s)] };
    }
    b.extend(s);
    b.build()
}

#[test]
fn nesting_limits() {
    // WGSL allows 127 nested brace statements (naga counts braces); Tint counts each `if`
    // twice: 62 nested ifs are its maximum (checked with tools/tint-check).
    for (profile, max) in [(Profile::WebGpu, 62), (Profile::Wgpu, 126)] {
        ok(nested_ifs(max), profile);
        match emit(&module(vec![nested_ifs(max + 1)]), profile) {
            Err(e @ EmitError::Unsupported { .. }) => assert!(e.to_string().contains("nests"), "{e}"),
            other => panic!("{profile}: {other:?}"),
        }
    }
    // Very deep IR: a clear error, no stack overflow.
    let e = emit(&module(vec![nested_ifs(20_000)]), Profile::Wgpu).unwrap_err();
    assert!(e.to_string().contains("20000 levels"), "{e}");
}

#[test]
fn deeply_nested_loops_are_fast() {
    // 60 nested loops, each left by a break after its inner loop: linear work, not 2^60.
    let mut b = Kb::new("loops", [1, 1, 1]);
    let x = b.var(Ty::U32, "x");
    let mut s = vec![assign(x, bin(BinaryOp::Add, Ty::U32, x, c32(1)))];
    for _ in 0..60 {
        s = vec![loop_(s.into_iter().chain([Stmt::Break]).collect())];
    }
    b.extend(s);
    let t = std::time::Instant::now();
    ok(b.build(), Profile::WebGpu);
    assert!(t.elapsed().as_secs() < 5);
}

#[test]
fn memories_larger_than_wgsl_arrays_are_refused() {
    for (shared, local) in [(1u32 << 30, 0u32), (0, u32::MAX)] {
        let mut b = Kb::new("big", [1, 1, 1]);
        b.k.shared_words = shared;
        b.k.local_words = local;
        b.push(store(Memory::Shared, c32(1), c32(1)));
        b.push(store(Memory::Local, c32(1), c32(1)));
        let e = emit(&module(vec![b.build()]), Profile::Wgpu).unwrap_err();
        assert!(matches!(e, EmitError::Unsupported { .. }) && e.to_string().contains("more than a WGSL array"), "{e}");
    }
    // 4 MiB of shared memory is no naga problem (the device limit is the host's); Tint wants
    // fewer than 65536 array elements.
    for (words, profile, fine) in [(1 << 20, Profile::Wgpu, true), (65535, Profile::WebGpu, true), (65536, Profile::WebGpu, false)] {
        let mut b = Kb::new("big", [1, 1, 1]);
        b.k.shared_words = words;
        b.push(store(Memory::Shared, c32(1), c32(1)));
        if fine {
            // (not dumped for tools/tint-check: pipeline creation would fail on the device limit)
            emit(&module(vec![b.build()]), profile).unwrap();
        } else {
            assert!(matches!(emit(&module(vec![b.build()]), profile), Err(EmitError::Unsupported { .. })));
        }
    }
}
