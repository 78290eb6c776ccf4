//! Loops whose values are read after they end get a second, never-taken exit that no shader
//! compiler can see through.
//!
//! Why: Mesa 22's lavapipe (llvmpipe's NIR → LLVM path; Debian 12) runs a loop for all lanes of
//! its SIMD group until the slowest one leaves, masking only writes to NIR *registers* — what
//! phis at loop exits become. A value defined in the body and read after a loop that has one
//! exit (after mem2reg, an SSA value with no exit phi: the phi of a single-predecessor block is
//! trivial) is recomputed, unmasked, in the extra iterations, so an invocation that left early
//! reads its value from the slower ones' iterations (issue 6 §1). Newer Mesa converts to LCSSA
//! first. A second exit gives the block after the loop two predecessors with different values
//! on each (the header's value at the guard, the body's at the real exit), so a real phi — a
//! masked register — carries the value out. naga's own SPIR-V escapes the bug the same way
//! (its loop-bounding break). (This account of Mesa's internals is inferred from the issue's
//! analysis and the experiments below, not traced in Mesa's source.)
//!
//! The guard is `if zero > k { break }` at the top of the body of loop `k` (each loop its own
//! comparison, see `insert_guards`), where `zero` is the parameter header's
//! [`abi::PARAM_ZERO_WORD`], read once at the kernel's start: the host always writes 0 there,
//! and no compiler can know it. It is added only to loops that assign a variable which
//! is live after the loop (backward liveness over the structured IR), so most inner loops of
//! numeric kernels that only update memory stay as they are.
//!
//! Alternatives measured on lavapipe (`tests/tests/loop_exits.rs`):
//! - an LCSSA-like copy of every live-out variable into a fresh variable at each `break` (read
//!   back after the loop) does *not* fix the bug: with one exit the copy folds away again in
//!   NIR (same SSA value, trivial phi); three of the four regression kernels still failed on
//!   SPIR-V with it;
//! - this guard costs nothing measurable: on `guard_cost` (nested loops with live-out values,
//!   64–127 iterations each, 32,768 threads; `cargo test -p ptxcross-tests --test loop_exits
//!   guard_cost -- --ignored --nocapture`, best of 5 launches, 2 shared cores) SPIR-V ran in
//!   81.7 ms with the guard and 81.4 ms without (wrong results), WGSL 115.9 / 113.6 ms; the
//!   emitted code grows by 78 SPIR-V words (2,553 → 2,631) and 246 WGSL bytes (6,262 → 6,508).

use crate::abi;
use crate::ir::{Block, CmpOp, Const, Expr, Memory, Operand, Stmt, Ty, VarId, VarInfo};
use rustc_hash::FxHashMap;

/// A set of variables as a dense bit set over the kernel's variables: the analysis clones and
/// unites live sets at every branch and loop round, which on nvcc's CUB kernels (thousands of
/// variables, deep nests) took minutes with ordered sets and takes milliseconds with words.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Live(Vec<u64>);

/// Liveness is computed for the variables some loop assigns only (the only ones the guards
/// ask about): liveness is a per-variable problem, so leaving the others out changes no
/// answer, and the sets shrink from all of a kernel's variables (118,086 in CUB's largest
/// radix sort) to those. `slots[v]`: variable `v`'s bit, or `NO_SLOT`.
const NO_SLOT: u32 = u32::MAX;

impl Live {
    fn new(vars: usize) -> Live {
        Live(vec![0; vars.div_ceil(64)])
    }
    fn insert(&mut self, v: VarId, slots: &[u32]) {
        let Some(i) = slot(v, slots) else { return };
        debug_assert!(i / 64 < self.0.len(), "variable {i} outside the kernel's variables");
        if let Some(w) = self.0.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    fn remove(&mut self, v: VarId, slots: &[u32]) {
        let Some(i) = slot(v, slots) else { return };
        if let Some(w) = self.0.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }
    fn contains(&self, v: VarId, slots: &[u32]) -> bool {
        let Some(i) = slot(v, slots) else { return false };
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    fn extend(&mut self, other: &Live) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
}

fn slot(v: VarId, slots: &[u32]) -> Option<usize> {
    slots.get(v.index()).copied().filter(|&i| i != NO_SLOT).map(|i| i as usize)
}

/// Variables assigned in a loop body, without duplicates (in no particular order: the analysis
/// only asks whether one of them is live).
type Assigned = Vec<VarId>;

/// Adds the guard to every loop of `body` that needs it; new variables go to `vars`.
pub fn guard_loop_exits(body: &mut Block, vars: &mut Vec<VarInfo>) {
    let mut shape = Shape { loop_ids: FxHashMap::default(), assigned: Vec::new(), listed_by: vec![NO_SLOT; vars.len()] };
    survey(&body.stmts, &mut shape, &mut Vec::new());
    let n = shape.assigned.len();
    if n == 0 {
        return;
    }
    let mut slots = vec![NO_SLOT; vars.len()];
    let mut count = 0u32;
    for v in shape.assigned.iter().flatten() {
        if let Some(s) = slots.get_mut(v.index()) {
            if *s == NO_SLOT {
                *s = count;
                count += 1;
            }
        }
    }
    let empty = Live::new(count as usize);
    let mut facts = Facts { needs: vec![false; n], at_continue: vec![empty.clone(); n], shape, empty: empty.clone(), spare: Vec::new() };
    let ctx = Ctx { at_break: empty.clone(), at_continue: empty.clone(), slots: &slots };
    live_before(&body.stmts, empty, &ctx, &mut facts);
    let needs = facts.needs;
    if !needs.iter().any(|&n| n) {
        return;
    }
    let mut new_var = |ty: Ty, name: &str| {
        vars.push(VarInfo { ty, name: name.into() });
        VarId(vars.len() as u32 - 1)
    };
    let word = new_var(Ty::U32, "loop exit guard word");
    let mut next = 0;
    insert_guards(&mut body.stmts, word, vars, &needs, &mut next);
    body.stmts.insert(
        0,
        Stmt::Assign {
            dst: word,
            expr: Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(abi::PARAM_ZERO_WORD)) },
        },
    );
}

/// Facts about the tree gathered in one pass before the analysis, so that the analysis, which
/// revisits nested bodies, never re-walks a subtree to number its loops or list their
/// assignments (that made deep nests cubic).
struct Shape {
    /// Each loop's preorder number, by address (the tree does not change meanwhile). (Each
    /// block's statements were numbered by the loops they hold on every visit before: a
    /// lookup per `if`, and a list per block, for every round of every enclosing loop.)
    loop_ids: FxHashMap<*const Stmt, usize>,
    /// Per loop, in preorder: the variables assigned in its body.
    assigned: Vec<Assigned>,
    /// Per variable: the last loop whose list has it (`NO_SLOT`: none), to drop duplicates
    /// in one pass (sorting each loop's list, nested loops' variables again at every level,
    /// was a fifth of this pass on CUB's kernels).
    listed_by: Vec<u32>,
}

/// Fills `shape` for `stmts` (loops numbered in preorder); adds their assignments to
/// `assigned`.
fn survey(stmts: &[Stmt], shape: &mut Shape, assigned: &mut Assigned) {
    for s in stmts {
        match s {
            Stmt::Assign { dst, .. } => assigned.push(*dst),
            Stmt::Loop { body } => {
                let id = shape.assigned.len();
                shape.assigned.push(Vec::new());
                shape.loop_ids.insert(s as *const Stmt, id);
                let mut inner = Vec::new();
                survey(&body.stmts, shape, &mut inner);
                // After the nested loops' own passes: each of them marked its variables.
                let listed_by = &mut shape.listed_by;
                inner.retain(|v| match listed_by.get_mut(v.index()) {
                    Some(l) if *l == id as u32 => false,
                    Some(l) => {
                        *l = id as u32;
                        true
                    }
                    None => true,
                });
                assigned.extend(inner.iter().copied());
                shape.assigned[id] = inner;
            }
            Stmt::If { then_body, else_body, .. } => {
                survey(&then_body.stmts, shape, assigned);
                survey(&else_body.stmts, shape, assigned);
            }
            Stmt::Switch { cases, default, .. } => {
                cases.iter().for_each(|c| survey(&c.body.stmts, shape, assigned));
                survey(&default.stmts, shape, assigned);
            }
            _ => {}
        }
    }
}

/// What the liveness analysis learns per loop (indexed by preorder number).
struct Facts {
    /// A variable assigned in the body is live after the loop.
    needs: Vec<bool>,
    /// The loop's last fixed point at its `Continue`s. An enclosing loop's next round starts
    /// the inner iteration from it: live sets only grow from round to round, so this stays
    /// below the new fixed point and nested loops cost no more than flat ones.
    at_continue: Vec<Live>,
    shape: Shape,
    /// The empty set (of the kernel's size).
    empty: Live,
    /// Sets no longer needed, reused for the next copy (a fresh allocation per branch, loop
    /// round, `break` and `continue` was a sixth of this pass on CUB's kernels).
    spare: Vec<Live>,
}

impl Facts {
    /// A copy of `l` (all sets have the same size).
    fn copy_of(&mut self, l: &Live) -> Live {
        match self.spare.pop() {
            Some(mut s) => {
                s.0.copy_from_slice(&l.0);
                s
            }
            None => l.clone(),
        }
    }
    fn zeroed(&mut self) -> Live {
        match self.spare.pop() {
            Some(mut s) => {
                s.0.fill(0);
                s
            }
            None => self.empty.clone(),
        }
    }
    fn recycle(&mut self, l: Live) {
        self.spare.push(l);
    }
}

/// Where `Break` and `Continue` of the innermost loop lead, as live sets.
struct Ctx<'s> {
    at_break: Live,
    at_continue: Live,
    slots: &'s [u32],
}

/// Variables live before `stmts`, given those live after them (`out`). Each loop with a
/// variable assigned in its body and live after it is marked in `facts.needs`.
fn live_before(stmts: &[Stmt], out: Live, ctx: &Ctx, facts: &mut Facts) -> Live {
    let mut live = out;
    for s in stmts.iter().rev() {
        live = match s {
            Stmt::Assign { dst, expr } => {
                live.remove(*dst, ctx.slots);
                add_expr_uses(expr, &mut live, ctx.slots);
                live
            }
            Stmt::StoreWord { index, value, .. } => {
                add_use(*index, &mut live, ctx.slots);
                add_use(*value, &mut live, ctx.slots);
                live
            }
            // `if (c) { fault }` (lower's checks, most `If`s of big kernels): the bodies leave
            // the set as it is, so it is the set plus `c`, without a copy and a union.
            Stmt::If { cond, then_body, else_body }
                if else_body.stmts.is_empty() && matches!(then_body.stmts.as_slice(), [Stmt::Fault { .. }]) =>
            {
                add_use(*cond, &mut live, ctx.slots);
                live
            }
            Stmt::If { cond, then_body, else_body } => {
                let then_out = facts.copy_of(&live);
                let mut l = live_before(&then_body.stmts, then_out, ctx, facts);
                let e = live_before(&else_body.stmts, live, ctx, facts);
                l.extend(&e);
                facts.recycle(e);
                add_use(*cond, &mut l, ctx.slots);
                l
            }
            Stmt::Loop { body } => {
                // `survey` numbered every loop of this tree.
                let id = facts.shape.loop_ids[&(s as *const Stmt)];
                // The end of the body continues, like `Continue`. Iterate to the fixed point.
                let placeholder = facts.zeroed();
                let start = std::mem::replace(&mut facts.at_continue[id], placeholder);
                let mut inner = Ctx { at_break: live, at_continue: start, slots: ctx.slots };
                loop {
                    let body_out = facts.copy_of(&inner.at_continue);
                    let mut l = live_before(&body.stmts, body_out, &inner, facts);
                    l.extend(&inner.at_continue);
                    if l == inner.at_continue {
                        facts.recycle(l);
                        break;
                    }
                    let old = std::mem::replace(&mut inner.at_continue, l);
                    facts.recycle(old);
                }
                facts.at_continue[id].0.copy_from_slice(&inner.at_continue.0);
                if facts.shape.assigned[id].iter().any(|&v| inner.at_break.contains(v, ctx.slots)) {
                    facts.needs[id] = true;
                }
                facts.recycle(inner.at_break);
                inner.at_continue
            }
            Stmt::Switch { selector, cases, default } => {
                let mut l = facts.zeroed();
                for body in cases.iter().map(|c| &c.body).chain(std::iter::once(default)) {
                    let case_out = facts.copy_of(&live);
                    let c = live_before(&body.stmts, case_out, ctx, facts);
                    l.extend(&c);
                    facts.recycle(c);
                }
                facts.recycle(live);
                add_use(*selector, &mut l, ctx.slots);
                l
            }
            // The set after them is replaced: its storage is reused.
            Stmt::Break => {
                live.0.copy_from_slice(&ctx.at_break.0);
                live
            }
            Stmt::Continue => {
                live.0.copy_from_slice(&ctx.at_continue.0);
                live
            }
            Stmt::Return => {
                live.0.fill(0);
                live
            }
            Stmt::Barrier | Stmt::SharedBarrier | Stmt::Fault { .. } | Stmt::Fence { .. } => live,
        };
    }
    live
}

fn add_use(o: Operand, live: &mut Live, slots: &[u32]) {
    if let Operand::Var(v) = o {
        live.insert(v, slots);
    }
}

fn add_expr_uses(e: &Expr, live: &mut Live, slots: &[u32]) {
    match e {
        Expr::Use(a) | Expr::Unary { arg: a, .. } | Expr::Convert { arg: a, .. } => add_use(*a, live, slots),
        Expr::Binary { lhs, rhs, .. } | Expr::Compare { lhs, rhs, .. } => {
            add_use(*lhs, live, slots);
            add_use(*rhs, live, slots);
        }
        Expr::Fma { a, b, c, .. } => [a, b, c].into_iter().for_each(|o| add_use(*o, live, slots)),
        Expr::Select { cond, a, b, .. } => [cond, a, b].into_iter().for_each(|o| add_use(*o, live, slots)),
        Expr::Builtin(_) => {}
        Expr::LoadWord { index, .. } | Expr::LoadDword { index, .. } | Expr::SharedUniformLoad { index } | Expr::WarpBallot { pred: index } => add_use(*index, live, slots),
        Expr::WarpShuffle { value, lane } => [value, lane].into_iter().for_each(|o| add_use(*o, live, slots)),
        Expr::Call { args, .. } => args.iter().for_each(|o| add_use(*o, live, slots)),
        Expr::AtomicWord { index, value, comparand, .. } | Expr::AtomicDword { index, value, comparand, .. } => {
            add_use(*index, live, slots);
            add_use(*value, live, slots);
            if let Some(c) = comparand {
                add_use(*c, live, slots);
            }
        }
    }
}

/// Puts `if word > k { break }` at the top of every loop `k` (preorder, counted from 1) that
/// needs a guard. Each loop's condition is its own comparison (`guard_k`, computed where it is
/// tested): with one shared condition, a compiler that propagates a dominating `if`'s
/// condition (NIR's `opt_if` does) knows an inner loop's guard is false once the outer loop's
/// was, folds it away, and the inner loop is back to one exit (nested loops with per-thread
/// trip counts, `tests/differential/regressions/seed-0000000026112047` and its neighbours).
fn insert_guards(stmts: &mut [Stmt], word: VarId, vars: &mut Vec<VarInfo>, needs: &[bool], next: &mut usize) {
    for s in stmts {
        match s {
            Stmt::Loop { body } => {
                let id = *next;
                *next += 1;
                insert_guards(&mut body.stmts, word, vars, needs, next);
                if needs[id] {
                    vars.push(VarInfo { ty: Ty::Bool, name: format!("loop exit guard {}", id + 1).into() });
                    let guard = VarId(vars.len() as u32 - 1);
                    body.stmts.splice(
                        0..0,
                        [
                            Stmt::Assign {
                                dst: guard,
                                expr: Expr::Compare {
                                    op: CmpOp::GtU,
                                    ty: Ty::U32,
                                    lhs: Operand::Var(word),
                                    rhs: Operand::Const(Const::U32(id as u32 + 1)),
                                },
                            },
                            Stmt::If {
                                cond: Operand::Var(guard),
                                then_body: Block { stmts: vec![Stmt::Break] },
                                else_body: Block::new(),
                            },
                        ],
                    );
                }
            }
            Stmt::If { then_body, else_body, .. } => {
                insert_guards(&mut then_body.stmts, word, vars, needs, next);
                insert_guards(&mut else_body.stmts, word, vars, needs, next);
            }
            Stmt::Switch { cases, default, .. } => {
                for c in cases.iter_mut() {
                    insert_guards(&mut c.body.stmts, word, vars, needs, next);
                }
                insert_guards(&mut default.stmts, word, vars, needs, next);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::*;
    use crate::ir::BinaryOp;

    fn vars(n: usize) -> Vec<VarInfo> {
        (0..n).map(|i| VarInfo { ty: Ty::U32, name: format!("r{i}").into() }).collect()
    }

    /// The guard variables of the guarded loops in `stmts` (each loop's body starting with
    /// `guard = word > k; if guard { break }`), in preorder.
    fn guards(stmts: &[Stmt], word: VarId, out: &mut Vec<VarId>) {
        for s in stmts {
            match s {
                Stmt::Loop { body } => {
                    if let [Stmt::Assign { dst, expr: Expr::Compare { op: CmpOp::GtU, lhs, .. } }, Stmt::If { cond, then_body, .. }, ..] =
                        &body.stmts[..]
                    {
                        if *lhs == Operand::Var(word) && *cond == Operand::Var(*dst) && then_body.stmts == [Stmt::Break] {
                            out.push(*dst);
                        }
                    }
                    guards(&body.stmts, word, out);
                }
                Stmt::If { then_body, else_body, .. } => {
                    guards(&then_body.stmts, word, out);
                    guards(&else_body.stmts, word, out);
                }
                _ => {}
            }
        }
    }

    fn guarded(stmts: &[Stmt], word: VarId) -> usize {
        let mut out = Vec::new();
        guards(stmts, word, &mut out);
        out.len()
    }

    /// `loop { v1 = v0 + 1; v0 = v0 - 1; if v0 != 0 { continue }; break }`, then `tail`.
    fn do_while(tail: Vec<Stmt>) -> Block {
        let (v0, v1, p) = (VarId(0), VarId(1), VarId(2));
        let mut stmts = vec![loop_(vec![
            assign(v1, bin(BinaryOp::Add, Ty::U32, v0, c32(1))),
            assign(v0, bin(BinaryOp::Sub, Ty::U32, v0, c32(1))),
            assign(p, cmp(CmpOp::Ne, Ty::U32, v0, c32(0))),
            if_(p, vec![Stmt::Continue], vec![]),
            Stmt::Break,
        ])];
        stmts.extend(tail);
        Block { stmts }
    }

    #[test]
    fn only_loops_with_live_out_values_are_guarded() {
        // v1 stored after the loop: guarded; the guard word is read first.
        let mut v = vars(3);
        let mut b = do_while(vec![store(Memory::Heap, c32(64), VarId(1))]);
        guard_loop_exits(&mut b, &mut v);
        assert_eq!(v.len(), 5);
        assert_eq!(guarded(&b.stmts, VarId(3)), 1);
        assert!(matches!(&b.stmts[0], Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Param, .. }, .. }));

        // Nothing read after the loop (v1 overwritten first): unchanged.
        let mut v = vars(3);
        let mut b = do_while(vec![copy(VarId(1), c32(5)), store(Memory::Heap, c32(64), VarId(1))]);
        let before = b.clone();
        guard_loop_exits(&mut b, &mut v);
        assert_eq!(b, before);
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn a_value_read_in_the_next_iteration_of_an_outer_loop_is_live() {
        // outer { store v1; inner do-while } — v1 of the inner loop is read at the top of the
        // outer loop's next iteration, so the inner loop is guarded; the outer loop has
        // nothing live after it.
        let mut v = vars(3);
        let inner = do_while(vec![]).stmts;
        let mut outer_body = vec![store(Memory::Heap, c32(64), VarId(1))];
        outer_body.extend(inner);
        let mut b = Block { stmts: vec![loop_(outer_body)] };
        guard_loop_exits(&mut b, &mut v);
        let Stmt::Loop { body } = &b.stmts[1] else { panic!("{b:?}") };
        assert!(!matches!(body.stmts[0], Stmt::Assign { .. } | Stmt::If { .. }), "outer loop needs no guard");
        assert_eq!(guarded(&b.stmts, VarId(3)), 1);
    }

    #[test]
    fn deep_nests_are_analysed_quickly() {
        // 40 nested loops, each reading the variable the next one assigns after it ends: a
        // fixed point recomputed from scratch in every round of every enclosing loop would take
        // 2^40 rounds.
        let n = 40;
        let mut v = vars(n + 2);
        let mut body = vec![Stmt::Break];
        for i in 0..n {
            body = vec![
                loop_(body),
                store(Memory::Heap, c32(64), VarId(i as u32)),
                copy(VarId(i as u32 + 1), c32(1)),
                if_(VarId(n as u32 + 1), vec![Stmt::Break], vec![]),
            ];
        }
        let mut b = Block { stmts: body };
        let t = std::time::Instant::now();
        guard_loop_exits(&mut b, &mut v);
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
        assert_eq!(guarded(&b.stmts, VarId(n as u32 + 2)), n - 1);
    }

    /// Nested guarded loops test different conditions: with one shared condition a compiler
    /// that propagates the outer guard's (false) condition into the inner loop folds the inner
    /// guard away (`tests/differential/regressions/seed-0000000026112047`).
    #[test]
    fn nested_loops_get_guards_of_their_own() {
        let mut v = vars(3);
        let inner = do_while(vec![]).stmts;
        let (v0, p) = (VarId(0), VarId(2));
        let mut outer_body = inner;
        outer_body.extend([
            assign(v0, bin(BinaryOp::Sub, Ty::U32, v0, c32(1))),
            assign(p, cmp(CmpOp::Ne, Ty::U32, v0, c32(0))),
            if_(p, vec![Stmt::Continue], vec![]),
            Stmt::Break,
        ]);
        let mut b = Block { stmts: vec![loop_(outer_body), store(Memory::Heap, c32(64), VarId(1))] };
        guard_loop_exits(&mut b, &mut v);
        let mut g = Vec::new();
        guards(&b.stmts, VarId(3), &mut g);
        assert_eq!(g.len(), 2, "{b:?}");
        assert_ne!(g[0], g[1]);
        // Different constants: no common subexpression either.
        let consts: Vec<Operand> = [&b.stmts[1]]
            .iter()
            .flat_map(|s| {
                let mut out = Vec::new();
                fn walk(s: &Stmt, out: &mut Vec<Operand>) {
                    if let Stmt::Loop { body } = s {
                        if let Some(Stmt::Assign { expr: Expr::Compare { rhs, .. }, .. }) = body.stmts.first() {
                            out.push(*rhs);
                        }
                        body.stmts.iter().for_each(|s| walk(s, out));
                    }
                }
                walk(s, &mut out);
                out
            })
            .collect();
        assert_eq!(consts.len(), 2);
        assert_ne!(consts[0], consts[1]);
    }
}
