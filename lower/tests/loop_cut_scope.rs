//! Where `LowerOptions::detect_cut_loops` adds its check (`loop_cut.rs`): every kernel with a
//! loop gets it before each return and at its end; a kernel without loops gets none (the
//! driver's counter only counts back-edges, so nothing can be cut there, and the check's own
//! loop costs a short kernel a fifth of its time on lavapipe).

use ptxcross_lower::ir::{Block, Kernel, Stmt};
use ptxcross_lower::{abi, LowerOptions};

mod support;

fn kernel(ptx: &str) -> Kernel {
    support::lower_kernel_with(ptx, &LowerOptions { block: Some([32, 1, 1]), detect_cut_loops: true, ..Default::default() })
}

/// (loops, `Fault { FAULT_LOOP_CUT }` statements) in `b`.
fn count(b: &Block) -> (usize, usize) {
    let mut n = (0, 0);
    for s in &b.stmts {
        let add = |n: &mut (usize, usize), m: (usize, usize)| {
            n.0 += m.0;
            n.1 += m.1;
        };
        match s {
            Stmt::Loop { body } => {
                n.0 += 1;
                add(&mut n, count(body));
            }
            Stmt::If { then_body, else_body, .. } => {
                add(&mut n, count(then_body));
                add(&mut n, count(else_body));
            }
            Stmt::Switch { cases, default, .. } => {
                for c in cases {
                    add(&mut n, count(&c.body));
                }
                add(&mut n, count(default));
            }
            Stmt::Fault { code } if *code == abi::FAULT_LOOP_CUT => n.1 += 1,
            _ => {}
        }
    }
    n
}

const HEAD: &str = ".version 8.5\n.target sm_80\n.address_size 64\n";

#[test]
fn a_kernel_without_loops_gets_no_check() {
    let k = kernel(&format!(
        "{HEAD}.visible .entry k(.param .u64 p, .param .u32 n)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
DONE:
    ret;
}}
"
    ));
    assert_eq!(count(&k.body), (0, 0));
}

#[test]
fn a_kernel_with_a_loop_gets_the_check() {
    let k = kernel(&format!(
        "{HEAD}.visible .entry k(.param .u64 p, .param .u32 n)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
L:
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra L;
    st.global.u32 [%rd1], %r2;
    ret;
}}
"
    ));
    let (loops, checks) = count(&k.body);
    // The kernel's loop and at least one check (with its own loop).
    assert!(loops >= 2 && checks >= 1, "{loops} loops, {checks} checks");
}
