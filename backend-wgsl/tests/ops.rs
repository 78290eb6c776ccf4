//! Every operation on every type the IR defines it for emits WGSL that naga accepts (both
//! profiles where the type allows), and every operation on a type it is not defined for is
//! refused as invalid IR (never a panic, never a naga error).

mod common;
use common::*;
use ptxcross_lower::ir::*;
use ptxcross_wgsl::{emit, EmitError, Profile};

fn is64(ty: Ty) -> bool {
    matches!(ty, Ty::U64 | Ty::F64)
}

/// A kernel computing `dst = expr` from variables `a`, `b`, `c` of type `arg` (whose values
/// come from the heap so nothing is constant-folded).
fn one_op(arg: Ty, dst_ty: Ty, make: impl FnOnce(VarId, VarId, VarId) -> Expr) -> Kernel {
    let mut b = Kb::new("op", [32, 1, 1]);
    let x = b.var(arg, "a");
    let y = b.var(arg, "b");
    let z = b.var(arg, "c");
    let dst = b.var(dst_ty, "dst");
    let w = b.var(Ty::U32, "w");
    b.push(assign(w, load(Memory::Heap, c32(100))));
    b.push(assign(dst, make(x, y, z)));
    b.build()
}

fn check(k: Kernel, ok: bool, profile: Profile, what: &str) {
    let uses64 = k.vars.iter().any(|v| is64(v.ty));
    match emit(&module(vec![k]), profile) {
        Ok(w) => {
            assert!(ok && !(profile == Profile::WebGpu && uses64), "{what}: accepted but should not be");
            if profile == Profile::WebGpu {
                dump(&w);
            }
        }
        Err(EmitError::InvalidIr { message, .. }) => assert!(!ok, "{what}: refused as invalid: {message}"),
        Err(EmitError::Unsupported { message, .. }) => {
            assert!(profile == Profile::WebGpu && uses64, "{what}: unsupported: {message}")
        }
        Err(e @ EmitError::Validation { .. }) => panic!("{what}: {e}\n{e:?}"),
    }
}

#[test]
fn unary_ops() {
    for profile in [Profile::Wgpu, Profile::WebGpu] {
        for op in UnaryOp::ALL {
            for ty in Ty::ALL {
                let rty = op.result_ty(ty);
                let k = one_op(ty, rty.unwrap_or(ty), |a, _, _| un(op, ty, a));
                check(k, rty.is_some(), profile, &format!("{op:?}.{ty:?} ({profile})"));
            }
        }
    }
}

#[test]
fn unary_ops_on_constants() {
    // Constant operands too (naga constant-folds some of these: the folding must accept them).
    for op in UnaryOp::ALL {
        for ty in Ty::ALL {
            let Some(rty) = op.result_ty(ty) else { continue };
            for c in [
                Const::U32(0x8000_0001),
                Const::U64(0x8000_0000_0000_0001),
                Const::F32(0x7fc0_0000),
                Const::F64(0xfff0_0000_0000_0000),
                Const::Bool(true),
                Const::F32((-2.5f32).to_bits()),
                Const::F64(0.1f64.to_bits()),
            ] {
                if c.ty() != ty {
                    continue;
                }
                let mut b = Kb::new("op", [1, 1, 1]);
                let d = b.var(rty, "d");
                b.push(assign(d, un(op, ty, c)));
                check(b.build(), true, Profile::Wgpu, &format!("{op:?}.{ty:?} on {c:?}"));
            }
        }
    }
}

#[test]
fn binary_ops() {
    for profile in [Profile::Wgpu, Profile::WebGpu] {
        for op in BinaryOp::ALL {
            for ty in Ty::ALL {
                let shift = matches!(op, BinaryOp::Shl | BinaryOp::ShrU | BinaryOp::ShrS);
                let mut b = Kb::new("op", [32, 1, 1]);
                let x = b.var(ty, "a");
                let y = b.var(ty, "b");
                let s = b.var(Ty::U32, "s");
                let d = b.var(ty, "d");
                b.push(assign(d, bin(op, ty, x, if shift { s } else { y })));
                check(b.build(), op.accepts(ty), profile, &format!("{op:?}.{ty:?} ({profile})"));
            }
        }
    }
}

#[test]
fn shifts_take_a_u32_amount() {
    let mut b = Kb::new("op", [1, 1, 1]);
    let x = b.var(Ty::U64, "a");
    let d = b.var(Ty::U64, "d");
    b.push(assign(d, bin(BinaryOp::Shl, Ty::U64, x, x)));
    assert!(matches!(emit(&module(vec![b.build()]), Profile::Wgpu), Err(EmitError::InvalidIr { .. })));
}

#[test]
fn compare_ops() {
    for profile in [Profile::Wgpu, Profile::WebGpu] {
        for op in CmpOp::ALL {
            for ty in Ty::ALL {
                let k = one_op(ty, Ty::Bool, |a, b, _| cmp(op, ty, a, b));
                check(k, op.accepts(ty), profile, &format!("{op:?}.{ty:?} ({profile})"));
            }
        }
    }
}

#[test]
fn convert_ops() {
    for profile in [Profile::Wgpu, Profile::WebGpu] {
        for op in ConvertOp::ALL {
            for from in Ty::ALL {
                for to in Ty::ALL {
                    let mut b = Kb::new("op", [32, 1, 1]);
                    let x = b.var(from, "a");
                    let d = b.var(to, "d");
                    b.push(assign(d, conv(op, from, to, x)));
                    check(b.build(), op.accepts(from, to), profile, &format!("{op:?} {from:?}->{to:?} ({profile})"));
                }
            }
        }
    }
}

#[test]
fn fma_and_select() {
    for profile in [Profile::Wgpu, Profile::WebGpu] {
        for ty in Ty::ALL {
            let k = one_op(ty, ty, |a, b, c| Expr::Fma { ty, a: a.into(), b: b.into(), c: c.into() });
            check(k, ty.is_float(), profile, &format!("Fma.{ty:?}"));
            let mut b = Kb::new("op", [32, 1, 1]);
            let x = b.var(ty, "a");
            let y = b.var(ty, "b");
            let p = b.var(Ty::Bool, "p");
            let d = b.var(ty, "d");
            b.push(assign(p, cmp(CmpOp::Ne, Ty::U32, c32(1), c32(2))));
            b.push(assign(d, Expr::Select { ty, cond: p.into(), a: x.into(), b: y.into() }));
            check(b.build(), true, profile, &format!("Select.{ty:?}"));
        }
    }
}

#[test]
fn all_32_bit_ops_in_one_webgpu_kernel() {
    // One kernel using every 32-bit op (the helpers must coexist).
    let mut b = Kb::new("all32", [64, 1, 1]);
    let mut stmts = Vec::new();
    let mut vars = std::collections::HashMap::new();
    for ty in [Ty::Bool, Ty::U32, Ty::F32] {
        let x = b.var(ty, "x");
        let y = b.var(ty, "y");
        vars.insert(format!("{ty:?}"), (x, y));
    }
    let s = b.var(Ty::U32, "s");
    for ty in [Ty::Bool, Ty::U32, Ty::F32] {
        let (x, y) = vars[&format!("{ty:?}")];
        for op in UnaryOp::ALL {
            if let Some(r) = op.result_ty(ty) {
                let d = b.var(r, "d");
                stmts.push(assign(d, un(op, ty, x)));
            }
        }
        for op in BinaryOp::ALL {
            if op.accepts(ty) {
                let d = b.var(ty, "d");
                let shift = matches!(op, BinaryOp::Shl | BinaryOp::ShrU | BinaryOp::ShrS);
                stmts.push(assign(d, bin(op, ty, x, if shift { s } else { y })));
            }
        }
        for op in CmpOp::ALL {
            if op.accepts(ty) {
                let d = b.var(Ty::Bool, "d");
                stmts.push(assign(d, cmp(op, ty, x, y)));
            }
        }
    }
    for op in ConvertOp::ALL {
        for (from, to) in [(Ty::U32, Ty::F32), (Ty::F32, Ty::U32)] {
            if op.accepts(from, to) {
                let d = b.var(to, "d");
                let (x, _) = vars[&format!("{from:?}")];
                stmts.push(assign(d, conv(op, from, to, x)));
            }
        }
    }
    b.extend(stmts);
    let wgsl = emit(&module(vec![b.build()]), Profile::WebGpu).unwrap_or_else(|e| panic!("{e}\n{e:?}"));
    dump(&wgsl);
    assert!(!wgsl.contains("u64") && !wgsl.contains("i64") && !wgsl.contains("f64"), "{wgsl}");
    // The 32-bit high multiply goes through 16-bit limbs here.
    assert!(wgsl.contains("fn px_mul_hi_u32("), "{wgsl}");
    assert!(wgsl.contains("fn px_mul_hi_s32("), "{wgsl}");
}

#[test]
fn mul_hi_u32_uses_u64_only_in_64_bit_kernels() {
    // A 32-bit kernel must not need SHADER_INT64, even in the wgpu profile.
    let k = one_op(Ty::U32, Ty::U32, |a, b, _| bin(BinaryOp::MulHiS, Ty::U32, a, b));
    let wgsl = emit(&module(vec![k]), Profile::Wgpu).unwrap();
    assert!(!wgsl.contains("u64") && !wgsl.contains("i64"), "{wgsl}");
    let mut k = one_op(Ty::U32, Ty::U32, |a, b, _| bin(BinaryOp::MulHiS, Ty::U32, a, b));
    k.features.int64 = true;
    let wgsl = emit(&module(vec![k]), Profile::Wgpu).unwrap();
    assert!(wgsl.contains("i64(bitcast<i32>(v0)) * i64(bitcast<i32>(v1))"), "{wgsl}");
}

fn nasty(ty: Ty) -> Vec<Const> {
    match ty {
        Ty::Bool => vec![Const::Bool(true), Const::Bool(false)],
        Ty::U32 => vec![Const::U32(u32::MAX), Const::U32(0x8000_0000), Const::U32(31)],
        Ty::U64 => vec![Const::U64(u64::MAX), Const::U64(1 << 63), Const::U64(63)],
        Ty::F32 => vec![
            Const::F32(3e38f32.to_bits()),
            Const::F32((-1.0f32).to_bits()),
            Const::F32(0x7fc0_0000),
            Const::F32(0x8000_0000),
            Const::F32(1),
        ],
        Ty::F64 => vec![
            Const::F64(1e300f64.to_bits()),
            Const::F64((-1.0f64).to_bits()),
            Const::F64(0x7ff8_0000_0000_0000),
            Const::F64(0x8000_0000_0000_0000),
        ],
    }
}

/// Operations on constants only must stay run-time operations: as WGSL const-expressions,
/// `3u << 31u`, `u32::MAX + 1`, `3e38f * 10f` or `sqrt(-1f)` are shader-creation errors.
#[test]
fn all_constant_operands() {
    for ty in Ty::ALL {
        for x in nasty(ty) {
            for op in UnaryOp::ALL {
                if let Some(r) = op.result_ty(ty) {
                    let mut b = Kb::new("op", [1, 1, 1]);
                    let d = b.var(r, "d");
                    b.push(assign(d, un(op, ty, x)));
                    check(b.build(), true, Profile::Wgpu, &format!("{op:?}.{ty:?} on {x:?}"));
                }
            }
            for op in ConvertOp::ALL {
                for to in Ty::ALL {
                    if op.accepts(ty, to) {
                        let mut b = Kb::new("op", [1, 1, 1]);
                        let d = b.var(to, "d");
                        b.push(assign(d, conv(op, ty, to, x)));
                        check(b.build(), true, Profile::Wgpu, &format!("{op:?} {ty:?}->{to:?} on {x:?}"));
                    }
                }
            }
            for y in nasty(ty) {
                for op in BinaryOp::ALL {
                    let shift = matches!(op, BinaryOp::Shl | BinaryOp::ShrU | BinaryOp::ShrS);
                    let div = matches!(op, BinaryOp::DivU | BinaryOp::DivS | BinaryOp::RemU | BinaryOp::RemS);
                    if !op.accepts(ty) || shift || (div && y.bits() == 0) {
                        continue;
                    }
                    let mut b = Kb::new("op", [1, 1, 1]);
                    let d = b.var(ty, "d");
                    b.push(assign(d, bin(op, ty, x, y)));
                    check(b.build(), true, Profile::Wgpu, &format!("{op:?}.{ty:?} on {x:?}, {y:?}"));
                }
                for op in CmpOp::ALL {
                    if op.accepts(ty) {
                        let mut b = Kb::new("op", [1, 1, 1]);
                        let d = b.var(Ty::Bool, "d");
                        b.push(assign(d, cmp(op, ty, x, y)));
                        check(b.build(), true, Profile::Wgpu, &format!("{op:?}.{ty:?} on {x:?}, {y:?}"));
                    }
                }
                if ty.is_float() {
                    let mut b = Kb::new("op", [1, 1, 1]);
                    let d = b.var(ty, "d");
                    b.push(assign(d, Expr::Fma { ty, a: x.into(), b: y.into(), c: y.into() }));
                    b.push(assign(d, Expr::Select { ty, cond: cbool(true), a: x.into(), b: y.into() }));
                    check(b.build(), true, Profile::Wgpu, &format!("Fma/Select.{ty:?} on {x:?}, {y:?}"));
                }
            }
            if ty.is_int() {
                for op in [BinaryOp::Shl, BinaryOp::ShrU, BinaryOp::ShrS] {
                    let mut b = Kb::new("op", [1, 1, 1]);
                    let d = b.var(ty, "d");
                    b.push(assign(d, bin(op, ty, x, c32(ty.bits() - 1))));
                    check(b.build(), true, Profile::Wgpu, &format!("{op:?}.{ty:?} on {x:?}"));
                }
            }
        }
    }
}

#[test]
fn statically_broken_preconditions_are_invalid_ir() {
    for (op, ty, rhs) in [
        (BinaryOp::Shl, Ty::U32, c32(32)),
        (BinaryOp::ShrS, Ty::U64, c32(64)),
        (BinaryOp::DivU, Ty::U32, c32(0)),
        (BinaryOp::RemS, Ty::U64, c64(0)),
    ] {
        let mut b = Kb::new("op", [1, 1, 1]);
        let x = b.var(ty, "x");
        b.push(assign(x, bin(op, ty, x, rhs)));
        let r = emit(&module(vec![b.build()]), Profile::Wgpu);
        assert!(matches!(r, Err(EmitError::InvalidIr { .. })), "{op:?}: {r:?}");
    }
}
