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

use crate::ir::{Block, Expr, Function, Kernel, Operand, Stmt, Ty, VarId, VarInfo};

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

/// Calls per function of `kernel`.
fn call_counts(kernel: &Kernel) -> Vec<usize> {
    if kernel.functions.is_empty() {
        // Nothing to count (most kernels): no walk over the body, three per kernel.
        return Vec::new();
    }
    fn walk(b: &Block, n: &mut [usize]) {
        for s in &b.stmts {
            if let Stmt::Assign { expr: Expr::Call { func, .. }, .. } = s {
                if let Some(c) = n.get_mut(*func as usize) {
                    *c += 1;
                }
            }
            for body in s.bodies() {
                walk(body, n);
            }
        }
    }
    let mut n = vec![0; kernel.functions.len()];
    walk(&kernel.body, &mut n);
    n
}

/// Puts the body of every function called only once back in place of its call (one use gains
/// nothing from a function, and pays its parameters and declarations), then drops the
/// functions nobody calls. The inlined statements are the function's, over new variables of
/// the kernel: the parameters are assigned the arguments, the call's variable the result.
pub(crate) fn inline_single_calls(kernel: &mut Kernel) {
    let counts = call_counts(kernel);
    if counts.contains(&1) {
        let mut body = std::mem::take(&mut kernel.body);
        inline_in(&mut body, kernel, &counts);
        kernel.body = body;
    }
    drop_uncalled(kernel);
}

fn inline_in(b: &mut Block, kernel: &mut Kernel, counts: &[usize]) {
    let stmts = std::mem::take(&mut b.stmts);
    for mut s in stmts {
        if let Stmt::Assign { dst, expr: Expr::Call { func, args, .. } } = &s {
            if let (Some(1), Some(f)) = (counts.get(*func as usize), kernel.functions.get(*func as usize)) {
                let base = kernel.vars.len() as u32;
                kernel.vars.extend(f.vars.iter().cloned());
                let shift = |v: VarId| Some(VarId(v.0 + base));
                for (p, a) in f.params.iter().zip(args) {
                    b.stmts.push(Stmt::Assign { dst: VarId(p.0 + base), expr: Expr::Use(*a) });
                }
                let mut inner = f.body.clone();
                let mut ok = true;
                remap(&mut inner, &shift, &mut ok);
                b.stmts.extend(inner.stmts);
                let result = match f.result {
                    Operand::Var(v) => Operand::Var(VarId(v.0 + base)),
                    c => c,
                };
                b.stmts.push(Stmt::Assign { dst: *dst, expr: Expr::Use(result) });
                continue;
            }
        }
        for body in s.bodies_mut() {
            inline_in(body, kernel, counts);
        }
        b.stmts.push(s);
    }
}

/// Drops the functions of `kernel` that nothing calls, renumbering the calls.
pub(crate) fn drop_uncalled(kernel: &mut Kernel) {
    let counts = call_counts(kernel);
    if !counts.contains(&0) {
        return;
    }
    let mut new_index = Vec::with_capacity(counts.len());
    let mut next = 0u32;
    for &c in &counts {
        new_index.push(next);
        if c > 0 {
            next += 1;
        }
    }
    fn renumber(b: &mut Block, new_index: &[u32]) {
        for s in &mut b.stmts {
            if let Stmt::Assign { expr: Expr::Call { func, .. }, .. } = s {
                *func = new_index[*func as usize];
            }
            for body in s.bodies_mut() {
                renumber(body, new_index);
            }
        }
    }
    renumber(&mut kernel.body, &new_index);
    let functions = std::mem::take(&mut kernel.functions);
    kernel.functions = functions.into_iter().zip(&counts).filter(|(_, &c)| c > 0).map(|(f, _)| f).collect();
}
