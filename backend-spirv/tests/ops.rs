//! Every unary / binary / compare / convert / fma / select op on every type: each combination
//! the IR accepts emits and validates (all in one kernel per category); each other
//! combination is refused with an `InvalidIr` error.

mod common;

use common::*;
use ptxcross_lower::ir::*;

/// One variable per type; `x[ty]` sources, `y[ty]` destinations.
struct Vars {
    x: Vec<VarId>,
    y: Vec<VarId>,
}
fn vars(k: &mut KernelBuilder) -> Vars {
    let x = Ty::ALL.iter().map(|&t| k.var(t)).collect();
    let y = Ty::ALL.iter().map(|&t| k.var(t)).collect();
    Vars { x, y }
}
fn ti(ty: Ty) -> usize {
    Ty::ALL.iter().position(|&t| t == ty).unwrap()
}

/// Emits every combination alone: accepted ones must emit, the rest must be refused. Then
/// emits all accepted ones together in one kernel and validates it.
fn sweep(name: &str, combos: Vec<(String, bool, Vec<Stmt>)>) {
    let mut k = KernelBuilder::new(name);
    vars(&mut k);
    let mut all = Vec::new();
    let mut accepted = 0;
    for (what, ok, stmts) in combos {
        let mut kb = KernelBuilder::new(&format!("{name}_single"));
        vars(&mut kb);
        let m = module(vec![kb.finish(stmts.clone())]);
        match ptxcross_spirv::emit(&m) {
            Ok(_) if ok => {
                accepted += 1;
                all.extend(stmts);
            }
            Ok(_) => panic!("{what}: accepted, expected a refusal"),
            Err(e) if !ok => {
                assert!(matches!(e.kind, ptxcross_spirv::EmitErrorKind::InvalidIr(_)), "{what}: {e}")
            }
            Err(e) => panic!("{what}: refused: {e}"),
        }
    }
    assert!(accepted > 0);
    let words = check(&module(vec![k.finish(all)]));
    naga_report(name, &words);
}

#[test]
fn unary_ops() {
    let mut kb = KernelBuilder::new("x");
    let vs = vars(&mut kb);
    let mut combos = Vec::new();
    for op in UnaryOp::ALL {
        for ty in Ty::ALL {
            let ok = op.result_ty(ty).is_some();
            let dst = vs.y[ti(op.result_ty(ty).unwrap_or(ty))];
            // once from a variable, once from a constant
            let stmts = vec![
                assign(dst, un(op, ty, v(vs.x[ti(ty)]))),
                assign(dst, un(op, ty, const_of(ty))),
            ];
            combos.push((format!("{op:?} {ty:?}"), ok, stmts));
        }
    }
    sweep("unary", combos);
}

#[test]
fn binary_ops() {
    let mut kb = KernelBuilder::new("x");
    let vs = vars(&mut kb);
    let mut combos = Vec::new();
    for op in BinaryOp::ALL {
        for ty in Ty::ALL {
            let ok = op.accepts(ty);
            let rty = if op.is_shift() { Ty::U32 } else { ty };
            let rhs_const = if op.is_shift() { c32(3) } else { const_of(ty) };
            let stmts = vec![
                assign(vs.y[ti(ty)], bin(op, ty, v(vs.x[ti(ty)]), v(vs.x[ti(rty)]))),
                assign(vs.y[ti(ty)], bin(op, ty, v(vs.x[ti(ty)]), rhs_const)),
            ];
            combos.push((format!("{op:?} {ty:?}"), ok, stmts));
        }
    }
    sweep("binary", combos);
}

#[test]
fn shift_amount_must_be_u32() {
    let mut kb = KernelBuilder::new("k");
    let a = kb.var(Ty::U64);
    let m = module(vec![kb.finish(vec![assign(a, bin(BinaryOp::Shl, Ty::U64, v(a), c64(3)))])]);
    expect_invalid(&m, "U32");
}

#[test]
fn compare_ops() {
    let mut kb = KernelBuilder::new("x");
    let vs = vars(&mut kb);
    let mut combos = Vec::new();
    for op in CmpOp::ALL {
        for ty in Ty::ALL {
            let stmts = vec![
                assign(vs.y[ti(Ty::Bool)], cmp(op, ty, v(vs.x[ti(ty)]), v(vs.y[ti(ty)]))),
                assign(vs.y[ti(Ty::Bool)], cmp(op, ty, const_of(ty), v(vs.y[ti(ty)]))),
            ];
            combos.push((format!("{op:?} {ty:?}"), op.accepts(ty), stmts));
        }
    }
    sweep("compare", combos);
}

#[test]
fn convert_ops() {
    let mut kb = KernelBuilder::new("x");
    let vs = vars(&mut kb);
    let mut combos = Vec::new();
    for op in ConvertOp::ALL {
        for from in Ty::ALL {
            for to in Ty::ALL {
                let stmts = vec![
                    assign(vs.y[ti(to)], Expr::Convert { op, from, to, arg: v(vs.x[ti(from)]) }),
                    assign(vs.y[ti(to)], Expr::Convert { op, from, to, arg: const_of(from) }),
                ];
                combos.push((format!("{op:?} {from:?}->{to:?}"), op.accepts(from, to), stmts));
            }
        }
    }
    sweep("convert", combos);
}

#[test]
fn fma_select_use() {
    let mut kb = KernelBuilder::new("x");
    let vs = vars(&mut kb);
    let mut combos = Vec::new();
    for ty in Ty::ALL {
        let x = v(vs.x[ti(ty)]);
        let stmts = vec![assign(vs.y[ti(ty)], Expr::Fma { ty, a: x, b: const_of(ty), c: x })];
        combos.push((format!("Fma {ty:?}"), ty.is_float(), stmts));
        let stmts = vec![
            assign(vs.y[ti(ty)], Expr::Select { ty, cond: v(vs.x[0]), a: x, b: const_of(ty) }),
            assign(vs.y[ti(ty)], Expr::Use(x)),
            assign(vs.y[ti(ty)], Expr::Use(const_of(ty))),
        ];
        combos.push((format!("Select/Use {ty:?}"), true, stmts));
    }
    // Select with a non-bool condition, Use into a variable of another type: refused.
    combos.push((
        "Select u32 cond".into(),
        false,
        vec![assign(vs.y[1], Expr::Select { ty: Ty::U32, cond: v(vs.x[1]), a: c32(1), b: c32(2) })],
    ));
    combos.push(("Use type mismatch".into(), false, vec![assign(vs.y[1], Expr::Use(cf32(1.0)))]));
    sweep("fma_select", combos);
}

/// Special constants survive bit-exactly (NaN payloads, -0.0, u64 extremes).
#[test]
fn constants_are_bit_exact() {
    let mut kb = KernelBuilder::new("consts");
    let f = kb.var(Ty::F32);
    let d = kb.var(Ty::F64);
    let q = kb.var(Ty::U64);
    let m = module(vec![kb.finish(vec![
        copy(f, Operand::Const(Const::F32(0x7fc0_1234))),
        copy(f, Operand::Const(Const::F32(0x8000_0000))),
        copy(d, Operand::Const(Const::F64(0x7ff8_0000_dead_beef))),
        copy(q, c64(u64::MAX)),
        copy(q, c64(0x8000_0000_0000_0000)),
    ])]);
    let words = check(&m);
    let module = rspirv::dr::load_words(&words).unwrap();
    let consts: Vec<String> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == rspirv::spirv::Op::Constant)
        .map(|i| format!("{}", i.operands[0]))
        .collect();
    let wants = [
        0x7fc0_1234u64,
        0x8000_0000,
        0x7ff8_0000_dead_beef,
        u64::MAX,
        0x8000_0000_0000_0000,
    ];
    for want in wants.map(|w| w.to_string()) {
        assert!(consts.contains(&want), "constant {want} missing from {consts:?}");
    }
}

/// Vulkan leaves `OpSRem`/`OpSMod` undefined for negative operands, and NVIDIA's driver returns
/// other values there (`rem.s32 1, -1` gave 1 on an H200), so signed division and remainder
/// are emitted through unsigned operations on magnitudes; the emulation's values are checked
/// on the device by the sweeps (tests/tests/inst_sweep.rs) and the differential tester.
#[test]
fn signed_division_avoids_opcodes_vulkan_leaves_undefined() {
    const OP_SDIV: u32 = 135;
    const OP_SREM: u32 = 138;
    const OP_SMOD: u32 = 139;
    for ty in [Ty::U32, Ty::U64] {
        let mut kb = KernelBuilder::new("signed_div_rem");
        let (a, b, q, r) = (kb.var(ty), kb.var(ty), kb.var(ty), kb.var(ty));
        let body = vec![
            Stmt::Assign { dst: q, expr: Expr::Binary { op: BinaryOp::DivS, ty, lhs: a.into(), rhs: b.into() } },
            Stmt::Assign { dst: r, expr: Expr::Binary { op: BinaryOp::RemS, ty, lhs: a.into(), rhs: b.into() } },
        ];
        let words = check(&module(vec![kb.finish(body)]));
        let mut i = 5;
        while i < words.len() {
            let (count, opcode) = ((words[i] >> 16) as usize, words[i] & 0xffff);
            assert!(![OP_SDIV, OP_SREM, OP_SMOD].contains(&opcode), "{ty:?}: opcode {opcode} emitted");
            i += count.max(1);
        }
    }
}
