//! The last pass: removes what the instruction rules and earlier passes leave behind that no
//! rule needs — copies through temporaries, integer identities (`x + 0`, `x >> 0`, `x & ~0`),
//! assignments nobody reads, empty `if`s — and drops the variables left unused.
//!
//! Why: every rule writes its result into a fresh temporary and copies it into the PTX
//! register, address arithmetic adds constant offsets that are often zero, and so on. The
//! drivers remove all of this, but only after it has cost translation, validation (both
//! validators are slower than linear in function size) and pipeline creation (issue 11:
//! saxpy's WGSL had 288 statements against the hand-written 3).
//!
//! Every rewrite keeps the IR's meaning exactly (the structurizer's property tests and the
//! interpreter see the same results):
//! - a *value* (`ir::Kernel::value_vars`: assigned once, read only where that assignment
//!   dominates) that copies a constant or another value is replaced by that operand at every
//!   read: the operand's own assignment dominates the copy's, hence every read, and it does
//!   not change in between (it is a value too);
//! - integer identities are exact on all inputs (floats are never touched: `x + 0.0` is not
//!   `x` for `x = -0.0`);
//! - an assignment is removed only when its variable is read nowhere and its expression is
//!   pure (`Expr::is_pure`: loads, which may fault, atomics and collectives stay);
//! - the fault-site variable is never touched (backends read it when recording a fault).

use std::collections::hash_map::Entry;
use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use crate::ir::{stmt_operands, stmt_operands_mut, BinaryOp, Block, Const, Expr, Fact, Kernel, Operand, Stmt, Ty, VarId};

/// Returns the simplified kernel's [`Kernel::value_vars`] where they come for free (the last
/// round changed nothing: they are that round's, renumbered as `compact_vars` renumbers the
/// variables), for the passes right after it; `None` where they must be recomputed.
pub fn simplify(kernel: &mut Kernel) -> Option<Vec<bool>> {
    // The values of the body as it stands, while it is known (see above).
    let mut unchanged = None;
    // The round before, where nothing it changed can show `common_subexpressions` anything
    // new but a change of the values (see `Round::settled`): its values, and the variables
    // its body still needs.
    let mut settled: Option<(Vec<bool>, Round)> = None;
    // Each round can expose more (a copy of a copy, a chain left dead); few are needed.
    // (Dead code removal exposes nothing new to the other two, so it does not ask for a round.)
    for round in 0..3 {
        // `common_subexpressions` changes no variable's being a value (it rewrites only
        // assignments to values whose operands are values, into a read of an earlier value
        // that dominates them), so `propagate_copies` takes the same list.
        let values = kernel.value_vars();
        let before = settled.take().filter(|(before, done)| same_where_needed(before, &values, &done.needed));
        // Most kernels end with a round that changes nothing (it was a fifth of the pass):
        // after a settled round, this one shares nothing and so has no copy to propagate.
        let share = before.is_none();
        if before.as_ref().is_some_and(|(_, done)| !done.reshaped) {
            // Nor anything else to do: the faults and the dead code are as it left them.
            #[cfg(test)]
            confirm_settled(kernel, &values);
            unchanged = Some(values);
            break;
        }
        #[cfg(test)]
        let expected = (!share).then(|| {
            let mut copy = kernel.clone();
            uncounted(|| one_round(&mut copy, &values, false, true));
            copy
        });
        let done = one_round(kernel, &values, round == 0, share);
        #[cfg(test)]
        assert!(expected.is_none_or(|k| k == *kernel), "a settled round shared an expression");
        if !done.changed() {
            // Nothing changed the body since `values` (removing an assignment can make its
            // variable a value: then they are recomputed).
            unchanged = (!done.removed).then_some(values);
            break;
        }
        settled = done.settled().then_some((values, done));
    }
    let kept = compact_vars(kernel);
    let values = match (unchanged?, kept) {
        (values, None) => values,
        (values, Some(kept)) => values.into_iter().zip(kept).filter(|&(_, k)| k).map(|(v, _)| v).collect(),
    };
    #[cfg(test)]
    assert!(kernel.value_vars() == values, "simplify returned stale values");
    Some(values)
}

/// What one round of [`simplify`] did.
struct Round {
    /// Common subexpressions replaced, copies propagated, selects decided: another round may
    /// find more.
    shared: bool,
    copies: bool,
    decided: bool,
    /// Dead assignments or empty `if`s removed.
    removed: bool,
    /// Two different expressions met under one hash in `common_subexpressions` (which then
    /// misses an equality another round may find).
    collided: bool,
    /// A copy's propagation rewrote an assignment `common_subexpressions` may share (it saw
    /// the assignment before the rewrite) into an expression another assignment may equal.
    reread: bool,
    /// `remove_dead` removed an `if` (its condition was a read that kept other assignments)
    /// or left one holding a lone fault (which `propagate_copies_and_remove_repeated_faults`
    /// looks for).
    reshaped: bool,
    /// Per variable: whether the body may still read it (`remove_dead`'s marks); the others
    /// are read nowhere and assigned no pure expression (a copy propagated, a dead one).
    needed: Vec<bool>,
}

impl Round {
    fn changed(&self) -> bool {
        self.shared || self.copies || self.decided
    }

    /// Whether the next round shares no expression (and so has no copy to propagate) where
    /// the values it needs stay the same: its `common_subexpressions` would see every
    /// expression this round's walk saw (which found all equalities there: without a
    /// collision the table holds one expression per hash, and only its last entry can still
    /// dominate) or one rewritten since into an expression met nowhere else (`reread`), and
    /// no copy is left (all were propagated; a decided select is a new one). Its facts and
    /// faults are this round's too (`propagate_copies_and_remove_repeated_faults` decides each
    /// statement after rewriting it, reading only what comes before), and unless `reshaped`,
    /// `remove_dead` has nothing left to remove (it marks from the same roots): then the round
    /// changes nothing at all.
    fn settled(&self) -> bool {
        !self.decided && !self.collided && !self.reread
    }
}

#[cfg(test)]
thread_local! {
    /// The rounds that looked for common subexpressions (tests: which rounds were skipped).
    static SHARING_ROUNDS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// `f`, its rounds not counted in `SHARING_ROUNDS` (the checks' rounds on copies).
#[cfg(test)]
fn uncounted<T>(f: impl FnOnce() -> T) -> T {
    let n = SHARING_ROUNDS.with(|n| n.get());
    let out = f();
    SHARING_ROUNDS.with(|c| c.set(n));
    out
}

/// In tests: a round after a settled one that `remove_dead` did not reshape changes nothing.
#[cfg(test)]
fn confirm_settled(kernel: &Kernel, values: &[bool]) {
    let mut copy = kernel.clone();
    let done = uncounted(|| one_round(&mut copy, values, false, true));
    assert!(!done.changed() && !done.removed && copy == *kernel, "a settled round changed the body");
}

/// One round of [`simplify`] on the body whose values are `values`; `share`: whether to look
/// for common subexpressions (the walk that finds the copies to propagate too).
fn one_round(kernel: &mut Kernel, values: &[bool], fold: bool, share: bool) -> Round {
    #[cfg(test)]
    if share {
        SHARING_ROUNDS.with(|n| n.set(n.get() + 1));
    }
    // The integer identities are folded in the first round's walk (a walk of its own
    // before; folding `x + 0` into `x` changes no variable's being a value).
    let (shared, subst, collided, shared_hashes) =
        if share { common_subexpressions(kernel, values, fold) } else { (false, vec![None; kernel.vars.len()], false, FxHashMap::default()) };
    #[cfg(test)]
    assert!(kernel.value_vars() == values, "common_subexpressions changed the values");
    // One walk for the copies and the repeated faults (each was a walk of its own, and the
    // faults' three): each statement is done with the first before the second looks at it,
    // which reads only statements before it (values, dominating faults), as in two walks.
    let (copies, decided, reread) = propagate_copies_and_remove_repeated_faults(kernel, values, subst, &shared_hashes);
    drop(shared_hashes);
    let (removed, reshaped, needed) = remove_dead(kernel);
    Round { shared, copies, decided, removed, collided, reread, reshaped, needed }
}

/// Whether `after` (the values now) equals `before` at every variable `needed`: the others are
/// read nowhere and assigned no pure expression, so their being values (a propagated copy's
/// variable is no longer assigned at all) changes nothing a round does.
fn same_where_needed(before: &[bool], after: &[bool], needed: &[bool]) -> bool {
    before.len() == after.len() && needed.len() == after.len() && before.iter().zip(after).zip(needed).all(|((b, a), n)| !n || a == b)
}

fn is_zero(o: Operand) -> bool {
    matches!(o, Operand::Const(Const::U32(0) | Const::U64(0) | Const::Bool(false)))
}

fn is_ones(o: Operand, ty: Ty) -> bool {
    match (o, ty) {
        (Operand::Const(Const::U32(v)), Ty::U32) => v == u32::MAX,
        (Operand::Const(Const::U64(v)), Ty::U64) => v == u64::MAX,
        (Operand::Const(Const::Bool(b)), Ty::Bool) => b,
        _ => false,
    }
}

fn is_one(o: Operand) -> bool {
    matches!(o, Operand::Const(Const::U32(1) | Const::U64(1)))
}

/// `x op k` (or `k op x`) that always equals `x`, as `Use(x)`.
fn identity(e: &Expr) -> Option<Expr> {
    let Expr::Binary { op, ty, lhs, rhs } = *e else { return None };
    if ty.is_float() {
        return None;
    }
    use BinaryOp::*;
    let x = match op {
        Add | Or | Xor if is_zero(rhs) => lhs,
        Add | Or | Xor if is_zero(lhs) => rhs,
        Sub | Shl | ShrU | ShrS if is_zero(rhs) => lhs,
        And if is_ones(rhs, ty) => lhs,
        And if is_ones(lhs, ty) => rhs,
        Mul if is_one(rhs) => lhs,
        Mul if is_one(lhs) => rhs,
        _ => return None,
    };
    Some(Expr::Use(x))
}

/// A value assigned a pure expression that an earlier value, whose assignment dominates
/// this one, was assigned already (same operation on the same operands, all values or
/// constants) becomes a copy of that value (which `propagate_copies` then removes): the
/// operands have not changed in between, so neither has the result. Example: a load and a
/// store through one pointer compute the same segment, bounds and alignment tests.
/// Returns whether anything changed, and the copies `propagate_copies` replaces (its
/// [`copy_to_propagate`] of each assignment as this walk leaves it: collected here, not in
/// a walk of their own).
/// `fold`: [`identity`] first folds each assignment. Also returns whether two different
/// expressions met under one hash (see `by_hash`), and the hashes of the expressions it
/// left to share (in `by_hash`'s keys).
fn common_subexpressions(kernel: &mut Kernel, values: &[bool], fold: bool) -> (bool, Vec<Option<Operand>>, bool, FxHashMap<u64, u32>) {
    let is_value = |v: VarId| values.get(v.index()).copied().unwrap_or(false);
    struct Cx<'a> {
        is_value: &'a dyn Fn(VarId) -> bool,
        /// Each expression seen, with the value assigned it and the block of that assignment,
        /// in walk order. An entry whose block has been left dominates nothing any more and
        /// counts as absent (`open`), so leaving a block costs no removals (nor a copy of each
        /// expression to remove by).
        seen: Vec<(Expr, VarId, u32)>,
        /// The last entry of `seen` for each expression hash. Keyed by the expression itself
        /// the table was several times larger, and its inserts, scattered over fresh pages,
        /// were most of the pass's time on the CUB file. Two expressions with one hash (rare)
        /// keep only the later: an equality missed, never a wrong one.
        by_hash: FxHashMap<u64, u32>,
        /// Per block entered so far (in walk order): whether the walk is still inside it.
        open: Vec<bool>,
        /// Values already found equal to an earlier one (`dst` → earlier). Their reads are
        /// rewritten on the way, so a chain of equal computations (the same address checked
        /// by a load and then a store) is found in one walk, not one link per round.
        same_as: FxHashMap<VarId, VarId>,
        changed: bool,
        collided: bool,
        values: &'a [bool],
        subst: Vec<Option<Operand>>,
        fold: bool,
    }
    fn block(b: &mut Block, cx: &mut Cx) {
        let id = cx.open.len() as u32;
        cx.open.push(true);
        for s in &mut b.stmts {
            if let Stmt::Assign { dst, expr } = s {
                if cx.fold {
                    if let Some(e) = identity(expr) {
                        *expr = e;
                    }
                }
                // A value equal to an earlier value is read as that one: the earlier one's
                // assignment dominates the later one's, which dominates all its reads.
                if !cx.same_as.is_empty() {
                    expr.for_each_operand_mut(|o| {
                        if let Operand::Var(v) = o {
                            if let Some(&earlier) = cx.same_as.get(v) {
                                *o = Operand::Var(earlier);
                            }
                        }
                    });
                }
                let mut operands_fixed = true;
                expr.for_each_operand(|o| operands_fixed &= matches!(o, Operand::Const(_)) || matches!(o, Operand::Var(v) if (cx.is_value)(v)));
                if (cx.is_value)(*dst) && expr.is_pure() && !matches!(expr, Expr::Use(_)) && operands_fixed {
                    // One lookup (hash and probe) per expression: the entry is found or
                    // made at once. An entry of a block already left is replaced.
                    let next = cx.seen.len() as u32;
                    match cx.by_hash.entry(expr_hash(expr)) {
                        Entry::Occupied(mut e) => {
                            let (earlier_expr, earlier, at) = &cx.seen[*e.get() as usize];
                            if earlier_expr == expr && cx.open[*at as usize] {
                                let earlier = *earlier;
                                *expr = Expr::Use(Operand::Var(earlier));
                                cx.same_as.insert(*dst, earlier);
                                cx.changed = true;
                            } else {
                                cx.collided |= earlier_expr != expr;
                                cx.seen.push((expr.clone(), *dst, id));
                                e.insert(next);
                            }
                        }
                        Entry::Vacant(e) => {
                            cx.seen.push((expr.clone(), *dst, id));
                            e.insert(next);
                        }
                    }
                }
                if let Some(o) = copy_to_propagate(*dst, expr, cx.values) {
                    cx.subst[dst.index()] = Some(o);
                }
            }
            for body in s.bodies_mut() {
                block(body, cx);
            }
        }
        // Leaving the block: its assignments dominate nothing after it.
        cx.open[id as usize] = false;
    }
    // At most one entry per value (each is assigned once): no growing on the way.
    let room = values.iter().filter(|&&v| v).count();
    let by_hash = FxHashMap::with_capacity_and_hasher(room, Default::default());
    let subst = vec![None; kernel.vars.len()];
    let mut cx =
        Cx { is_value: &is_value, seen: Vec::with_capacity(room), by_hash, open: Vec::new(), same_as: FxHashMap::default(), changed: false, collided: false, values, subst, fold };
    block(&mut kernel.body, &mut cx);
    (cx.changed, cx.subst, cx.collided, cx.by_hash)
}

/// The hash `common_subexpressions` files an expression under.
fn expr_hash(e: &Expr) -> u64 {
    let mut h = FxHasher::default();
    e.hash(&mut h);
    h.finish()
}

/// `o` if `dst = o` is a copy that `propagate_copies` replaces: `dst` a value, `o` a constant
/// or another value.
fn copy_to_propagate(dst: VarId, expr: &Expr, values: &[bool]) -> Option<Operand> {
    let Expr::Use(o) = *expr else { return None };
    let ok = match o {
        Operand::Const(_) => true,
        Operand::Var(v) => values.get(v.index()).copied().unwrap_or(false) && v != dst,
    };
    (ok && values.get(dst.index()).copied().unwrap_or(false)).then_some(o)
}

/// Two rewrites in one walk (each statement is done with the first before the second looks at
/// it, and the second reads only what comes before it in the walk: the same result as a walk
/// for each). Returns whether any copy was replaced, whether a select was decided, and
/// whether an assignment `common_subexpressions` may share was rewritten into an expression
/// that another round's walk may find equal to another: one of `shared_hashes` (the
/// expressions its walk left) or of another rewritten one.
///
/// **Copies.** Replaces every value that copies a constant or another value by that operand,
/// and removes the copy (`subst`: per variable, the operand its copy is replaced by, from
/// [`common_subexpressions`]).
///
/// **Repeated faults.** Removes a deferred fault `if (c) { fault(bits) }` (an `If` whose only
/// statement is a `Fault`) where an earlier one, `if (c0) { fault(bits0) }`, dominates it with
/// `bits ⊆ bits0` and `c` implying `c0` (`c` is `c0`, or `c0 && x`, `x && c0`, at any depth),
/// `c` and `c0` being values. Issue 11: the load and the store of `y[i] = … y[i]` test the
/// same address. Why nothing changes: whenever the later one records its bits, the earlier one
/// ran before in the same thread with `c0` true (the values have not changed in between), and
/// recorded the same bits; a thread reports the bits it collected and its first faulting
/// site, which the earlier one already is.
/// `values`: the kernel's values (the earlier rewrites of a round keep them values).
///
/// A `select` whose condition the value facts decide becomes a copy of the operand it picks
/// (issue 11, code size): the misaligned store's `select(mis, DISCARD_INDEX, i)` of an offset
/// built from aligned terms, whose fault the rule above removes, keeps no test behind it.
/// The facts (`Kernel::value_facts`: an alignment test of an offset built from aligned terms,
/// proven false, never faults) and the `&&`s of conditions are those of values, whose
/// assignments come before every read in the walk: each is noted where it is assigned.
fn propagate_copies_and_remove_repeated_faults(
    kernel: &mut Kernel,
    values: &[bool],
    subst: Vec<Option<Operand>>,
    shared_hashes: &FxHashMap<u64, u32>,
) -> (bool, bool, bool) {
    let copies = subst.iter().any(Option::is_some);
    // Resolve chains (`a = b; b = c` in program order gives a → b → c). Acyclic: each copy's
    // operand is assigned strictly before it.
    let resolve = |mut o: Operand| {
        let mut steps = 0;
        while let Operand::Var(v) = o {
            match subst.get(v.index()).copied().flatten() {
                Some(next) if steps < subst.len() => {
                    o = next;
                    steps += 1;
                }
                _ => break,
            }
        }
        o
    };
    struct Cx<'a> {
        kernel: &'a Kernel,
        values: &'a [bool],
        subst: &'a [Option<Operand>],
        resolve: &'a dyn Fn(Operand) -> Operand,
        copies: bool,
        /// `Kernel::value_facts` of the values assigned so far.
        facts: Vec<Option<Fact>>,
        /// The values assigned `a && b` so far.
        and_of: FxHashMap<VarId, (Operand, Operand)>,
        /// The faults of the enclosing blocks so far: their conditions and bits.
        seen: FxHashMap<Operand, u32>,
        undo: Vec<(Operand, Option<u32>)>,
        decided: bool,
        reread: bool,
        shared_hashes: &'a FxHashMap<u64, u32>,
        /// The hashes of the rewritten assignments so far.
        rewritten: FxHashSet<u64>,
    }
    impl Cx<'_> {
        fn is_value(&self, o: Operand) -> bool {
            matches!(o, Operand::Var(v) if self.values.get(v.index()).copied().unwrap_or(false))
        }
        /// What the facts decide of condition `c`.
        fn decided(&self, c: Operand) -> Option<bool> {
            match c {
                Operand::Var(v) => self.facts.get(v.index()).copied().flatten().filter(|f| f.min == f.max).map(|f| f.min != 0),
                _ => None,
            }
        }
        /// Whether a dominating fault recorded `bits` (or more) under `c` or a condition `c`
        /// implies (a term of its `&&`s, at most 8 deep).
        fn implied(&self, c: Operand, bits: u32, depth: u32) -> bool {
            if self.seen.get(&c).is_some_and(|&b0| bits & !b0 == 0) {
                return true;
            }
            match c {
                Operand::Var(v) if depth < 8 => {
                    self.and_of.get(&v).is_some_and(|&(a, b)| self.implied(a, bits, depth + 1) || self.implied(b, bits, depth + 1))
                }
                _ => false,
            }
        }
    }
    fn block(b: &mut Block, cx: &mut Cx) {
        let mark = cx.undo.len();
        b.stmts.retain_mut(|s| {
            if cx.copies {
                if let Stmt::Assign { dst, expr: Expr::Use(_) } = s {
                    if cx.subst.get(dst.index()).copied().flatten().is_some() {
                        return false;
                    }
                }
                let mut rewritten = false;
                stmt_operands_mut(s, |o| {
                    let r = (cx.resolve)(*o);
                    rewritten |= r != *o;
                    *o = r;
                });
                if rewritten && !cx.reread {
                    if let Stmt::Assign { dst, expr } = s {
                        if cx.values.get(dst.index()).copied().unwrap_or(false) && expr.is_pure() && !matches!(expr, Expr::Use(_)) {
                            let h = expr_hash(expr);
                            cx.reread = cx.shared_hashes.contains_key(&h) || !cx.rewritten.insert(h);
                        }
                    }
                }
            }
            if let Stmt::Assign { dst, expr } = s {
                if cx.values.get(dst.index()).copied().unwrap_or(false) {
                    let ty = cx.kernel.vars[dst.index()].ty;
                    cx.facts[dst.index()] = Fact::of_expr(cx.kernel, expr, ty, &cx.facts);
                    if let Expr::Binary { op: BinaryOp::And, ty: Ty::Bool, lhs, rhs } = *expr {
                        cx.and_of.insert(*dst, (lhs, rhs));
                    }
                }
                if let Expr::Select { cond, a, b, .. } = *expr {
                    if let Some(c) = cx.decided(cond) {
                        *expr = Expr::Use(if c { a } else { b });
                        cx.decided = true;
                    }
                }
            }
            if let Some((c, bits)) = lone_fault(s) {
                if matches!(c, Operand::Const(Const::Bool(false))) || cx.decided(c) == Some(false) {
                    return false;
                }
                if cx.is_value(c) {
                    if cx.implied(c, bits, 0) {
                        return false;
                    }
                    let old = cx.seen.insert(c, bits | cx.seen.get(&c).copied().unwrap_or(0));
                    cx.undo.push((c, old));
                }
                return true;
            }
            for body in s.bodies_mut() {
                block(body, cx);
            }
            true
        });
        // Leaving the block: its faults dominate nothing after it.
        while cx.undo.len() > mark {
            let Some((c, old)) = cx.undo.pop() else { break };
            match old {
                Some(b) => cx.seen.insert(c, b),
                None => cx.seen.remove(&c),
            };
        }
    }
    // The body is walked apart from the kernel, whose variables the facts read.
    let mut body = std::mem::take(&mut kernel.body);
    let mut cx = Cx {
        kernel,
        values,
        subst: &subst,
        resolve: &resolve,
        copies,
        facts: vec![None; kernel.vars.len()],
        and_of: FxHashMap::default(),
        seen: FxHashMap::default(),
        undo: Vec::new(),
        decided: false,
        reread: false,
        shared_hashes,
        rewritten: FxHashSet::default(),
    };
    block(&mut body, &mut cx);
    let (decided, reread) = (cx.decided, cx.reread);
    kernel.body = body;
    (copies, decided, reread)
}

/// `if (c) { fault(bits) }` (an `If` whose only statement is a `Fault`) as `(c, bits)`.
fn lone_fault(s: &Stmt) -> Option<(Operand, u32)> {
    match s {
        Stmt::If { cond, then_body, else_body } if else_body.stmts.is_empty() => match then_body.stmts.as_slice() {
            [Stmt::Fault { code }] => Some((*cond, *code)),
            _ => None,
        },
        _ => None,
    }
}

/// Removes pure assignments whose variable no statement needs (not read by a store, a
/// condition, an impure expression, nor by a pure assignment to a needed variable), then
/// `if`s left with two empty bodies. One marking pass from those roots, one sweep: linear
/// (removing one dead assignment at a time, a chain of n needed n walks of the body).
/// Returns whether anything changed, whether it removed an `if` or left one holding a lone
/// fault (see `Round::reshaped`), and which variables it kept as needed.
fn remove_dead(kernel: &mut Kernel) -> (bool, bool, Vec<bool>) {
    let n = kernel.vars.len();
    let keep = kernel.fault_site_var;
    // Per variable: the variables its pure assignments read (edges `(assigned, read)`, then
    // grouped by the assigned variable: one allocation, not one list per variable); and the
    // roots.
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut needed = vec![false; n];
    let mut work: Vec<VarId> = Vec::new();
    fn collect(b: &Block, n: usize, edges: &mut Vec<(u32, u32)>, needed: &mut [bool], work: &mut Vec<VarId>) {
        for s in &b.stmts {
            let pure_dst = match s {
                Stmt::Assign { dst, expr } if expr.is_pure() && dst.index() < n => Some(*dst),
                _ => None,
            };
            stmt_operands(s, |o| {
                let Operand::Var(v) = o else { return };
                match pure_dst {
                    Some(d) => edges.push((d.0, v.0)),
                    None => {
                        if let Some(flag) = needed.get_mut(v.index()) {
                            if !*flag {
                                *flag = true;
                                work.push(v);
                            }
                        }
                    }
                }
            });
            for body in s.bodies() {
                collect(body, n, edges, needed, work);
            }
        }
    }
    collect(&kernel.body, n, &mut edges, &mut needed, &mut work);
    let mut start = vec![0u32; n + 1];
    for &(d, _) in &edges {
        start[d as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut deps = vec![VarId(0); edges.len()];
    for &(d, v) in &edges {
        deps[fill[d as usize] as usize] = VarId(v);
        fill[d as usize] += 1;
    }
    drop(edges);
    if let Some(f) = keep {
        if let Some(flag) = needed.get_mut(f.index()) {
            if !*flag {
                *flag = true;
                // What its assignments read is needed too (constants today, but not by rule).
                work.push(f);
            }
        }
    }
    while let Some(v) = work.pop() {
        let i = v.index();
        if i >= n {
            continue;
        }
        for &d in &deps[start[i] as usize..start[i + 1] as usize] {
            if let Some(flag) = needed.get_mut(d.index()) {
                if !*flag {
                    *flag = true;
                    work.push(d);
                }
            }
        }
    }
    fn sweep(b: &mut Block, needed: &[bool], reshaped: &mut bool) -> bool {
        let mut changed = false;
        for s in &mut b.stmts {
            let mut inner = false;
            for body in s.bodies_mut() {
                inner |= sweep(body, needed, reshaped);
            }
            *reshaped |= inner && lone_fault(s).is_some();
            changed |= inner;
        }
        let before = b.stmts.len();
        b.stmts.retain(|s| match s {
            Stmt::Assign { dst, expr } => !expr.is_pure() || needed.get(dst.index()).copied().unwrap_or(true),
            Stmt::If { then_body, else_body, .. } => {
                let keep = !(then_body.stmts.is_empty() && else_body.stmts.is_empty());
                *reshaped |= !keep;
                keep
            }
            _ => true,
        });
        changed || b.stmts.len() != before
    }
    let mut reshaped = false;
    let removed = sweep(&mut kernel.body, &needed, &mut reshaped);
    (removed, reshaped, needed)
}

/// Drops variables that are neither assigned nor read, renumbering the others.
/// Returns which of the variables it kept (in order: the kept ones are renumbered from 0 in
/// their old order), or `None` when it kept them all.
pub(crate) fn compact_vars(kernel: &mut Kernel) -> Option<Vec<bool>> {
    let n = kernel.vars.len();
    let mut used = vec![false; n];
    fn mark(b: &Block, used: &mut [bool]) {
        for s in &b.stmts {
            let mut note = |o: Operand| {
                if let Operand::Var(v) = o {
                    if let Some(u) = used.get_mut(v.index()) {
                        *u = true;
                    }
                }
            };
            stmt_operands(s, &mut note);
            if let Stmt::Assign { dst, .. } = s {
                note(Operand::Var(*dst));
            }
            for body in s.bodies() {
                mark(body, used);
            }
        }
    }
    mark(&kernel.body, &mut used);
    if let Some(f) = kernel.fault_site_var {
        if let Some(u) = used.get_mut(f.index()) {
            *u = true;
        }
    }
    if used.iter().all(|&u| u) {
        return None;
    }
    let mut map = vec![VarId(u32::MAX); n];
    let mut vars = Vec::with_capacity(n);
    for (i, info) in kernel.vars.drain(..).enumerate() {
        if used[i] {
            map[i] = VarId(vars.len() as u32);
            vars.push(info);
        }
    }
    kernel.vars = vars;
    let remap = |v: VarId| map.get(v.index()).copied().unwrap_or(v);
    fn apply(b: &mut Block, remap: &dyn Fn(VarId) -> VarId) {
        for s in &mut b.stmts {
            stmt_operands_mut(s, |o| {
                if let Operand::Var(v) = o {
                    *v = remap(*v);
                }
            });
            if let Stmt::Assign { dst, .. } = s {
                *dst = remap(*dst);
            }
            for body in s.bodies_mut() {
                apply(body, remap);
            }
        }
    }
    apply(&mut kernel.body, &remap);
    kernel.fault_site_var = kernel.fault_site_var.map(remap);
    Some(used)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{CmpOp, Memory, VarInfo};

    /// The values `simplify` returns are the simplified kernel's, also where its last round
    /// removed dead code that made a variable a value (`v1`'s read before its assignment).
    #[test]
    fn returned_values_follow_dead_code_removal() {
        let v = |i: u32| Operand::Var(VarId(i));
        let u = |c: u32| Operand::Const(Const::U32(c));
        let mut k = kernel(
            &[Ty::U32, Ty::U32, Ty::U32],
            vec![
                Stmt::Assign { dst: VarId(2), expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: v(1), rhs: u(1) } },
                Stmt::Assign { dst: VarId(1), expr: Expr::LoadWord { memory: Memory::Param, index: u(0) } },
                Stmt::StoreWord { memory: Memory::Heap, index: u(16), value: v(1) },
            ],
        );
        assert!(!k.value_vars()[1]);
        let values = simplify(&mut k).unwrap_or_else(|| k.value_vars());
        assert_eq!(values, k.value_vars());
        assert_eq!(values.iter().filter(|&&b| b).count(), 1, "the loaded word is a value once its early read is gone");
    }

    fn kernel(vars: &[Ty], stmts: Vec<Stmt>) -> Kernel {
        Kernel {
            name: "k".into(),
            entry_point: "k".into(),
            workgroup_size: [1, 1, 1],
            vars: vars.iter().map(|&ty| VarInfo { ty, name: Default::default() }).collect(),
            body: Block { stmts },
            shared_words: 0,
            local_words: 0,
            local_placement: Default::default(),
            params: Vec::new(),
            fault_site_var: None,
            fault_sites: Vec::new(),
            param_bytes: 0,
            features: Default::default(),
            functions: Vec::new(),
            printf: Vec::new(),
        }
    }
    fn v(i: u32) -> Operand {
        Operand::Var(VarId(i))
    }
    fn c(x: u32) -> Operand {
        Operand::Const(Const::U32(x))
    }
    fn load(dst: u32, i: u32) -> Stmt {
        Stmt::Assign { dst: VarId(dst), expr: Expr::LoadWord { memory: Memory::Heap, index: c(i) } }
    }
    fn copy(dst: u32, o: Operand) -> Stmt {
        Stmt::Assign { dst: VarId(dst), expr: Expr::Use(o) }
    }
    fn add(dst: u32, a: Operand, b: Operand) -> Stmt {
        Stmt::Assign { dst: VarId(dst), expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: a, rhs: b } }
    }
    fn store(i: u32, o: Operand) -> Stmt {
        Stmt::StoreWord { memory: Memory::Heap, index: c(i), value: o }
    }

    #[test]
    fn copies_of_values_go_and_the_variables_with_them() {
        // v0 = load; v1 = v0; v2 = v1 + 0; store v2 → v0 = load; store v0.
        let mut k = kernel(&[Ty::U32; 3], vec![load(0, 70), copy(1, v(0)), add(2, v(1), c(0)), store(71, v(2))]);
        simplify(&mut k);
        assert_eq!(k.vars.len(), 1);
        assert_eq!(k.body.stmts, vec![load(0, 70), store(71, v(0))]);
    }

    #[test]
    fn a_register_assigned_twice_keeps_its_copies() {
        // v1 = v0 is a copy of a value, but v1 is assigned again in the loop: not a value.
        let body = Block { stmts: vec![add(1, v(1), c(1)), store(71, v(1)), Stmt::Break] };
        let stmts = vec![load(0, 70), copy(1, v(0)), Stmt::Loop { body }];
        let mut k = kernel(&[Ty::U32; 2], stmts.clone());
        simplify(&mut k);
        assert_eq!(k.body.stmts, stmts);
    }

    #[test]
    fn a_read_before_the_assignment_keeps_the_variable() {
        // v1 is read in the loop's first iteration before its only assignment (it holds 0
        // there): not a value, so its copy must stay.
        let body = Block { stmts: vec![store(71, v(1)), copy(1, v(0)), Stmt::Break] };
        let stmts = vec![load(0, 70), Stmt::Loop { body }];
        let mut k = kernel(&[Ty::U32; 2], stmts.clone());
        simplify(&mut k);
        assert_eq!(k.body.stmts, stmts);
    }

    #[test]
    fn a_value_read_after_the_block_of_its_assignment_stays() {
        // v1 = v0 inside an `if`, read after it: not dominated (v1 is 0 when the `if` is
        // not taken).
        let cond = Stmt::Assign { dst: VarId(2), expr: Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: v(0), rhs: c(3) } };
        let stmts = vec![
            load(0, 70),
            cond,
            Stmt::If { cond: v(2), then_body: Block { stmts: vec![copy(1, v(0))] }, else_body: Block::new() },
            store(71, v(1)),
        ];
        let mut k = kernel(&[Ty::U32, Ty::U32, Ty::Bool], stmts.clone());
        simplify(&mut k);
        assert_eq!(k.body.stmts, stmts);
    }

    #[test]
    fn a_repeated_computation_on_values_is_shared_only_where_dominated() {
        let shr = |dst: u32| Stmt::Assign { dst: VarId(dst), expr: Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: v(0), rhs: c(2) } };
        let cond = Stmt::Assign { dst: VarId(4), expr: Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: v(0), rhs: c(3) } };
        // v1 = v0 >> 2 inside an `if`; v2 = v0 >> 2 after it (not dominated by v1: stays);
        // v3 = v0 >> 2 after v2 (dominated by v2: becomes v2).
        let stmts = vec![
            load(0, 70),
            cond,
            Stmt::If { cond: v(4), then_body: Block { stmts: vec![shr(1), store(71, v(1))] }, else_body: Block::new() },
            shr(2),
            store(72, v(2)),
            shr(3),
            store(73, v(3)),
        ];
        let mut k = kernel(&[Ty::U32, Ty::U32, Ty::U32, Ty::U32, Ty::Bool], stmts);
        simplify(&mut k);
        let shrs = k.body.stmts.iter().filter(|s| matches!(s, Stmt::Assign { expr: Expr::Binary { .. }, .. })).count();
        assert_eq!(shrs, 1, "{:#?}", k.body.stmts);
        let Stmt::If { then_body, .. } = &k.body.stmts[2] else { panic!("{:#?}", k.body.stmts) };
        assert!(matches!(then_body.stmts[0], Stmt::Assign { expr: Expr::Binary { .. }, .. }), "{:#?}", k.body.stmts);
        assert_eq!(k.body.stmts[4..], [store(72, v(2)), store(73, v(2))]);
    }

    /// `simplify`, and how many rounds looked for common subexpressions (the confirming ones
    /// run anyway in tests, on a copy, uncounted).
    fn simplify_counting(k: &mut Kernel) -> u32 {
        SHARING_ROUNDS.with(|n| n.set(0));
        simplify(k);
        SHARING_ROUNDS.with(|n| n.get())
    }

    #[test]
    fn a_round_after_a_settled_one_is_skipped() {
        // v2 = v0 + v1 twice: the first round shares them and propagates the copy into the
        // store, which no later walk can share: it ends settled, so no second round runs.
        let mut k = kernel(&[Ty::U32; 4], vec![load(0, 70), load(1, 71), add(2, v(0), v(1)), add(3, v(0), v(1)), store(72, v(2)), store(73, v(3))]);
        assert_eq!(simplify_counting(&mut k), 1);
        assert_eq!(k.body.stmts, vec![load(0, 70), load(1, 71), add(2, v(0), v(1)), store(72, v(2)), store(73, v(2))]);
    }

    #[test]
    fn a_copy_that_makes_two_computations_equal_asks_for_another_round() {
        // v4 = v0 + v2 differs from v3 = v0 + v1 until the copy v2 = v1 is propagated (after
        // the first round's sharing walk): the second round shares them.
        let stmts = vec![load(0, 70), load(1, 71), copy(2, v(1)), add(3, v(0), v(1)), add(4, v(0), v(2)), store(72, v(3)), store(73, v(4))];
        let mut k = kernel(&[Ty::U32; 5], stmts);
        assert_eq!(simplify_counting(&mut k), 2);
        assert_eq!(k.body.stmts, vec![load(0, 70), load(1, 71), add(2, v(0), v(1)), store(72, v(2)), store(73, v(2))]);
    }

    #[test]
    fn loads_stay_when_unread_and_float_adds_of_zero_stay() {
        let fadd = Stmt::Assign {
            dst: VarId(1),
            expr: Expr::Binary { op: BinaryOp::FAdd, ty: Ty::F32, lhs: Operand::Var(VarId(2)), rhs: Operand::Const(Const::F32(0)) },
        };
        let bits = Stmt::Assign { dst: VarId(2), expr: Expr::Convert { op: crate::ir::ConvertOp::Bitcast, from: Ty::U32, to: Ty::F32, arg: v(0) } };
        let back = Stmt::Assign { dst: VarId(3), expr: Expr::Convert { op: crate::ir::ConvertOp::Bitcast, from: Ty::F32, to: Ty::U32, arg: v(1) } };
        let stmts = vec![load(0, 70), bits, fadd, back, store(71, v(3)), load(4, 72)];
        let mut k = kernel(&[Ty::U32, Ty::F32, Ty::F32, Ty::U32, Ty::U32], stmts.clone());
        simplify(&mut k);
        assert_eq!(k.body.stmts, stmts);
    }

    #[test]
    fn a_select_on_a_proven_alignment_test_picks_its_operand() {
        // v1 = v0 << k; misaligned = (v1 & 3) != 0; the store's index select(misaligned,
        // DISCARD, v1 >> 2): with k = 2 the facts prove the test false, so the index is
        // v1 >> 2 itself and the test goes; with k = 1 it stays.
        for (k, decided) in [(2, true), (1, false)] {
            let stmts = vec![
                load(0, 70),
                Stmt::Assign { dst: VarId(1), expr: Expr::Binary { op: BinaryOp::Shl, ty: Ty::U32, lhs: v(0), rhs: c(k) } },
                Stmt::Assign { dst: VarId(2), expr: Expr::Binary { op: BinaryOp::And, ty: Ty::U32, lhs: v(1), rhs: c(3) } },
                Stmt::Assign { dst: VarId(3), expr: Expr::Compare { op: CmpOp::Ne, ty: Ty::U32, lhs: v(2), rhs: c(0) } },
                Stmt::Assign { dst: VarId(4), expr: Expr::Binary { op: BinaryOp::ShrU, ty: Ty::U32, lhs: v(1), rhs: c(2) } },
                Stmt::Assign {
                    dst: VarId(5),
                    expr: Expr::Select { ty: Ty::U32, cond: v(3), a: c(crate::abi::DISCARD_INDEX), b: v(4) },
                },
                Stmt::StoreWord { memory: Memory::Shared, index: v(5), value: v(0) },
            ];
            let mut k = kernel(&[Ty::U32, Ty::U32, Ty::U32, Ty::Bool, Ty::U32, Ty::U32], stmts.clone());
            simplify(&mut k);
            let selects = k.body.stmts.iter().filter(|s| matches!(s, Stmt::Assign { expr: Expr::Select { .. }, .. })).count();
            let compares = k.body.stmts.iter().filter(|s| matches!(s, Stmt::Assign { expr: Expr::Compare { .. }, .. })).count();
            if decided {
                assert_eq!((selects, compares), (0, 0), "{:#?}", k.body.stmts);
                let Some(Stmt::StoreWord { index: Operand::Var(i), .. }) = k.body.stmts.last() else { panic!("{:#?}", k.body.stmts) };
                let Some(Stmt::Assign { expr, .. }) = k.body.stmts.iter().find(|s| matches!(s, Stmt::Assign { dst, .. } if dst == i)) else {
                    panic!("{:#?}", k.body.stmts)
                };
                assert!(matches!(expr, Expr::Binary { op: BinaryOp::ShrU, .. }), "{:#?}", k.body.stmts);
            } else {
                assert_eq!(k.body.stmts, stmts);
            }
        }
    }
}
