//! Which parameter words the backends read without a bounds check
//! (`Kernel::direct_param_loads`): words in range for every launch whose values do not decide
//! a branch. A value that reaches a branch condition keeps the checked load (lavapipe
//! miscompiles grid-stride loops bounded by a constant-offset storage load).

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::ir::{Block, Expr, Kernel, Memory, Operand, Const, Stmt};
use ptxcross_lower::{abi, lower, LowerOptions};

fn kernel(ptx: &str) -> Kernel {
    let file = SourceFile::new("t.ptx".to_string(), ptx.to_string());
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    let options = LowerOptions { block: Some([64, 1, 1]), ..Default::default() };
    let module = lower(&ast, &file, &options).unwrap_or_else(|e| panic!("lower: {}", e[0].render(&file)));
    module.kernels.into_iter().next().unwrap()
}

/// (parameter word, read directly) for every parameter load of `b`.
fn loads(k: &Kernel, b: &Block, direct: &[bool], out: &mut Vec<(u32, bool)>) {
    for s in &b.stmts {
        match s {
            Stmt::Assign { dst, expr: Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(i)) } } => {
                out.push((*i, direct[dst.index()] && k.param_word_in_range(Operand::Const(Const::U32(*i)))))
            }
            Stmt::If { then_body, else_body, .. } => {
                loads(k, then_body, direct, out);
                loads(k, else_body, direct, out);
            }
            Stmt::Loop { body } => loads(k, body, direct, out),
            _ => {}
        }
    }
}

#[test]
fn words_that_decide_branches_keep_their_check() {
    // saxpy's shape: n decides the branch, a and the pointers do not.
    let k = kernel(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u32 n, .param .f32 a, .param .u64 x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [n];
    ld.param.f32 %f1, [a];
    ld.param.u64 %rd1, [x];
    mov.u32 %r2, %tid.x;
    setp.ge.s32 %p1, %r2, %r1;
    @%p1 bra DONE;
    mul.wide.s32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f2, [%rd3];
    mul.rn.f32 %f2, %f2, %f1;
    st.global.f32 [%rd3], %f2;
DONE:
    ret;
}
",
    );
    let direct = k.direct_param_loads();
    let mut out = Vec::new();
    loads(&k, &k.body, &direct, &mut out);
    let h = abi::PARAM_HEADER_WORDS;
    let word = |w: u32| out.iter().find(|(i, _)| *i == w).map(|(_, d)| *d);
    assert_eq!(word(h), Some(false), "n decides the branch: {out:?}");
    assert_eq!(word(h + 1), Some(true), "a: {out:?}");
    assert_eq!(word(h + 2), Some(true), "x (low word): {out:?}");
    assert_eq!(word(h + 3), Some(true), "x (high word): {out:?}");
}
