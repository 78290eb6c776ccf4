//! Which parameter words the backends read without a bounds check
//! (`Kernel::direct_param_loads`): words in range for every launch whose values do not decide
//! a branch inside a loop. Such a value keeps the checked load (lavapipe miscompiles
//! grid-stride loops bounded by a constant-offset storage load).

use ptxcross_lower::ir::{Block, Expr, Kernel, Memory, Operand, Const, Stmt};
use ptxcross_lower::abi;

mod support;

fn kernel(ptx: &str) -> Kernel {
    support::lower_kernel(ptx, [64, 1, 1])
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

fn direct_words(ptx: &str) -> Vec<(u32, bool)> {
    let k = kernel(ptx);
    let direct = k.direct_param_loads();
    let mut out = Vec::new();
    loads(&k, &k.body, &direct, &mut out);
    out
}

#[test]
fn words_outside_loops_are_direct() {
    // saxpy's shape: no loop, so n (which decides the branch), a and the pointer are direct.
    let out = direct_words(
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
    let h = abi::PARAM_HEADER_WORDS;
    for w in h..h + 4 {
        assert_eq!(out.iter().find(|(i, _)| *i == w).map(|(_, d)| *d), Some(true), "word {w}: {out:?}");
    }
}

#[test]
fn words_that_decide_a_branch_in_a_loop_keep_their_check() {
    // A grid-stride loop (histogram's shape): n bounds the loop, the pointer does not.
    let out = direct_words(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u64 x, .param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
L:
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    add.u32 %r2, %r2, 64;
    setp.lt.u32 %p2, %r2, %r1;
    @%p2 bra L;
DONE:
    ret;
}
",
    );
    let h = abi::PARAM_HEADER_WORDS;
    let word = |w: u32| out.iter().find(|(i, _)| *i == w).map(|(_, d)| *d);
    assert_eq!(word(h), Some(true), "x (low word): {out:?}");
    assert_eq!(word(h + 1), Some(true), "x (high word): {out:?}");
    assert_eq!(word(h + 2), Some(false), "n bounds the loop: {out:?}");
}

#[test]
fn a_loop_bound_passed_to_a_device_function_keeps_its_check() {
    // n reaches the callee's loop through its `.param` (local memory when inlined).
    let out = direct_words(
        ".version 8.5\n.target sm_80\n.address_size 64
.func f(.param .b64 p, .param .b32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.b64 %rd1, [p];
    ld.param.b32 %r1, [n];
    mov.u32 %r2, 0;
L:
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra L;
    ret;
}
.visible .entry k(.param .u64 x, .param .u32 n)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r1, [n];
    {
        .param .b64 a0;
        st.param.b64 [a0], %rd1;
        .param .b32 a1;
        st.param.b32 [a1], %r1;
        call.uni f, (a0, a1);
    }
    ret;
}
",
    );
    let h = abi::PARAM_HEADER_WORDS;
    let word = |w: u32| out.iter().find(|(i, _)| *i == w).map(|(_, d)| *d);
    assert_eq!(word(h + 2), Some(false), "n bounds the callee's loop: {out:?}");
}

/// A loop bounded by a parameter word that accesses no memory: `n` keeps the opaque load
/// (it decides the loop's exit), which records no fault (its index is in range for every
/// launch), so the kernel defers no fault at all and needs no end-of-thread flush.
const LOOP_ONLY: &str = ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [n+OFFSET];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
L:
    add.u32 %r2, %r2, 64;
    setp.lt.u32 %p2, %r2, %r1;
    @%p2 bra L;
DONE:
    ret;
}
";

#[test]
fn an_opaque_parameter_load_defers_no_fault() {
    let k = kernel(&LOOP_ONLY.replace("OFFSET", "0"));
    let out = direct_words(&LOOP_ONLY.replace("OFFSET", "0"));
    assert_eq!(out.iter().find(|(i, _)| *i == abi::PARAM_HEADER_WORDS).map(|(_, d)| *d), Some(false), "n bounds the loop: {out:?}");
    assert!(!k.defers_faults(), "the opaque load of n cannot fault");
    // A word past the parameter area keeps the checked load, and its fault.
    let k = kernel(&LOOP_ONLY.replace("OFFSET", "64"));
    assert!(k.defers_faults(), "a word past the area may fault");
}

#[test]
fn words_that_reach_a_loop_condition_only_through_floats_are_direct() {
    // mandelbrot's shape: the escape test compares floats computed from `c` (a float
    // parameter) and from the thread index; only `max_iter`, compared with the counter,
    // bounds the loop as the miscompile needs.
    let out = direct_words(
        ".version 8.5\n.target sm_80\n.address_size 64
.visible .entry k(.param .f32 c, .param .u32 max_iter, .param .u32 off)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    ld.param.f32 %f1, [c];
    ld.param.u32 %r1, [max_iter];
    ld.param.u32 %r4, [off];
    mov.u32 %r2, %tid.x;
    add.u32 %r5, %r2, %r4;
    cvt.rn.f32.u32 %f2, %r5;
    add.f32 %f2, %f2, %f1;
    mov.u32 %r3, 0;
L:
    mul.f32 %f2, %f2, %f2;
    setp.gt.f32 %p1, %f2, 0f40800000;
    @%p1 bra DONE;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, %r1;
    @%p2 bra L;
DONE:
    ret;
}
",
    );
    let h = abi::PARAM_HEADER_WORDS;
    let word = |w: u32| out.iter().find(|(i, _)| *i == w).map(|(_, d)| *d);
    assert_eq!(word(h), Some(true), "c reaches the escape test as a float: {out:?}");
    assert_eq!(word(h + 2), Some(true), "off reaches it through a conversion to float: {out:?}");
    assert_eq!(word(h + 1), Some(false), "max_iter bounds the counter: {out:?}");
}
