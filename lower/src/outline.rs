//! Long instruction expansions as functions of the kernel (issue 11: code size): `FnLower::outlined`
//! builds an expansion once, into statements of its own, and this module turns them into an
//! `ir::Function` that every use calls (`Expr::Call`), and runs the last passes of a kernel on
//! its functions too.
//!
//! Why it is exact: a function's body is the statements the expansion emitted inline, over
//! variables of its own; the call gives the result those statements compute from the
//! arguments. Nothing else of the kernel is read (checked: `Function::is_well_formed`), so
//! where the statements run does not matter. The driver-facing passes that see float
//! operations (`misread_constants`, and `flush_sim` in tests) run on every function as on a
//! kernel of its own; a parameter has no assignment there, so they treat it as a value the
//! driver might know anything of (their conservative case), and a constant argument is not a
//! parameter but part of the function (`FnLower::outlined` keys functions by it), so they see
//! it where it is used, as in inlined code.

use crate::ir::{Block, Function, Kernel, Operand, Stmt, Ty, VarId, VarInfo};

/// The function made of `stmts` over the variables from `mark` on (`vars`, renumbered from
/// 0), or `None` if the statements read a variable below `mark` or are not of a function's
/// shape.
pub(crate) fn function(
    name: String,
    vars: Vec<VarInfo>,
    mark: u32,
    params: Vec<VarId>,
    stmts: Vec<Stmt>,
    result: Operand,
    result_ty: Ty,
) -> Option<Function> {
    let map = |v: VarId| -> Option<VarId> { v.0.checked_sub(mark).filter(|&i| (i as usize) < vars.len()).map(VarId) };
    let mut ok = true;
    let mut body = Block { stmts };
    remap(&mut body, &map, &mut ok);
    let params: Option<Vec<VarId>> = params.into_iter().map(map).collect();
    let result = match result {
        Operand::Var(v) => Operand::Var(map(v)?),
        c => c,
    };
    let f = Function { name, vars, params: params?, body, result, result_ty };
    (ok && f.is_well_formed()).then_some(f)
}

fn remap(b: &mut Block, map: &impl Fn(VarId) -> Option<VarId>, ok: &mut bool) {
    for s in &mut b.stmts {
        crate::ir::stmt_operands_mut(s, |o| {
            if let Operand::Var(v) = o {
                match map(*v) {
                    Some(n) => *v = n,
                    None => *ok = false,
                }
            }
        });
        if let Stmt::Assign { dst, .. } = s {
            match map(*dst) {
                Some(n) => *dst = n,
                None => *ok = false,
            }
        }
        for body in s.bodies_mut() {
            remap(body, map, ok);
        }
    }
}

/// Runs `pass` on each function of `kernel` as on a kernel of its own (its variables and body;
/// the pass may add variables, never renumber them).
pub(crate) fn for_each_function(kernel: &mut Kernel, mut pass: impl FnMut(&mut Kernel)) {
    for f in &mut kernel.functions {
        let mut k = f.as_kernel(&f.name);
        pass(&mut k);
        f.vars = k.vars;
        f.body = k.body;
    }
}
