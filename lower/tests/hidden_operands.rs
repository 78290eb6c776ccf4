//! Which float operands `lower` hides from the driver's value analysis
//! (`misread_constants`: an XOR with a run-time zero; `ptxcross_lower::hidden_vars` names the
//! results): every operand the driver could know — integer results (`x - x`, `x & 0`),
//! conversions, constants ±0/±inf/NaN, values an equality test reads — and no operand that
//! is a load or the result of another float op. Stored words the driver could know are
//! hidden too (so loads it forwards stay unknown), but only in kernels with float ops.

use ptxcross_lower::ir::{BinaryOp, Expr, Kernel, Memory, Operand, Stmt};
use ptxcross_lower::hidden_vars;

mod support;

fn kernel(body: &str) -> Kernel {
    let ptx = format!(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 p)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .f32 %f<16>;
    .reg .b64 %rd<8>;
    .reg .f64 %fd<16>;
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    ld.global.u32 %r2, [%rd1+4];
    ld.global.f32 %f1, [%rd1+8];
    ld.global.f32 %f2, [%rd1+12];
    ld.global.f64 %fd1, [%rd1+24];
    mov.f64 %fd9, %fd1;
{body}
    st.global.f32 [%rd1+16], %f9;
    st.global.f64 [%rd1+32], %fd9;
    ret;
}}"
    );
    support::lower_kernel(&ptx, [64, 1, 1])
}

/// Per float op of the kernel, in order: its name and, per operand, whether it is hidden
/// ('h'), a plain variable ('v') or a plain constant ('c').
fn float_ops(body: &str) -> Vec<String> {
    let k = kernel(body);
    let hidden = hidden_vars(&k);
    let show = |o: &Operand| match o {
        Operand::Var(v) if hidden[v.index()] => 'h',
        Operand::Var(_) => 'v',
        Operand::Const(_) => 'c',
    };
    let mut out = Vec::new();
    support::for_each_stmt(&k.body, &mut |s| {
        if let Stmt::Assign { expr, .. } = s {
            match expr {
                Expr::Binary { op: op @ (BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FMin | BinaryOp::FMax), lhs, rhs, .. } => {
                    out.push(format!("{op:?} {}{}", show(lhs), show(rhs)))
                }
                Expr::Fma { a, b, c, .. } => out.push(format!("Fma {}{}{}", show(a), show(b), show(c))),
                _ => {}
            }
        }
    });
    out
}

/// Per heap store of the kernel: whether the stored word is hidden.
fn heap_stores_hidden(body: &str) -> Vec<bool> {
    let k = kernel(body);
    let hidden = hidden_vars(&k);
    let mut out = Vec::new();
    support::for_each_stmt(&k.body, &mut |s| {
        if let Stmt::StoreWord { memory: Memory::Heap, value, .. } = s {
            out.push(matches!(value, Operand::Var(v) if hidden[v.index()]));
        }
    });
    out
}

#[test]
fn integer_results_reach_float_ops_hidden() {
    // The differential cases' shapes: x - x, x & 0 (lower folds neither).
    assert_eq!(float_ops("    sub.u32 %r3, %r1, %r1;\n    mov.b32 %f3, %r3;\n    add.rn.f32 %f9, %f1, %f3;"), ["FAdd vh"]);
    assert_eq!(float_ops("    and.b32 %r3, %r1, 0;\n    mov.b32 %f3, %r3;\n    mul.rn.f32 %f9, %f3, %f1;"), ["FMul hv"]);
    // Any integer result, even one the driver cannot know: the rule is not a list of patterns.
    assert_eq!(float_ops("    add.u32 %r3, %r1, %r2;\n    mov.b32 %f3, %r3;\n    sub.rn.f32 %f9, %f1, %f3;"), ["FSub vh"]);
}

#[test]
fn conversions_and_selects_reach_float_ops_hidden() {
    let last = |body: &str| float_ops(body).pop().unwrap();
    assert_eq!(last("    cvt.rn.f64.u32 %fd3, %r1;\n    add.rn.f64 %fd9, %fd1, %fd3;"), "FAdd vh");
    assert_eq!(last("    setp.lt.u32 %p1, %r1, %r2;\n    selp.f32 %f3, %f1, 0f00000000, %p1;\n    add.rn.f32 %f9, %f2, %f3;"), "FAdd vh");
    // cvt.rn.f32.u32 is built from float ops of hidden parts: its result is such a result.
    assert_eq!(last("    cvt.rn.f32.u32 %f3, %r1;\n    add.rn.f32 %f9, %f1, %f3;"), "FAdd vv");
}

#[test]
fn loads_and_float_results_stay_plain() {
    assert_eq!(float_ops("    add.rn.f32 %f9, %f1, %f2;"), ["FAdd vv"]);
    // A product feeding a sum: the product is one NoContraction op of unknown operands.
    assert_eq!(float_ops("    mul.rn.f32 %f3, %f1, %f2;\n    add.rn.f32 %f9, %f3, %f1;"), ["FMul vv", "FAdd vv"]);
    // Copies of them too. Negations and absolute values give NVIDIA's NaN by a select (f32:
    // the canonical NaN, a constant; f64: the input quieted), a value the driver may fold
    // into: hidden.
    assert_eq!(float_ops("    neg.f64 %fd3, %fd1;\n    abs.f64 %fd4, %fd1;\n    mul.rn.f64 %fd9, %fd3, %fd4;"), ["FMul hh"]);
    assert_eq!(float_ops("    neg.f32 %f3, %f1;\n    add.rn.f32 %f9, %f3, %f2;"), ["FAdd hv"]);
    // f32 ↔ f64 conversions of them (one rounding, exact when widening).
    assert_eq!(float_ops("    cvt.f64.f32 %fd3, %f1;\n    mul.rn.f64 %fd9, %fd3, %fd1;"), ["FMul vv"]);
}

#[test]
fn an_accumulator_set_to_a_constant_is_hidden_where_set() {
    // sum = 0; loop { sum += x } : the 0 is hidden once, before the loop, not in it.
    let ops = float_ops(
        "    mov.f32 %f9, 0f00000000;\n    mov.u32 %r3, 0;\nLOOP:\n    add.rn.f32 %f9, %f9, %f1;\n    add.u32 %r3, %r3, 1;\n    setp.lt.u32 %p1, %r3, %r1;\n    @%p1 bra LOOP;",
    );
    assert_eq!(ops, ["FAdd vv"]);
    let k = kernel("    mov.f32 %f9, 0f00000000;\n    mov.u32 %r3, 0;\nLOOP:\n    add.rn.f32 %f9, %f9, %f1;\n    add.u32 %r3, %r3, 1;\n    setp.lt.u32 %p1, %r3, %r1;\n    @%p1 bra LOOP;");
    let hidden = hidden_vars(&k);
    let f9_set_hidden = k.body.stmts.iter().any(|s| matches!(s, Stmt::Assign { expr: Expr::Use(Operand::Var(v)), .. } if hidden[v.index()]));
    assert!(f9_set_hidden, "the accumulator's constant is set hidden before the loop");
}

#[test]
fn constants_are_hidden_only_where_special() {
    assert_eq!(float_ops("    mul.rn.f32 %f9, %f1, 0f40000000;"), ["FMul vc"]);
    assert_eq!(float_ops("    add.rn.f32 %f9, %f1, 0f80000000;"), ["FAdd vh"]);
    assert_eq!(float_ops("    mul.rn.f32 %f9, %f1, 0f7F800000;"), ["FMul vh"]);
}

#[test]
fn the_same_value_on_both_sides_of_sub_add_div_is_hidden() {
    assert_eq!(float_ops("    sub.rn.f32 %f9, %f1, %f1;"), ["FSub hh"]);
    // `-x` is a select (NVIDIA's NaN rule) and hidden: the driver cannot relate the sides.
    assert_eq!(float_ops("    neg.f64 %fd3, %fd1;\n    add.rn.f64 %fd9, %fd1, %fd3;"), ["FAdd vh"]);
    // x * x and min(x, x) are exact whatever x is.
    assert_eq!(float_ops("    mul.rn.f32 %f9, %f1, %f1;"), ["FMul vv"]);
}

#[test]
fn values_an_equality_test_reads_are_hidden() {
    // Where the test holds, the driver knows the value (a dominating branch, a select).
    assert_eq!(
        float_ops("    mov.b32 %r3, %f1;\n    setp.eq.u32 %p1, %r3, 0;\n    @%p1 add.rn.f32 %f2, %f2, %f1;\n    mov.f32 %f9, %f2;"),
        ["FAdd vh"]
    );
    // The result of a float op too.
    assert_eq!(
        float_ops("    mul.rn.f32 %f3, %f1, %f2;\n    setp.eq.f32 %p1, %f3, 0f3F800000;\n    @%p1 add.rn.f32 %f2, %f2, %f3;\n    mov.f32 %f9, %f2;"),
        ["FMul vv", "FAdd vh"]
    );
}

#[test]
fn stores_of_values_the_driver_could_know_are_hidden() {
    // The heap stores: the int result, then the frame's f32 (a float op's result) and f64 (a
    // loaded value, in two halves).
    let hidden = heap_stores_hidden("    sub.u32 %r3, %r1, %r1;\n    st.global.u32 [%rd1+20], %r3;\n    add.rn.f32 %f9, %f1, %f2;");
    assert_eq!(hidden, [true, false, false, false]);
    // Kernels without float ops are left alone.
    let ptx_int = "    sub.u32 %r3, %r1, %r1;\n    st.global.u32 [%rd1+20], %r3;\n    mov.b32 %f9, %r2;";
    assert_eq!(heap_stores_hidden(ptx_int), [false, false, false, false]);
    assert!(float_ops(ptx_int).is_empty());
}

/// The zero variable a hidden operand was XOR-ed with.
fn zero_of(k: &Kernel, o: Operand) -> Option<u32> {
    let Operand::Var(v) = o else { return None };
    let mut found = None;
    support::for_each_stmt(&k.body, &mut |s| {
        if let Stmt::Assign { dst, expr } = s {
            if *dst == v {
                found = match *expr {
                    Expr::Binary { op: BinaryOp::Xor, rhs: Operand::Var(z), .. } => Some(z.0),
                    Expr::Convert { arg, .. } => zero_of(k, arg),
                    _ => None,
                };
            }
        }
    });
    found
}

#[test]
fn a_value_hidden_where_defined_is_hidden_again_with_another_zero() {
    // Float fuzzer, seed 0xf10e0020: the select's −0.0 is hidden, and the select's result is
    // hidden again at the mul; with the same zero, `select(c, k ^ z, x) ^ z` is
    // `select(c, k, x ^ z)` to the driver, and −0.0 reached the mul as a known constant.
    let k = kernel("    setp.lt.u32 %p1, %r1, %r2;\n    selp.f32 %f3, 0f80000000, %f1, %p1;\n    mul.rn.f32 %f9, %f3, %f2;");
    let mut sel: Option<u32> = None;
    let mut mul = None;
    support::for_each_stmt(&k.body, &mut |s| match s {
        // The select whose constant operand was hidden.
        Stmt::Assign { expr: Expr::Select { a, b, .. }, .. } => {
            if let Some(z) = zero_of(&k, *a).or_else(|| zero_of(&k, *b)) {
                sel = Some(z);
            }
        }
        Stmt::Assign { expr: Expr::Binary { op: BinaryOp::FMul, lhs, .. }, .. } => mul = Some(*lhs),
        _ => {}
    });
    let (zs, zm) = (sel, zero_of(&k, mul.unwrap()));
    assert!(zs.is_some() && zm.is_some(), "both hidden: {zs:?} {zm:?}");
    assert_ne!(zs, zm);
}

#[test]
fn a_switch_selector_leaves_its_loop_with_a_zero_of_its_own() {
    // Differential case seed-000000005a12045c (lavapipe, SPIR-V): the structurizer's exit
    // selector left the loop as `0 + z` at every `break` the driver kept (the fourth is dead:
    // `@%p3 bra D; @!%p3 bra C`), so `switch (0 + z)` taught it `z = 0` in case 0, where the
    // select's −1.0 was hidden with the same `z`: `select(p, -1.0, 0)` became `-b2f(p)`.
    let k = kernel(
        "    and.b32 %r9, %r1, 1;\n    setp.ne.u32 %p0, %r9, 0;\n    and.b32 %r9, %r1, 8;\n    setp.ne.u32 %p3, %r9, 0;
    shr.u32 %r13, %r1, 4;\n    and.b32 %r13, %r13, 3;
L:\n    setp.eq.u32 %p1, %r13, 0;\n    @%p1 bra D;\n    @%p3 bra D;\n    @!%p3 bra C;\n    st.global.u32 [%rd1+40], %r2;\n    ret;
C:\n    sub.u32 %r13, %r13, 1;\n    bra L;
D:\n    selp.u32 %r11, 0xbf800000, 0, %p0;\n    st.global.u32 [%rd1+44], %r11;",
    );
    let mut selectors = Vec::new();
    support::for_each_stmt(&k.body, &mut |s| {
        if let Stmt::Switch { selector: Operand::Var(v), .. } = s {
            selectors.push(*v);
        }
    });
    assert!(!selectors.is_empty(), "the loop's exits are a switch");
    // The zeros added to a selector where it leaves the loop, and the select's zero.
    let (mut exit_zeros, mut select_zeros) = (Vec::new(), Vec::new());
    support::for_each_stmt(&k.body, &mut |s| match s {
        Stmt::Assign { expr: Expr::Binary { op: BinaryOp::Add, lhs: Operand::Var(d), rhs: Operand::Var(z), .. }, .. }
            if selectors.contains(d) =>
        {
            exit_zeros.push(z.0)
        }
        Stmt::Assign { expr: Expr::Select { a, b, .. }, .. } => select_zeros.extend(zero_of(&k, *a).or_else(|| zero_of(&k, *b))),
        _ => {}
    });
    assert!(!exit_zeros.is_empty() && !select_zeros.is_empty(), "both hidden: {exit_zeros:?} {select_zeros:?}");
    assert!(exit_zeros.iter().all(|z| !select_zeros.contains(z)), "{exit_zeros:?} {select_zeros:?}");
}
