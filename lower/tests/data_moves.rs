//! Data moves (`mov`, `selp`, `slct`) of `.f32`/`.f64` values copy bits (ISA 8.5 §9.7.9.1
//! `mov`, §9.7.8.2 `selp`, §9.7.8.3 `slct`): a signaling NaN stays signaling. They are lowered
//! on the bits, with no float-typed select or float constant a driver could quiet: NVIDIA's
//! Vulkan driver (H200, driver 580) turned `selp.f32 d, a, 0fFF800001, p` into 0xffc00001 on
//! the SPIR-V path while lavapipe kept the bits (fuzz seed 0x4e560131, kept as
//! tests/differential/regressions/float-nvidia-snan-selp). This test checks the lowering's
//! shape, which lavapipe alone cannot show. A signaling NaN held in an `.f32` register and then
//! selected was still quieted there (probe tests/nvidia/probes/snan_moves): such constants
//! reach the driver only as bits XOR a zero it cannot know
//! (`misread_constants::hide_signaling_nans`; not yet run on NVIDIA).
//!   cargo test -p ptxcross-lower --test data_moves

use ptxcross_lower::ir::{Block, Const, ConvertOp, Expr, Operand, Stmt, Ty};

mod support;

fn body(lines: &str) -> Block {
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
    ld.global.f32 %f1, [%rd1+8];
    ld.global.f64 %fd1, [%rd1+24];
    setp.ne.u32 %p1, %r1, 0;
{lines}
    st.global.v4.u32 [%rd1+32], {{%r2, %r3, %r4, %r5}};
    st.global.v2.f32 [%rd1+48], {{%f2, %f3}};
    st.global.v2.f64 [%rd1+64], {{%fd2, %fd3}};
    st.global.v2.u64 [%rd1+80], {{%rd2, %rd3}};
    ret;
}}"
    );
    lower_file(ptx)
}

fn lower_file(ptx: String) -> Block {
    support::lower_kernel(&ptx, [32, 1, 1]).body
}

/// Every float-typed select and every float constant with a NaN's bits, anywhere in `b`.
fn float_moves(b: &Block, out: &mut Vec<String>) {
    let nan_const = |o: &Operand| match o {
        Operand::Const(Const::F32(x)) => (x & 0x7fff_ffff) > 0x7f80_0000,
        Operand::Const(Const::F64(x)) => (x & !(1u64 << 63)) > 0x7ff0_0000_0000_0000,
        _ => false,
    };
    for s in &b.stmts {
        if let Stmt::Assign { expr, .. } = s {
            match expr {
                Expr::Select { ty: Ty::F32 | Ty::F64, .. } => out.push(format!("{expr:?}")),
                e if { let mut n = false; e.for_each_operand(|o| n |= nan_const(&o)); n } => out.push(format!("{expr:?}")),
                // A NaN's bits as an integer constant, bitcast to a float: the driver folds it
                // to a float constant (`misread_constants::hide_signaling_nans` hides them).
                Expr::Convert { op: ConvertOp::Bitcast, to: Ty::F32, arg: Operand::Const(Const::U32(x)), .. }
                    if (x & 0x7fff_ffff) > 0x7f80_0000 =>
                {
                    out.push(format!("{expr:?}"))
                }
                Expr::Convert { op: ConvertOp::Bitcast, to: Ty::F64, arg: Operand::Const(Const::U64(x)), .. }
                    if (x & !(1u64 << 63)) > 0x7ff0_0000_0000_0000 =>
                {
                    out.push(format!("{expr:?}"))
                }
                _ => {}
            }
        }
        for inner in s.bodies() {
            float_moves(inner, out);
        }
    }
}

#[test]
fn float_data_moves_are_bit_moves() {
    for lines in [
        // The fuzz case: a float select of a signaling-NaN immediate into a .b32 register.
        "selp.f32 %r2, %r1, 0fFF800001, %p1;",
        "selp.f32 %f2, %f1, 0f7F800001, %p1;",
        "selp.f64 %fd2, %fd1, 0dFFF0000000000001, %p1;",
        "selp.f64 %rd2, %rd1, 0d7FF0000000000001, %p1;",
        "mov.f32 %r3, 0fFF800001;",
        "mov.f32 %f3, 0f7F800001;",
        "mov.f64 %fd3, 0d7FF0000000000001;",
        "mov.f64 %rd3, 0dFFF0000000000001;",
        "mov.b32 %r4, 0fFF800001;",
        "slct.f32.s32 %r4, %r1, 0fFF800001, %r1;",
        "slct.f64.f32 %fd2, %fd1, 0dFFF0000000000001, %f1;",
        "mov.v2.f32 {%f2, %f3}, {0fFF800001, %f1};",
    ] {
        let mut found = Vec::new();
        float_moves(&body(lines), &mut found);
        assert!(found.is_empty(), "`{lines}`: float-typed data moves left: {found:?}");
    }
}

/// The NVIDIA probe's kernel: constants in `.f32`/`.f64` registers that float code keeps as
/// variables, selected and stored.
#[test]
fn signaling_nan_constants_in_float_registers_are_hidden() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/nvidia/probes/snan_moves.ptx");
    let mut found = Vec::new();
    float_moves(&lower_file(std::fs::read_to_string(&path).unwrap()), &mut found);
    assert!(found.is_empty(), "signaling-NaN constants the driver can see: {found:?}");
}
