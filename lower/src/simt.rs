//! SIMT check: Vulkan and WGSL require every invocation of a workgroup to reach the same
//! barrier, while PTX code may branch around `bar.sync` per thread. This pass finds the blocks
//! that run under thread-dependent (divergent) control and rejects barriers there, so no
//! emitted barrier can be skipped by some threads.
//!
//! Divergence analysis on the CFG: a variable is divergent when computed from a thread-
//! dependent source (`%tid`, loads from memory, atomics) or from a divergent variable, or when
//! assigned under divergent control. A branch on a divergent value makes every block between
//! it and its immediate post-dominator divergent (an early `ret` has no post-dominator but the
//! exit, so everything after it becomes divergent). Iterated to a fixed point.

use crate::cfg::{Cfg, NodeId, Terminator};
use crate::function::unsupported;
use crate::ir::{Builtin, Expr, Memory, Operand, Stmt, VarInfo};
use ptxcross_frontend::ast::Span;
use ptxcross_frontend::Diagnostic;

pub fn check_barriers(cfg: &Cfg, vars: &[VarInfo], barriers: &[(NodeId, Span)]) -> Result<(), Diagnostic> {
    if barriers.is_empty() {
        return Ok(());
    }
    let n = cfg.blocks.len();
    let ipdom = cfg.immediate_post_dominators();
    let mut var_div = vec![false; vars.len()];
    let mut block_div = vec![false; n];
    loop {
        let mut changed = false;
        for b in 0..n {
            let d = block_div[b];
            changed |= mark_stmts(&cfg.blocks[b].stmts, d, &mut var_div);
        }
        for b in 0..n {
            let cond = match &cfg.blocks[b].term {
                Terminator::Branch { cond, .. } => *cond,
                Terminator::Switch { selector, .. } => *selector,
                _ => continue,
            };
            let divergent_cond = match cond {
                Operand::Var(v) => var_div[v.index()],
                Operand::Const(_) => false,
            };
            if !(divergent_cond || block_div[b]) {
                continue;
            }
            // Everything between the branch and its join runs for some threads only.
            let stop = ipdom[b];
            let mut stack = cfg.blocks[b].term.successors();
            let mut seen = vec![false; n];
            while let Some(s) = stack.pop() {
                if Some(s) == stop || seen[s] {
                    continue;
                }
                seen[s] = true;
                if !block_div[s] {
                    block_div[s] = true;
                    changed = true;
                }
                stack.extend(cfg.blocks[s].term.successors());
            }
        }
        if !changed {
            break;
        }
    }
    for &(b, span) in barriers {
        if block_div[b] {
            return Err(unsupported(
                "a barrier under thread-dependent control flow (some threads of the CTA could skip it, \
                 e.g. after a per-thread `ret` or inside a per-thread branch or loop)",
                span,
            ));
        }
    }
    Ok(())
}

/// Marks variables assigned in `stmts`; returns whether anything changed.
fn mark_stmts(stmts: &[Stmt], divergent_ctx: bool, var_div: &mut [bool]) -> bool {
    let mut changed = false;
    for s in stmts {
        match s {
            Stmt::Assign { dst, expr } => {
                if !var_div[dst.index()] && (divergent_ctx || expr_divergent(expr, var_div)) {
                    var_div[dst.index()] = true;
                    changed = true;
                }
            }
            Stmt::If { cond, then_body, else_body } => {
                let d = divergent_ctx || matches!(cond, Operand::Var(v) if var_div[v.index()]);
                changed |= mark_stmts(&then_body.stmts, d, var_div);
                changed |= mark_stmts(&else_body.stmts, d, var_div);
            }
            Stmt::Loop { body } => changed |= mark_stmts(&body.stmts, true, var_div),
            _ => {}
        }
    }
    changed
}

fn expr_divergent(e: &Expr, var_div: &[bool]) -> bool {
    let op = |o: &Operand| matches!(o, Operand::Var(v) if var_div[v.index()]);
    match e {
        Expr::Use(a) => op(a),
        Expr::Unary { arg, .. } => op(arg),
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => op(lhs) || op(rhs),
        Expr::Fma { a, b, c, .. } => op(a) || op(b) || op(c),
        Expr::Select { cond, a, b, .. } => op(cond) || op(a) || op(b),
        Expr::Convert { arg, .. } => op(arg),
        Expr::Builtin(Builtin::ThreadId(_)) => true,
        Expr::Builtin(_) => false,
        Expr::LoadWord { memory: Memory::Param, index } => op(index),
        Expr::LoadWord { .. } | Expr::AtomicWord { .. } => true,
    }
}
