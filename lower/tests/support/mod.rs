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
