//! 64-bit shifts left by 31 (and multiplies by 2^31) reach the driver with the constant hidden
//! (`narrowed_shifts`: NVIDIA's Vulkan driver narrows `(i64)(i32)x << 31` to a signed
//! multiply by a 32-bit 1 << 31, which is −2^31); other shifts keep their constant.

use ptxcross_lower::ir::{BinaryOp, Const, Expr, Operand, Stmt, Ty};

mod support;

/// Per 64-bit shl/mul of the kernel lowered from `body`: (op, the constant operand if any).
fn wide_ops(body: &str) -> Vec<(BinaryOp, Option<u64>)> {
    let ptx = format!(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 p)
{{
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    cvt.s64.s32 %rd2, %r1;
{body}
    st.global.u64 [%rd1], %rd3;
    ret;
}}"
    );
    let k = support::lower_kernel(&ptx, [32, 1, 1]);
    let mut out = Vec::new();
    support::for_each_stmt(&k.body, &mut |s| {
        if let Stmt::Assign { expr: Expr::Binary { op: op @ (BinaryOp::Shl | BinaryOp::Mul), ty: Ty::U64, lhs, rhs }, .. } = s {
            let c = [lhs, rhs].into_iter().find_map(|o| match o {
                Operand::Const(Const::U32(c)) => Some(*c as u64),
                Operand::Const(Const::U64(c)) => Some(*c),
                _ => None,
            });
            out.push((*op, c));
        }
    });
    out
}

#[test]
fn shifts_by_31_and_multiplies_by_2_pow_31_hide_their_constant() {
    // The kernel's own address arithmetic has 64-bit shifts too: look for the one in question.
    let shl31 = wide_ops("    shl.b64 %rd3, %rd2, 31;");
    assert!(!shl31.contains(&(BinaryOp::Shl, Some(31))) && shl31.contains(&(BinaryOp::Shl, None)), "{shl31:?}");
    let mul = wide_ops("    mul.lo.s64 %rd3, %rd2, 2147483648;");
    assert!(!mul.contains(&(BinaryOp::Mul, Some(1 << 31))) && mul.contains(&(BinaryOp::Mul, None)), "{mul:?}");
    // Other amounts and factors stay constants (nothing known to misread them).
    assert!(wide_ops("    shl.b64 %rd3, %rd2, 30;").contains(&(BinaryOp::Shl, Some(30))));
    assert!(wide_ops("    mul.lo.s64 %rd3, %rd2, 2147483647;").contains(&(BinaryOp::Mul, Some(2147483647))));
}
