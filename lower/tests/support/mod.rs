//! What the `lower` integration tests share: PTX text lowered to IR, failing with the rendered
//! diagnostic (file:line:col) when parsing or lowering refuses it, and a walk over statements.
//! Each test file is its own crate and uses part of this, so unused items are allowed.
#![allow(dead_code)]

use ptxcross_frontend::{parse, SourceFile};
use ptxcross_lower::ir::{Block, Kernel, Module, Stmt};
use ptxcross_lower::{lower, LowerOptions};

/// The module `lower` makes of `ptx` (named `t.ptx` in diagnostics).
pub fn lower_module(ptx: &str, options: &LowerOptions) -> Module {
    let file = SourceFile::new("t.ptx".to_string(), ptx.to_string());
    let ast = parse(&file).unwrap_or_else(|e| panic!("parse: {}", e[0].render(&file)));
    lower(&ast, &file, options).unwrap_or_else(|e| panic!("lower: {}", e[0].render(&file)))
}

/// The first kernel of `ptx`, lowered for `block` with the other options at their defaults.
pub fn lower_kernel(ptx: &str, block: [u32; 3]) -> Kernel {
    lower_kernel_with(ptx, &LowerOptions { block: Some(block), ..Default::default() })
}

/// The first kernel of `ptx`, lowered with `options`.
pub fn lower_kernel_with(ptx: &str, options: &LowerOptions) -> Kernel {
    lower_module(ptx, options).kernels.into_iter().next().expect("the PTX has a kernel")
}

/// Calls `f` on every statement of `b`, nested ones included, each before those inside it.
pub fn for_each_stmt(b: &Block, f: &mut impl FnMut(&Stmt)) {
    for s in &b.stmts {
        f(s);
        for body in s.bodies() {
            for_each_stmt(body, f);
        }
    }
}

/// For the meeting proof's tests: the meeting checks the first kernel of `ptx` keeps with
/// `Meeting::Check` (what the proof decides), and whether it runs in the CTA barrier scheduler
/// by default, block 64, emulated and native warps alike.
pub fn meeting_decided(ptx: &str) -> [(usize, bool); 2] {
    use ptxcross_lower::{abi, Meeting};
    [false, true].map(|native_warps| {
        let count = |meeting, code| {
            let k = lower_kernel_with(ptx, &LowerOptions { block: Some([64, 1, 1]), native_warps, meeting, ..Default::default() });
            let mut n = 0;
            for_each_stmt(&k.body, &mut |s| n += usize::from(matches!(s, Stmt::Fault { code: c } if *c == code)));
            n
        };
        (count(Meeting::Check, abi::FAULT_WARP_DIVERGED), count(Meeting::Meet, abi::FAULT_BARRIER_DEADLOCK) > 0)
    })
}
