//! `%ctaid` and `%nctaid` of grids the host splits into several dispatches.
//!
//! A dispatch is capped per axis (`max_compute_workgroups_per_dimension`, 65,535 on many
//! devices, while CUDA's x reaches 2^31 - 1) and lavapipe counts its workgroups in 32 bits (a
//! 65,535³ grid ran 196,607 blocks). So the host may run one grid as several dispatches and
//! passes, per dispatch, the `%ctaid` of its first workgroup and the whole grid's size in the
//! parameter header (`abi::PARAM_CTA_BASE_WORD`, `abi::PARAM_GRID_SIZE_WORD`). This pass makes
//! the IR's builtins mean what PTX means:
//! `%ctaid.d = workgroup_id.d + base.d`, `%nctaid.d = grid.d`.

use crate::abi;
use crate::build::*;
use crate::ir::{BinaryOp, Block, Builtin, Expr, Kernel, Memory, Stmt, Ty, VarId, VarInfo};

pub fn resolve_grid_builtins(k: &mut Kernel) {
    let mut base = None;
    let mut body = std::mem::take(&mut k.body);
    rewrite(&mut body, &mut k.vars, &mut base);
    k.body = body;
}

fn rewrite(block: &mut Block, vars: &mut Vec<VarInfo>, base: &mut Option<VarId>) {
    if !block.stmts.iter().any(|s| matches!(s, Stmt::Assign { expr: Expr::Builtin(Builtin::CtaId(_)), .. })) {
        // Nothing here grows: rewritten in place, without rebuilding the block (in the same
        // order as below, so `base` is made at the same `%ctaid` read).
        for s in &mut block.stmts {
            match s {
                Stmt::Assign { dst, expr: Expr::Builtin(Builtin::NumCtas(d)) } => {
                    *s = assign(*dst, load(Memory::Param, c32(abi::PARAM_GRID_SIZE_WORD + *d as u32)));
                }
                _ => {
                    for body in s.bodies_mut() {
                        rewrite(body, vars, base);
                    }
                }
            }
        }
        return;
    }
    let stmts = std::mem::take(&mut block.stmts);
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::Assign { dst, expr: Expr::Builtin(Builtin::CtaId(d)) } => {
                let t = *base.get_or_insert_with(|| {
                    vars.push(VarInfo { ty: Ty::U32, name: "ctaid_base".into() });
                    VarId(vars.len() as u32 - 1)
                });
                out.push(assign(t, load(Memory::Param, c32(abi::PARAM_CTA_BASE_WORD + d as u32))));
                out.push(assign(dst, Expr::Builtin(Builtin::CtaId(d))));
                out.push(assign(dst, bin(BinaryOp::Add, Ty::U32, dst, t)));
            }
            Stmt::Assign { dst, expr: Expr::Builtin(Builtin::NumCtas(d)) } => {
                out.push(assign(dst, load(Memory::Param, c32(abi::PARAM_GRID_SIZE_WORD + d as u32))));
            }
            Stmt::If { cond, mut then_body, mut else_body } => {
                rewrite(&mut then_body, vars, base);
                rewrite(&mut else_body, vars, base);
                out.push(Stmt::If { cond, then_body, else_body });
            }
            Stmt::Loop { mut body } => {
                rewrite(&mut body, vars, base);
                out.push(Stmt::Loop { body });
            }
            Stmt::Switch { selector, mut cases, mut default } => {
                cases.iter_mut().for_each(|c| rewrite(&mut c.body, vars, base));
                rewrite(&mut default, vars, base);
                out.push(Stmt::Switch { selector, cases, default });
            }
            other => out.push(other),
        }
    }
    block.stmts = out;
}
