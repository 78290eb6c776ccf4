//! Induction variables of a structured loop (issue 11: loop-carried heap indices proven in
//! range at launch, `launch_proof`).
//!
//! **Basic induction variables** ([`analyse_loop`]). A variable `v` of a `Stmt::Loop` body is
//! one when its only assignment in the body (nested statements included) is, at the body's
//! top level, `v = v + s` (or `v = s + v`, `v = v - c` for a constant `c`, or `t = v + s;
//! … v = t` through a temporary `t` assigned once), with `s` loop-invariant (a constant, or a
//! variable the body never assigns), and no `Continue` of this loop can run before that
//! assignment. Then every iteration that goes on to the next one has added `s` exactly once,
//! so at the start of iteration `j` (counted from 0) `v = v₀ + j·s` in the type's modular
//! arithmetic, *exactly* (the closed form is the same modulo 2^w as the repeated sum): the
//! wrap question is left to the evaluation, which treats a result that may leave its type's
//! range as the full range.
//!
//! **The exit test.** A top-level `if c { break }` (the loop goes on iff `!c`) or a final
//! `if c { continue } else { break }` (iff `c`), before which no `Continue` of this loop can
//! run, is executed by every iteration that goes on, and passed by it. When `c` compares an
//! induction variable (before or after its step) with a loop-invariant operand, the loop's
//! iterations are bounded by [`last_iteration`].
//!
//! **Bounding the iteration count** ([`last_iteration`]). Write `T(m) = v₀ + m·s` (exact
//! integers) for the tested value: iteration `j` tests `T(j + δ)`, with `δ` = 1 when the
//! step runs before the test in the body, else 0. Let `P` be the largest `m ≥ 0` that the
//! bounds allow to pass (`T(m) < n` needs `v₀_lo + m·s_lo < n_hi`; `-1` when none does), and
//! `m_top = max(P + 1, δ)`. If `T(m)` stays inside the type's range (unsigned, or signed for
//! a signed test) for every `m ≤ m_top` and every `v₀, s` in their bounds, then every
//! iteration `j` that starts has `j ≤ J = max(0, P + 1 - δ)`: by induction over `j`
//! (iteration `j + 1` starts only if iteration `j`'s test passed; `j ≤ J` gives
//! `j + δ ≤ m_top`, so that test compared the exact `T(j + δ)`, and its passing gives
//! `j + δ ≤ P`). `i != n` is bounded when `s` is a power of two `2^e`, `v₀ ≡ n (mod 2^e)`
//! and `v₀ < n` for every thread: the first `m` with `T(m) = n` is `m* = (n - v₀) / s ≥ 1`,
//! reached without a wrap (`T(m) ≤ n` up to it), so `J ≤ (n_hi - v₀_lo) / s - δ`. Anything
//! else (a zero or possibly negative step, a test that may wrap, `>`/`>=` tests of
//! decreasing loops, an unknown bound) gives no bound: nothing is proven.

use crate::ir::{BinaryOp, Block, CmpOp, Const, Expr, Operand, Stmt, Ty, UnaryOp, VarId};
use std::collections::HashMap;

/// A basic induction variable of a loop: `var` gains `step` once per iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Induction {
    pub var: VarId,
    pub ty: Ty,
    /// Loop-invariant: a constant, or a variable the loop never assigns.
    pub step: Operand,
}

/// The loop goes on only if `ivs[iv] (+ step when after_step) op bound` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitTest {
    pub iv: usize,
    /// `LtU`, `LeU`, `LtS`, `LeS` or `Ne`, the induction variable on the left.
    pub op: CmpOp,
    /// The compared type (`U32` or `U64`).
    pub ty: Ty,
    /// Loop-invariant.
    pub bound: Operand,
    /// The test sees the variable after this iteration's step (`δ = 1`).
    pub after_step: bool,
}

/// What [`analyse_loop`] finds in a loop body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopInduction {
    pub ivs: Vec<Induction>,
    pub exit: Option<ExitTest>,
}

/// Whether a `Continue` of the loop whose body holds `s` can run inside `s` (nested loops'
/// own `Continue`s do not count).
fn may_continue(s: &Stmt) -> bool {
    match s {
        Stmt::Continue => true,
        Stmt::If { then_body, else_body, .. } => then_body.stmts.iter().chain(&else_body.stmts).any(may_continue),
        Stmt::Switch { cases, default, .. } => cases.iter().flat_map(|c| &c.body.stmts).chain(&default.stmts).any(may_continue),
        _ => false,
    }
}

fn count_assignments(b: &Block, counts: &mut HashMap<VarId, usize>) {
    for s in &b.stmts {
        if let Stmt::Assign { dst, .. } = s {
            *counts.entry(*dst).or_default() += 1;
        }
        for body in s.bodies() {
            count_assignments(body, counts);
        }
    }
}

/// `v + s` (either order, or `v - c`) as `(v, s)`, for integer types.
fn step_of(e: &Expr) -> Option<(VarId, Ty, Operand)> {
    match *e {
        Expr::Binary { op: BinaryOp::Add, ty: ty @ (Ty::U32 | Ty::U64), lhs, rhs } => match (lhs, rhs) {
            (Operand::Var(v), s) => Some((v, ty, s)),
            (s, Operand::Var(v)) => Some((v, ty, s)),
            _ => None,
        },
        Expr::Binary { op: BinaryOp::Sub, ty: ty @ (Ty::U32 | Ty::U64), lhs: Operand::Var(v), rhs: Operand::Const(c) } => {
            let neg = match c {
                Const::U32(x) => Const::U32(x.wrapping_neg()),
                Const::U64(x) => Const::U64(x.wrapping_neg()),
                _ => return None,
            };
            Some((v, ty, Operand::Const(neg)))
        }
        _ => None,
    }
}

/// One step of a loop body's *spine*: the statements every iteration that goes on runs, in
/// order, with the exit tests it passes.
enum Item<'a> {
    Stmt(&'a Stmt),
    /// `if c { …; break }` (the iteration goes on iff `c == goes_on`; the spine continues in
    /// the other branch, then after the `if`; the branch that breaks, or returns, cannot
    /// `continue`), e.g. a final `if c { continue } else { break }`.
    Exit { c: Operand, goes_on: bool },
}

/// Appends the spine of `stmts` to `out`; `false` once it has ended (at a `continue`).
fn spine<'a>(stmts: &'a [Stmt], out: &mut Vec<Item<'a>>) -> bool {
    // A branch that leaves the loop: it ends in `break` or `return`, and cannot `continue`.
    let leaves = |b: &Block| matches!(b.stmts.last(), Some(Stmt::Break | Stmt::Return)) && !b.stmts.iter().any(may_continue);
    for s in stmts {
        match s {
            Stmt::Continue => return false,
            Stmt::If { cond, then_body, else_body } if leaves(then_body) && !leaves(else_body) => {
                out.push(Item::Exit { c: *cond, goes_on: false });
                if !spine(&else_body.stmts, out) {
                    return false;
                }
            }
            Stmt::If { cond, then_body, else_body } if leaves(else_body) && !leaves(then_body) => {
                out.push(Item::Exit { c: *cond, goes_on: true });
                if !spine(&then_body.stmts, out) {
                    return false;
                }
            }
            s => out.push(Item::Stmt(s)),
        }
    }
    true
}

/// What both loop analyses start from: how often each variable is assigned in the loop body,
/// the body's spine up to the first item that may `continue` the loop (nothing at or after it
/// is run by every iteration that goes on), and the spine's single assignments: var ->
/// (position, expr).
struct Spine<'a> {
    counts: HashMap<VarId, usize>,
    items: Vec<Item<'a>>,
    top: HashMap<VarId, (usize, &'a Expr)>,
}

fn spine_before_continue(body: &Block) -> Spine<'_> {
    let mut counts = HashMap::new();
    count_assignments(body, &mut counts);
    let mut items = Vec::new();
    spine(&body.stmts, &mut items);
    let first_continue = items.iter().position(|i| matches!(i, Item::Stmt(s) if may_continue(s))).unwrap_or(usize::MAX);
    items.truncate(first_continue);
    let mut top = HashMap::new();
    for (p, i) in items.iter().enumerate() {
        if let Item::Stmt(Stmt::Assign { dst, expr }) = i {
            if counts.get(dst).copied() == Some(1) {
                top.insert(*dst, (p, expr));
            }
        }
    }
    Spine { counts, items, top }
}

/// The basic induction variables and the usable exit test of the loop with body `body` (see
/// the module doc). Positions below are on the body's spine (`Item`): the top-level
/// statements, continued into the branch of an `if c { break }` that goes on.
pub fn analyse_loop(body: &Block) -> LoopInduction {
    let Spine { counts, items, top } = spine_before_continue(body);
    let assigned_once = |v: VarId| counts.get(&v).copied() == Some(1);
    let invariant = |o: Operand| match o {
        Operand::Const(c) => matches!(c, Const::U32(_) | Const::U64(_)),
        Operand::Var(v) => !counts.contains_key(&v),
    };
    let mut out = LoopInduction::default();
    // Per induction variable: the position of its step, and the temporary holding `v + s`
    // (with its position) when the step goes through one.
    let mut steps: Vec<(usize, Option<(VarId, usize)>)> = Vec::new();
    for (p, i) in items.iter().enumerate() {
        let Item::Stmt(Stmt::Assign { dst: v, expr }) = i else { continue };
        if !assigned_once(*v) {
            continue;
        }
        let (src, ty, step, temp) = match expr {
            Expr::Use(Operand::Var(t)) => match top.get(t) {
                Some(&(pt, e)) if pt < p => match step_of(e) {
                    Some((src, ty, step)) => (src, ty, step, Some((*t, pt))),
                    None => continue,
                },
                _ => continue,
            },
            e => match step_of(e) {
                Some((src, ty, step)) => (src, ty, step, None),
                None => continue,
            },
        };
        if src != *v || !invariant(step) || out.ivs.iter().any(|iv| iv.var == *v) {
            continue;
        }
        if let Operand::Const(c) = step {
            if c.ty() != ty {
                continue;
            }
        }
        out.ivs.push(Induction { var: *v, ty, step });
        steps.push((p, temp));
    }
    // The exit test: the first usable one.
    for (p, i) in items.iter().enumerate() {
        let Item::Exit { c: Operand::Var(c), goes_on } = *i else { continue };
        if let Some(t) = exit_test(c, goes_on, p, &top, &out.ivs, &steps, &invariant) {
            out.exit = Some(t);
            break;
        }
    }
    out
}

/// Whether a loop with body `body` runs at most one iteration per entry: its last top-level
/// statement is a `break` or `return` and nothing in it can `continue` it (the structurizer's
/// single-pass loops). It then takes no back-edge.
pub fn runs_once(body: &Block) -> bool {
    matches!(body.stmts.last(), Some(Stmt::Break | Stmt::Return)) && !body.stmts.iter().any(may_continue)
}

/// A *halving* loop (reduce's `for (s = n / 2; s > 0; s >>= 1)`): a variable `v` whose only
/// assignment in the body is `v = v >>u c` (or `t = v >>u c; … v = t`), `c` a constant in
/// `[1, width)`, on the spine before any `continue`, and an exit test on the spine after that
/// step by which the loop goes on only if `v != 0` (`v != 0`, `0 != v`, `v >u 0`, `0 <u v`,
/// or `v == 0` breaking). Returns `(v, c)`. In iteration `j` the test sees `v₀ >> ((j + 1)·c)`
/// exactly (a logical shift of an unsigned value never wraps), so iteration `j + 1` starts only
/// if `(j + 1)·c < bitlen(v₀)`: at most `bitlen(v₀) / c + 1` iterations start per entry
/// (`launch_proof`'s loop budget).
pub fn halving_loop(body: &Block) -> Option<(VarId, u32)> {
    let Spine { counts, items, top } = spine_before_continue(body);
    let once = |v: VarId| counts.get(&v).copied() == Some(1);
    let shr = |e: &Expr| match *e {
        Expr::Binary { op: BinaryOp::ShrU, ty: ty @ (Ty::U32 | Ty::U64), lhs: Operand::Var(v), rhs: Operand::Const(c) }
            if c.ty() == Ty::U32 && c.bits() >= 1 && c.bits() < u64::from(ty.bits()) =>
        {
            Some((v, c.bits() as u32))
        }
        _ => None,
    };
    // (v, shift, position of v's step)
    let mut steps: Vec<(VarId, u32, usize)> = Vec::new();
    for (p, i) in items.iter().enumerate() {
        let Item::Stmt(Stmt::Assign { dst: v, expr }) = i else { continue };
        if !once(*v) {
            continue;
        }
        let found = match expr {
            Expr::Use(Operand::Var(t)) => match top.get(t) {
                Some(&(pt, e)) if pt < p => shr(e),
                _ => None,
            },
            e => shr(e),
        };
        if let Some((src, c)) = found {
            if src == *v {
                steps.push((*v, c, p));
            }
        }
    }
    for (p, i) in items.iter().enumerate() {
        let Item::Exit { c: Operand::Var(c), goes_on } = *i else { continue };
        let Some(&(pc, e)) = top.get(&c) else { continue };
        if pc >= p {
            continue;
        }
        let Expr::Compare { op, lhs, rhs, .. } = *e else { continue };
        let zero = |o: Operand| matches!(o, Operand::Const(k) if k.bits() == 0 && matches!(k.ty(), Ty::U32 | Ty::U64));
        let (x, op) = match (lhs, rhs) {
            (Operand::Var(x), z) if zero(z) => (x, op),
            (z, Operand::Var(x)) if zero(z) => (x, swap(op)),
            _ => continue,
        };
        // The loop goes on only if `x != 0`.
        let nonzero = matches!((op, goes_on), (CmpOp::Ne | CmpOp::GtU, true) | (CmpOp::Eq, false));
        if !nonzero {
            continue;
        }
        if let Some(&(v, c, _)) = steps.iter().find(|&&(v, _, ps)| v == x && ps < pc) {
            return Some((v, c));
        }
    }
    None
}

/// The exit test decided by `c` (the loop goes on iff `c == goes_on`), at spine position
/// `p`, normalised to `iv op bound`.
fn exit_test(
    c: VarId,
    goes_on: bool,
    p: usize,
    top: &HashMap<VarId, (usize, &Expr)>,
    ivs: &[Induction],
    steps: &[(usize, Option<(VarId, usize)>)],
    invariant: &dyn Fn(Operand) -> bool,
) -> Option<ExitTest> {
    let (mut pc, mut e) = *top.get(&c)?;
    if pc >= p {
        return None;
    }
    let mut goes_on = goes_on;
    if let Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg: Operand::Var(a) } = e {
        let (pa, ea) = *top.get(a)?;
        if pa >= pc {
            return None;
        }
        (pc, e) = (pa, ea);
        goes_on = !goes_on;
    }
    let Expr::Compare { op, ty, lhs, rhs } = *e else { return None };
    let op = if goes_on { op } else { op.integer_negation()? };
    // The induction variable's side: `v` (seen before or after its step, by position) or
    // its step's temporary (after).
    let side = |o: Operand| -> Option<(usize, bool)> {
        let Operand::Var(x) = o else { return None };
        for (i, iv) in ivs.iter().enumerate() {
            let (ps, temp) = steps[i];
            if iv.var == x {
                return Some((i, ps < pc));
            }
            if let Some((t, pt)) = temp {
                if t == x && pt < pc {
                    return Some((i, true));
                }
            }
        }
        None
    };
    let (iv, after_step, bound, op) = match (side(lhs), side(rhs)) {
        (Some((i, a)), None) => (i, a, rhs, op),
        (None, Some((i, a))) => (i, a, lhs, swap(op)),
        _ => return None,
    };
    if !invariant(bound) || ivs[iv].ty != ty || !matches!(op, CmpOp::LtU | CmpOp::LeU | CmpOp::LtS | CmpOp::LeS | CmpOp::Ne) {
        return None;
    }
    Some(ExitTest { iv, op, ty, bound, after_step })
}


/// `a op b` as `b op' a`.
fn swap(op: CmpOp) -> CmpOp {
    use CmpOp::*;
    match op {
        LtU => GtU,
        GtU => LtU,
        LeU => GeU,
        GeU => LeU,
        LtS => GtS,
        GtS => LtS,
        LeS => GeS,
        GeS => LeS,
        other => other,
    }
}

/// Bounds on a `w`-bit value over the threads of a launch: `lo <= v <= hi` (unsigned) and
/// `v ≡ r (mod 2^k)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lo: u128,
    pub hi: u128,
    pub k: u32,
    pub r: u128,
}

impl Bounds {
    /// The signed range, when it does not straddle the sign change.
    fn signed(&self, w: u32) -> Option<(i128, i128)> {
        let half = 1u128 << (w - 1);
        if self.hi < half {
            Some((self.lo as i128, self.hi as i128))
        } else if self.lo >= half {
            let full = (1u128 << w) as i128;
            Some((self.lo as i128 - full, self.hi as i128 - full))
        } else {
            None
        }
    }
}

/// The last iteration (counted from 0) that can start, of a loop whose exit test (see
/// [`ExitTest`]) compares `T(j + δ) = init + (j + δ)·step` with `bound` in `w` bits (`δ` =
/// `after_step`), given bounds on the three; `None` when no bound can be shown (see the
/// module doc for the argument).
pub fn last_iteration(op: CmpOp, w: u32, init: Bounds, step: Bounds, bound: Bounds, after_step: bool) -> Option<u128> {
    if !(1..=64).contains(&w) {
        return None;
    }
    let delta = after_step as i128;
    match op {
        CmpOp::LtU | CmpOp::LeU | CmpOp::LtS | CmpOp::LeS => {
            let signed = matches!(op, CmpOp::LtS | CmpOp::LeS);
            let range = |b: Bounds| if signed { b.signed(w) } else { Some((b.lo as i128, b.hi as i128)) };
            let ((i_lo, i_hi), (s_lo, s_hi), (_, n_hi)) = (range(init)?, range(step)?, range(bound)?);
            if s_lo < 1 {
                return None;
            }
            let max_value = if signed { (1i128 << (w - 1)) - 1 } else { (1i128 << w) - 1 };
            // T(m) passes only if T(m) <= limit.
            let limit = if matches!(op, CmpOp::LtU | CmpOp::LtS) { n_hi - 1 } else { n_hi };
            let max_pass = if limit < i_lo { -1 } else { (limit - i_lo) / s_lo };
            let m_top = (max_pass + 1).max(delta);
            // Values stay below 2^66: no i128 overflow.
            if i_hi + m_top * s_hi > max_value {
                return None;
            }
            Some((max_pass + 1 - delta).max(0) as u128)
        }
        CmpOp::Ne => {
            // A power-of-two step, `init ≡ bound` modulo it, and `init < bound` for every
            // thread: the loop stops exactly when `T(m) = bound`.
            if step.lo != step.hi || step.lo == 0 || !step.lo.is_power_of_two() || step.lo >= (1u128 << w) {
                return None;
            }
            let s = step.lo;
            let e = s.trailing_zeros();
            if init.k < e || bound.k < e || init.r % s != bound.r % s || init.hi >= bound.lo {
                return None;
            }
            let m_star = (bound.hi - init.lo) / s;
            Some(m_star.saturating_sub(delta as u128))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(i: u32) -> VarId {
        VarId(i)
    }
    fn block(stmts: Vec<Stmt>) -> Block {
        Block { stmts }
    }
    /// `loop { PRE; i = i + 1; c = i < n; if c { continue } else { break } }` (i = v0,
    /// n = v1).
    fn counted(pre: Vec<Stmt>) -> Block {
        let mut stmts = pre;
        stmts.push(Stmt::Assign { dst: v(0), expr: Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: Operand::Var(v(0)), rhs: Operand::Const(Const::U32(1)) } });
        stmts.push(Stmt::Assign { dst: v(2), expr: Expr::Compare { op: CmpOp::LtU, ty: Ty::U32, lhs: Operand::Var(v(0)), rhs: Operand::Var(v(1)) } });
        stmts.push(Stmt::If { cond: Operand::Var(v(2)), then_body: block(vec![Stmt::Continue]), else_body: block(vec![Stmt::Break]) });
        block(stmts)
    }

    #[test]
    fn a_counted_loop_has_its_variable_and_test() {
        let l = analyse_loop(&counted(vec![]));
        assert_eq!(l.ivs, vec![Induction { var: v(0), ty: Ty::U32, step: Operand::Const(Const::U32(1)) }]);
        assert_eq!(l.exit, Some(ExitTest { iv: 0, op: CmpOp::LtU, ty: Ty::U32, bound: Operand::Var(v(1)), after_step: true }));
    }

    #[test]
    fn a_continue_before_the_step_hides_it() {
        // `if c { continue }` at the top level, before the step: an iteration may go on
        // without it.
        let pre = vec![Stmt::If { cond: Operand::Var(v(3)), then_body: block(vec![Stmt::Continue]), else_body: block(vec![]) }];
        let l = analyse_loop(&counted(pre));
        assert_eq!(l, LoopInduction::default());
        // A `continue` of a nested loop does not count.
        let inner = Stmt::Loop { body: block(vec![Stmt::If { cond: Operand::Var(v(3)), then_body: block(vec![Stmt::Continue]), else_body: block(vec![Stmt::Break]) }]) };
        assert_eq!(analyse_loop(&counted(vec![inner])).ivs.len(), 1);
    }

    #[test]
    fn a_bound_assigned_in_the_loop_is_no_bound() {
        let pre = vec![Stmt::Assign { dst: v(1), expr: Expr::Use(Operand::Const(Const::U32(5))) }];
        let l = analyse_loop(&counted(pre));
        assert_eq!(l.ivs.len(), 1);
        assert_eq!(l.exit, None);
    }

    fn b(lo: u128, hi: u128) -> Bounds {
        Bounds { lo, hi, k: 0, r: 0 }
    }
    fn p(x: u128) -> Bounds {
        Bounds { lo: x, hi: x, k: 32, r: x }
    }

    #[test]
    fn trip_bounds_by_hand() {
        use CmpOp::*;
        // i = 0; do { i += 16 } while (i < 256): iterations 0..=15.
        assert_eq!(last_iteration(LtS, 32, p(0), p(16), p(256), true), Some(15));
        // The same tested before the step (`while (i < 256) { i += 16 }`): the test of
        // iteration 16 fails, but that iteration has started.
        assert_eq!(last_iteration(LtS, 32, p(0), p(16), p(256), false), Some(16));
        // i from [0, 63], step 64, n up to 1000: tests pass while 64 m <= 999.
        assert_eq!(last_iteration(LtU, 32, b(0, 63), p(64), b(10, 1000), false), Some(16));
        assert_eq!(last_iteration(LeU, 32, p(0), p(1), p(10), true), Some(10));
        // Step 0, or one that may be 0.
        assert_eq!(last_iteration(LtU, 32, p(0), p(0), p(10), true), None);
        assert_eq!(last_iteration(LtU, 32, p(0), b(0, 4), p(10), true), None);
        // A test that may see a wrapped value.
        assert_eq!(last_iteration(LtU, 32, p(0), p(0xc000_0000), p(0xf000_0000), true), None);
        assert_eq!(last_iteration(LtS, 32, p(0), p(0x4000_0000), p(0x7fff_ffff), true), None);
        // `!=`: congruent and below n.
        assert_eq!(last_iteration(Ne, 32, p(0), p(2), p(10), true), Some(4));
        assert_eq!(last_iteration(Ne, 32, p(0), p(4), p(10), true), None);
        assert_eq!(last_iteration(Ne, 32, p(10), p(1), p(10), true), None);
    }
}
