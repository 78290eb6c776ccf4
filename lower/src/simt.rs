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
        for (block, &d) in cfg.blocks.iter().zip(&block_div) {
            changed |= mark_stmts(&block.stmts, d, &mut var_div);
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
        Expr::LoadWord { .. } | Expr::LoadDword { .. } | Expr::AtomicWord { .. } | Expr::AtomicDword { .. } => true,
        // The same value in every thread (its precondition: a uniform index).
        Expr::SharedUniformLoad { index } => op(index),
        // Per warp, not per CTA.
        Expr::WarpBallot { .. } | Expr::WarpShuffle { .. } => true,
        // A function of its arguments only (`ir::Function`).
        Expr::Call { args, .. } => args.iter().any(op),
    }
}

// ---- Making barriers uniform ------------------------------------------------------------------
//
// When `check_barriers` finds a barrier some threads could skip, the structured body is
// rewritten so that every thread of the CTA executes every barrier (spec §9.7.13.4: `bar.sync`
// waits for the CTA's non-exited threads), with each thread's own effects predicated:
//
// - `Return` clears a thread-private `active` flag instead of leaving; the thread keeps running
//   (with every side effect masked off) to reach the remaining barriers.
// - An `If` on a divergent condition that contains a barrier runs both arms for every thread,
//   each statement under the thread's mask (`mask && cond`, `mask && !cond`).
// - A `Loop` containing a barrier whose exits depend on divergent values runs until no thread of
//   the CTA wants another iteration: `Break`/`Continue` clear per-thread `live`/`cont` flags,
//   and at the end of each iteration the CTA votes (one workgroup OR through shared scratch
//   words, one barrier) whether to go on.
// - Statements without barriers stay as they are, under `if mask { … }`, with their `Return`s
//   (and exits of the rewritten loop) turned into flag updates.
//
// Whether a condition is uniform is decided on the *output*: the rewrite is repeated with the
// divergence found in its own result until nothing changes, and a last check confirms that
// every emitted barrier is in uniform control flow (or the kernel is refused).

use crate::ir::{AtomicOp, BinaryOp, Block, CmpOp, Const, Ty, UnaryOp, VarId};
use rustc_hash::{FxHashMap, FxHashSet as HashSet};

const TRUE: Operand = Operand::Const(Const::Bool(true));

/// Rewrites `body` so that every barrier is reached by all threads of the CTA. Adds three
/// shared words (the vote scratch) to `shared_words` when a loop needs a vote. `Err(())` if the
/// rewrite could not make every barrier uniform.
pub fn uniformize(body: &Block, vars: &mut Vec<VarInfo>, shared_words: &mut u32) -> Result<Block, ()> {
    let original = vars.len();
    let mut div = vec![false; original];
    // The input body stays as it is through every round: what its statements contain is
    // found once.
    let summary = Summary::of(body);
    for _ in 0..16 {
        // Each round starts from the kernel's own variables (the previous round's additions
        // go; cloning the list per round cost more than the rewrite on CUB's kernels).
        vars.truncate(original);
        let mut tx = Tx::new(&div, &summary, vars, *shared_words);
        let out = tx.run(body);
        let (uniform_vars, used_vote) = (std::mem::take(&mut tx.uniform_vars), tx.used_vote);
        let out_div = output_divergence(&out, vars.len(), &uniform_vars);
        let grown: Vec<bool> = (0..original).map(|i| div[i] || out_div.vars[i]).collect();
        if grown == div {
            if out_div.barrier_divergent {
                vars.truncate(original);
                return Err(());
            }
            if used_vote {
                *shared_words += VOTE_WORDS;
            }
            return Ok(out);
        }
        div = grown;
    }
    vars.truncate(original);
    Err(())
}

const VOTE_WORDS: u32 = 3;

/// Refuses a structured body with a barrier under divergent control (`span`: the kernel).
pub fn check_structured(body: &Block, nvars: usize, span: Span) -> Result<(), Diagnostic> {
    if output_divergence(body, nvars, &HashSet::default()).barrier_divergent {
        Err(unsupported("a barrier (or warp collective) under thread-dependent control flow", span))
    } else {
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum LoopKind {
    /// A barrier loop whose exits all threads take together: kept as it is.
    Uniform,
    /// A barrier loop with divergent exits: run until the CTA votes to stop.
    Divergent { live: VarId, cont: VarId },
}

#[derive(Clone, Copy)]
struct Cx {
    /// The thread's mask: does it logically execute here.
    mask: Operand,
    /// The mask without `active`: guards pure assignments, which returned threads may execute
    /// harmlessly (so values all threads compute stay uniform).
    pmask: Operand,
    /// The innermost enclosing barrier loop.
    lp: Option<LoopKind>,
}

struct Tx<'a> {
    div: &'a [bool],
    /// What the input body's statements contain (`Tx` reads only input statements).
    summary: &'a Summary,
    vars: &'a mut Vec<VarInfo>,
    active: Option<VarId>,
    /// Rotating index (0, 1, 2) of the vote word; uniform.
    vote_par: Option<VarId>,
    vote_base: u32,
    used_vote: bool,
    uniform_vars: HashSet<VarId>,
    prologue: Vec<Stmt>,
}

impl<'a> Tx<'a> {
    fn new(div: &'a [bool], summary: &'a Summary, vars: &'a mut Vec<VarInfo>, vote_base: u32) -> Tx<'a> {
        Tx { div, summary, vars, active: None, vote_par: None, vote_base, used_vote: false, uniform_vars: HashSet::default(), prologue: Vec::new() }
    }

    fn run(&mut self, body: &Block) -> Block {
        if body.stmts.iter().any(|s| self.summary.has(s, Summary::RETURN)) {
            let a = self.var(Ty::Bool, "active (not returned)");
            self.prologue.push(assign(a, Expr::Use(TRUE)));
            self.active = Some(a);
        }
        let stmts = self.u_block(&body.stmts, Cx { mask: TRUE, pmask: TRUE, lp: None });
        let mut all = std::mem::take(&mut self.prologue);
        all.extend(stmts);
        Block { stmts: all }
    }

    fn var(&mut self, ty: Ty, name: &str) -> VarId {
        self.vars.push(VarInfo { ty, name: name.into() });
        VarId(self.vars.len() as u32 - 1)
    }

    fn is_div(&self, o: Operand) -> bool {
        matches!(o, Operand::Var(v) if self.div.get(v.index()).copied().unwrap_or(true))
    }

    /// `a && b` into a fresh variable (constant-folding `true`).
    fn and(&mut self, out: &mut Vec<Stmt>, a: Operand, b: Operand) -> Operand {
        match (a, b) {
            (TRUE, x) | (x, TRUE) => x,
            _ => {
                let v = self.var(Ty::Bool, "mask");
                out.push(assign(v, Expr::Binary { op: BinaryOp::And, ty: Ty::Bool, lhs: a, rhs: b }));
                Operand::Var(v)
            }
        }
    }

    fn not(&mut self, out: &mut Vec<Stmt>, a: Operand) -> Operand {
        let v = self.var(Ty::Bool, "mask");
        out.push(assign(v, Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg: a }));
        Operand::Var(v)
    }

    /// The flags a thread's exits clear, as one condition ("still executing").
    fn flags(&mut self, out: &mut Vec<Stmt>, lp: Option<LoopKind>) -> Operand {
        let mut ok = self.active.map(Operand::Var).unwrap_or(TRUE);
        if let Some(LoopKind::Divergent { live, cont }) = lp {
            ok = self.and(out, ok, Operand::Var(live));
            ok = self.and(out, ok, Operand::Var(cont));
        }
        ok
    }

    fn u_block(&mut self, stmts: &[Stmt], cx: Cx) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        let (mut mask, mut pmask) = (cx.mask, cx.pmask);
        // The last statement pushed is an `if mask { … }` that later guarded statements may join.
        let mut last_guarded = false;
        for s in stmts {
            let here = Cx { mask, pmask, lp: cx.lp };
            let clears = self.summary.may_clear(s, cx.lp);
            let structural = self.summary.structural(s, cx.lp);
            if structural {
                last_guarded = false;
            }
            if !structural {
                // A pure assignment runs under `pmask` so that returned threads keep computing
                // values that may decide uniform control flow. A variable already known to be
                // divergent never decides it (a divergent condition gets the predicated
                // treatment), so its assignments take `mask` like their neighbours: one `if`
                // for a run of statements instead of alternating `if pmask` / `if mask`, whose
                // values then cross the `if`s as variables (CUB's radix sorts: a third of
                // their statements). Returned threads then skip it; no effect of theirs reads it.
                let pure = matches!(s, Stmt::Assign { dst, expr } if is_pure(expr) && !self.is_div(Operand::Var(*dst)));
                let guard = if pure { pmask } else { mask };
                // Converted straight into where it goes, without a `Vec` per statement.
                let one = std::slice::from_ref(s);
                if guard == TRUE {
                    self.n_stmts_into(one, 0, cx.lp, &mut out);
                } else if let (Some(Stmt::If { cond, then_body, else_body }), true) = (out.last_mut(), last_guarded) {
                    // Consecutive statements under the same mask share one `if`.
                    if *cond == guard && else_body.stmts.is_empty() {
                        self.n_stmts_into(one, 0, cx.lp, &mut then_body.stmts);
                    } else {
                        let converted = self.n_stmts(one, 0, cx.lp);
                        out.push(Stmt::If { cond: guard, then_body: Block { stmts: converted }, else_body: Block::new() });
                    }
                } else {
                    let converted = self.n_stmts(one, 0, cx.lp);
                    out.push(Stmt::If { cond: guard, then_body: Block { stmts: converted }, else_body: Block::new() });
                }
                last_guarded = guard != TRUE && !clears;
            } else {
                match s {
                    Stmt::Barrier | Stmt::SharedBarrier => out.push(s.clone()),
                    // A native warp collective: run by every thread; a ballot counts the
                    // threads that logically execute it (the mask) only.
                    Stmt::Assign { dst, expr: Expr::WarpBallot { pred } } => {
                        let p = self.and(&mut out, mask, *pred);
                        out.push(assign(*dst, Expr::WarpBallot { pred: p }));
                    }
                    Stmt::Assign { expr, .. } if expr.is_warp_collective() => out.push(s.clone()),
                    Stmt::Break | Stmt::Continue => {
                        out.push(s.clone());
                        return out;
                    }
                    Stmt::If { cond, then_body, else_body } => {
                        if !self.is_div(*cond) {
                            let t = self.u_block(&then_body.stmts, here);
                            let e = self.u_block(&else_body.stmts, here);
                            out.push(Stmt::If { cond: *cond, then_body: Block { stmts: t }, else_body: Block { stmts: e } });
                        } else {
                            let c = self.var(Ty::Bool, "branch condition");
                            out.push(assign(c, Expr::Use(*cond)));
                            let nc = self.not(&mut out, Operand::Var(c));
                            let (m1, p1) = (self.and(&mut out, mask, Operand::Var(c)), self.and(&mut out, pmask, Operand::Var(c)));
                            let (m2, p2) = (self.and(&mut out, mask, nc), self.and(&mut out, pmask, nc));
                            let t = self.u_block(&then_body.stmts, Cx { mask: m1, pmask: p1, lp: cx.lp });
                            out.extend(t);
                            let e = self.u_block(&else_body.stmts, Cx { mask: m2, pmask: p2, lp: cx.lp });
                            out.extend(e);
                        }
                    }
                    Stmt::Loop { body } => {
                        if loop_exits_uniform(&body.stmts, self.div, self.summary) {
                            let b = self.u_block(&body.stmts, Cx { mask, pmask, lp: Some(LoopKind::Uniform) });
                            out.push(Stmt::Loop { body: Block { stmts: b } });
                        } else {
                            out.extend(self.divergent_loop(&body.stmts, mask));
                        }
                    }
                    Stmt::Switch { selector, cases, default } => {
                        if !self.is_div(*selector) {
                            let cases = cases
                                .iter()
                                .map(|c| crate::ir::SwitchCase { values: c.values.clone(), body: Block { stmts: self.u_block(&c.body.stmts, here) } })
                                .collect();
                            let default = Block { stmts: self.u_block(&default.stmts, here) };
                            out.push(Stmt::Switch { selector: *selector, cases, default });
                        } else {
                            // Each case in turn, predicated on the selector matching it.
                            let sel = self.var(Ty::U32, "switch selector");
                            out.push(assign(sel, Expr::Use(*selector)));
                            let mut none = TRUE;
                            for case in cases {
                                let mut hit = Operand::Const(Const::Bool(false));
                                for &v in &case.values {
                                    let eq = self.var(Ty::Bool, "case");
                                    out.push(assign(eq, Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: Operand::Var(sel), rhs: Operand::Const(Const::U32(v)) }));
                                    let h = self.var(Ty::Bool, "case");
                                    out.push(assign(h, Expr::Binary { op: BinaryOp::Or, ty: Ty::Bool, lhs: hit, rhs: Operand::Var(eq) }));
                                    hit = Operand::Var(h);
                                }
                                let miss = self.not(&mut out, hit);
                                none = self.and(&mut out, none, miss);
                                let (m1, p1) = (self.and(&mut out, mask, hit), self.and(&mut out, pmask, hit));
                                let b = self.u_block(&case.body.stmts, Cx { mask: m1, pmask: p1, lp: cx.lp });
                                out.extend(b);
                            }
                            let (m2, p2) = (self.and(&mut out, mask, none), self.and(&mut out, pmask, none));
                            let b = self.u_block(&default.stmts, Cx { mask: m2, pmask: p2, lp: cx.lp });
                            out.extend(b);
                        }
                    }
                    _ => unreachable!("only barriers, exits, ifs, switches and loops are structural"),
                }
            }
            if clears {
                let ok = self.flags(&mut out, cx.lp);
                mask = self.and(&mut out, mask, ok);
                let pok = match cx.lp {
                    Some(LoopKind::Divergent { live, cont }) => self.and(&mut out, Operand::Var(live), Operand::Var(cont)),
                    _ => TRUE,
                };
                pmask = self.and(&mut out, pmask, pok);
            }
        }
        out
    }

    /// A barrier loop with divergent exits, entered by the threads in `mask`.
    fn divergent_loop(&mut self, body: &[Stmt], mask: Operand) -> Vec<Stmt> {
        let live = self.var(Ty::Bool, "loop live");
        let cont = self.var(Ty::Bool, "loop cont");
        let mut out = vec![assign(live, Expr::Use(mask))];
        let lp = Some(LoopKind::Divergent { live, cont });
        let mut b = vec![assign(cont, Expr::Use(TRUE))];
        let mut m = Operand::Var(live);
        if let Some(a) = self.active {
            m = self.and(&mut b, m, Operand::Var(a));
        }
        let pm = Operand::Var(live);
        let inner = self.u_block(body, Cx { mask: m, pmask: pm, lp });
        b.extend(inner);
        // Another iteration while any thread is live (and not returned).
        let mut want = Operand::Var(live);
        if let Some(a) = self.active {
            want = self.and(&mut b, want, Operand::Var(a));
        }
        let any = self.vote_any(&mut b, want);
        let stop = self.not(&mut b, any);
        b.push(Stmt::If { cond: stop, then_body: Block { stmts: vec![Stmt::Break] }, else_body: Block::new() });
        out.push(Stmt::Loop { body: Block { stmts: b } });
        out
    }

    /// Workgroup-wide OR of `x`: three shared words used in rotation, one barrier per vote.
    /// Vote k: thread 0 clears word k+1, threads with `x` set word k, barrier, all read word k
    /// (barrier and read are one `SharedUniformLoad`).
    /// Word k+1 was last read in vote k-2 (before the barrier of vote k-1), and is next set in
    /// vote k+1 (after this barrier), so no access races.
    fn vote_any(&mut self, out: &mut Vec<Stmt>, x: Operand) -> Operand {
        let par = match self.vote_par {
            Some(p) => p,
            None => {
                let p = self.var(Ty::U32, "vote word");
                self.uniform_vars.insert(p);
                self.prologue.push(assign(p, Expr::Use(Operand::Const(Const::U32(0)))));
                // Word 0 must start cleared (lavapipe does not zero workgroup memory).
                let mut pre = Vec::new();
                let first = self.thread_zero(&mut pre);
                self.prologue.extend(pre);
                self.prologue.push(Stmt::If {
                    cond: Operand::Var(first),
                    then_body: Block {
                        stmts: vec![Stmt::StoreWord {
                            memory: Memory::Shared,
                            index: Operand::Const(Const::U32(self.vote_base)),
                            value: Operand::Const(Const::U32(0)),
                        }],
                    },
                    else_body: Block::new(),
                });
                self.prologue.push(Stmt::Barrier);
                self.vote_par = Some(p);
                self.used_vote = true;
                p
            }
        };
        let u32c = |v: u32| Operand::Const(Const::U32(v));
        let word = self.var(Ty::U32, "vote word index");
        self.uniform_vars.insert(word);
        out.push(assign(word, Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: Operand::Var(par), rhs: u32c(self.vote_base) }));
        // next = (par + 1) % 3
        let inc = self.var(Ty::U32, "vote word");
        let wrap = self.var(Ty::Bool, "vote wrap");
        let next = self.var(Ty::U32, "vote word");
        let next_word = self.var(Ty::U32, "vote word index");
        for v in [inc, wrap, next, next_word] {
            self.uniform_vars.insert(v);
        }
        out.push(assign(inc, Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: Operand::Var(par), rhs: u32c(1) }));
        out.push(assign(wrap, Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: Operand::Var(inc), rhs: u32c(VOTE_WORDS) }));
        out.push(assign(next, Expr::Select { ty: Ty::U32, cond: Operand::Var(wrap), a: u32c(0), b: Operand::Var(inc) }));
        out.push(assign(next_word, Expr::Binary { op: BinaryOp::Add, ty: Ty::U32, lhs: Operand::Var(next), rhs: u32c(self.vote_base) }));
        let first = self.thread_zero(out);
        out.push(Stmt::If {
            cond: Operand::Var(first),
            then_body: Block { stmts: vec![Stmt::StoreWord { memory: Memory::Shared, index: Operand::Var(next_word), value: u32c(0) }] },
            else_body: Block::new(),
        });
        let t = self.var(Ty::U32, "t");
        out.push(Stmt::If {
            cond: x,
            then_body: Block {
                stmts: vec![assign(
                    t,
                    Expr::AtomicWord { memory: Memory::Shared, op: AtomicOp::Or, index: Operand::Var(word), value: u32c(1), comparand: None },
                )],
            },
            else_body: Block::new(),
        });
        let got = self.var(Ty::U32, "vote");
        let any = self.var(Ty::Bool, "vote any");
        self.uniform_vars.insert(got);
        self.uniform_vars.insert(any);
        // Barrier and read in one: browsers accept the loop's exit on the result as uniform.
        out.push(assign(got, Expr::SharedUniformLoad { index: Operand::Var(word) }));
        out.push(assign(any, Expr::Compare { op: CmpOp::Ne, ty: Ty::U32, lhs: Operand::Var(got), rhs: u32c(0) }));
        out.push(assign(par, Expr::Use(Operand::Var(next))));
        Operand::Var(any)
    }

    /// A fresh Bool: is this thread (0, 0, 0) of the CTA.
    fn thread_zero(&mut self, out: &mut Vec<Stmt>) -> VarId {
        let v = self.var(Ty::Bool, "thread zero");
        out.extend(self.thread_zero_stmts(v));
        v
    }

    fn thread_zero_stmts(&mut self, dst: VarId) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut acc = TRUE;
        for d in 0..3 {
            let t = self.var(Ty::U32, "tid");
            out.push(assign(t, Expr::Builtin(Builtin::ThreadId(d))));
            let z = self.var(Ty::Bool, "tid zero");
            out.push(assign(z, Expr::Compare { op: CmpOp::Eq, ty: Ty::U32, lhs: Operand::Var(t), rhs: Operand::Const(Const::U32(0)) }));
            acc = self.and(&mut out, acc, Operand::Var(z));
        }
        out.push(assign(dst, Expr::Use(acc)));
        out
    }

    /// Barrier-free statements with their exits turned into flag updates. `depth`: native
    /// loops entered inside these statements (their own `Break`/`Continue` stay).
    fn n_stmts(&mut self, stmts: &[Stmt], depth: u32, lp: Option<LoopKind>) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        self.n_stmts_into(stmts, depth, lp, &mut out);
        out
    }

    /// [`Tx::n_stmts`] appended to `out` (which it only appends to).
    fn n_stmts_into(&mut self, stmts: &[Stmt], depth: u32, lp: Option<LoopKind>, out: &mut Vec<Stmt>) {
        for (i, s) in stmts.iter().enumerate() {
            match s {
                Stmt::Return => {
                    if let Some(a) = self.active {
                        out.push(assign(a, Expr::Use(Operand::Const(Const::Bool(false)))));
                    }
                    if depth > 0 {
                        out.push(Stmt::Break);
                    }
                    return;
                }
                Stmt::Break | Stmt::Continue if depth == 0 => {
                    if let Some(LoopKind::Divergent { live, cont }) = lp {
                        let flag = if matches!(s, Stmt::Break) { live } else { cont };
                        out.push(assign(flag, Expr::Use(Operand::Const(Const::Bool(false)))));
                    } else {
                        out.push(s.clone());
                    }
                    return;
                }
                Stmt::If { cond, then_body, else_body } => {
                    let t = self.n_stmts(&then_body.stmts, depth, lp);
                    let e = self.n_stmts(&else_body.stmts, depth, lp);
                    out.push(Stmt::If { cond: *cond, then_body: Block { stmts: t }, else_body: Block { stmts: e } });
                    if depth == 0 && self.summary.may_clear(s, lp) {
                        let rest = self.n_stmts(&stmts[i + 1..], depth, lp);
                        let ok = self.flags(out, lp);
                        out.push(Stmt::If { cond: ok, then_body: Block { stmts: rest }, else_body: Block::new() });
                        return;
                    }
                }
                Stmt::Switch { selector, cases, default } => {
                    // No `Break` may sit directly in a case: a `Return` inside only clears the
                    // flag (depth 0 here), and the loop is left after the switch.
                    let cases = cases
                        .iter()
                        .map(|c| crate::ir::SwitchCase { values: c.values.clone(), body: Block { stmts: self.n_stmts(&c.body.stmts, 0, lp) } })
                        .collect();
                    let default = Block { stmts: self.n_stmts(&default.stmts, 0, lp) };
                    out.push(Stmt::Switch { selector: *selector, cases, default });
                    if self.summary.may_clear(s, lp) && self.after_clear(out, &stmts[i + 1..], depth, lp) {
                        return;
                    }
                }
                Stmt::Loop { body } => {
                    let b = self.n_stmts(&body.stmts, depth + 1, lp);
                    out.push(Stmt::Loop { body: Block { stmts: b } });
                    if self.summary.has(s, Summary::RETURN) && self.after_clear(out, &stmts[i + 1..], depth, lp) {
                        return;
                    }
                }
                _ => out.push(s.clone()),
            }
        }
    }
}

/// The blocks directly inside a `Switch`: every case body, then the default.
fn switch_blocks<'b>(cases: &'b [crate::ir::SwitchCase], default: &'b Block) -> impl Iterator<Item = &'b Block> {
    cases.iter().map(|c| &c.body).chain(std::iter::once(default))
}

impl Tx<'_> {
    /// After a native statement that may have cleared a flag (a `Return` inside): leave the
    /// enclosing native loop (`depth > 0`), or run `rest` only while the flags hold. True when
    /// `rest` has been emitted.
    fn after_clear(&mut self, out: &mut Vec<Stmt>, rest: &[Stmt], depth: u32, lp: Option<LoopKind>) -> bool {
        if depth > 0 {
            let a = self.active.map(Operand::Var).unwrap_or(TRUE);
            let na = self.not(out, a);
            out.push(Stmt::If { cond: na, then_body: Block { stmts: vec![Stmt::Break] }, else_body: Block::new() });
            false
        } else {
            let rest = self.n_stmts(rest, depth, lp);
            let ok = self.flags(out, lp);
            out.push(Stmt::If { cond: ok, then_body: Block { stmts: rest }, else_body: Block::new() });
            true
        }
    }
}

fn assign(dst: VarId, expr: Expr) -> Stmt {
    Stmt::Assign { dst, expr }
}

/// No memory access and no fault: safe to execute in a thread that logically does not.
fn is_pure(e: &Expr) -> bool {
    match e {
        Expr::LoadWord { memory: Memory::Param, index: Operand::Const(_) } => true,
        Expr::LoadWord { .. } | Expr::LoadDword { .. } | Expr::AtomicWord { .. } | Expr::AtomicDword { .. } | Expr::SharedUniformLoad { .. } => false,
        Expr::WarpBallot { .. } | Expr::WarpShuffle { .. } => false,
        _ => true,
    }
}

pub(crate) fn contains_barrier(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Barrier | Stmt::SharedBarrier => true,
        Stmt::Assign { expr, .. } => expr.is_warp_collective(),
        Stmt::If { then_body, else_body, .. } => contains_barrier(&then_body.stmts) || contains_barrier(&else_body.stmts),
        Stmt::Loop { body } => contains_barrier(&body.stmts),
        Stmt::Switch { cases, default, .. } => switch_blocks(cases, default).any(|b| contains_barrier(&b.stmts)),
        _ => false,
    })
}

fn contains_return(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Return => true,
        Stmt::If { then_body, else_body, .. } => contains_return(&then_body.stmts) || contains_return(&else_body.stmts),
        Stmt::Loop { body } => contains_return(&body.stmts),
        Stmt::Switch { cases, default, .. } => switch_blocks(cases, default).any(|b| contains_return(&b.stmts)),
        _ => false,
    })
}

/// A `Break`/`Continue` of the enclosing loop (not inside a nested loop).
fn contains_exit(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break | Stmt::Continue => true,
        Stmt::If { then_body, else_body, .. } => contains_exit(&then_body.stmts) || contains_exit(&else_body.stmts),
        Stmt::Switch { cases, default, .. } => switch_blocks(cases, default).any(|b| contains_exit(&b.stmts)),
        _ => false,
    })
}

/// What each statement of a body contains, as [`contains_barrier`], [`contains_return`] and
/// [`contains_exit`] of the statement alone would say, found in one walk: `uniformize` asks it
/// of every statement at every nesting level, in every round, which walked each subtree once
/// per enclosing statement and round (issue 11: a tenth of the SIMT pass on CUB's kernels).
/// Compound statements are recorded by address, so a summary answers only for the body it
/// was made of, unchanged.
struct Summary {
    compound: FxHashMap<*const Stmt, u8>,
}

impl Summary {
    const BARRIER: u8 = 1;
    const RETURN: u8 = 2;
    /// A `Break`/`Continue` of the enclosing loop (not inside a nested loop).
    const EXIT: u8 = 4;

    fn of(body: &Block) -> Summary {
        fn walk(stmts: &[Stmt], compound: &mut FxHashMap<*const Stmt, u8>) -> u8 {
            let mut all = 0;
            for s in stmts {
                let bits = match s {
                    Stmt::If { then_body, else_body, .. } => walk(&then_body.stmts, compound) | walk(&else_body.stmts, compound),
                    // A nested loop's own exits are not the enclosing loop's.
                    Stmt::Loop { body } => walk(&body.stmts, compound) & !Summary::EXIT,
                    Stmt::Switch { cases, default, .. } => switch_blocks(cases, default).fold(0, |a, b| a | walk(&b.stmts, compound)),
                    _ => Summary::leaf(s),
                };
                if matches!(s, Stmt::If { .. } | Stmt::Loop { .. } | Stmt::Switch { .. }) {
                    compound.insert(s as *const Stmt, bits);
                }
                all |= bits;
            }
            all
        }
        let mut compound = FxHashMap::default();
        walk(&body.stmts, &mut compound);
        Summary { compound }
    }

    fn leaf(s: &Stmt) -> u8 {
        match s {
            Stmt::Barrier | Stmt::SharedBarrier => Summary::BARRIER,
            Stmt::Assign { expr, .. } if expr.is_warp_collective() => Summary::BARRIER,
            Stmt::Return => Summary::RETURN,
            Stmt::Break | Stmt::Continue => Summary::EXIT,
            _ => 0,
        }
    }

    /// Whether `s` (a statement of the summarised body) contains any of `bits`.
    fn has(&self, s: &Stmt, bits: u8) -> bool {
        let b = match s {
            Stmt::If { .. } | Stmt::Loop { .. } | Stmt::Switch { .. } => match self.compound.get(&(s as *const Stmt)) {
                Some(&b) => b,
                // Not of the summarised body (never, by `uniformize`'s use): the walk.
                None => {
                    let one = std::slice::from_ref(s);
                    (if contains_barrier(one) { Summary::BARRIER } else { 0 })
                        | (if contains_return(one) { Summary::RETURN } else { 0 })
                        | (if contains_exit(one) { Summary::EXIT } else { 0 })
                }
            },
            _ => Summary::leaf(s),
        };
        b & bits != 0
    }

    /// Must be rewritten piece by piece (not run under one `if mask`).
    fn structural(&self, s: &Stmt, lp: Option<LoopKind>) -> bool {
        self.has(s, Summary::BARRIER) || (matches!(lp, Some(LoopKind::Uniform)) && self.has(s, Summary::EXIT))
    }

    /// May clear a flag the following statements depend on.
    fn may_clear(&self, s: &Stmt, lp: Option<LoopKind>) -> bool {
        self.has(s, Summary::RETURN) || (matches!(lp, Some(LoopKind::Divergent { .. })) && self.has(s, Summary::EXIT))
    }
}

/// Every exit of the loop (its own `Break`/`Continue`) is under uniform conditions only.
fn loop_exits_uniform(stmts: &[Stmt], div: &[bool], summary: &Summary) -> bool {
    stmts.iter().all(|s| match s {
        Stmt::If { cond, then_body, else_body } => {
            let d = matches!(cond, Operand::Var(v) if div.get(v.index()).copied().unwrap_or(true));
            if d && summary.has(s, Summary::EXIT) {
                return false;
            }
            loop_exits_uniform(&then_body.stmts, div, summary) && loop_exits_uniform(&else_body.stmts, div, summary)
        }
        Stmt::Switch { selector, cases, default } => {
            let d = matches!(selector, Operand::Var(v) if div.get(v.index()).copied().unwrap_or(true));
            switch_blocks(cases, default)
                .all(|b| !(d && b.stmts.iter().any(|s| summary.has(s, Summary::EXIT))) && loop_exits_uniform(&b.stmts, div, summary))
        }
        _ => true,
    })
}

struct OutputDivergence {
    vars: Vec<bool>,
    barrier_divergent: bool,
    /// Whether the last walk marked a variable (they are only ever marked, never cleared:
    /// no copy of `vars` per walk to compare with).
    grew: bool,
}

/// Divergence of a structured body: variables computed from thread-dependent values or
/// assigned under divergent control, and whether some barrier sits under divergent control.
/// `uniform`: variables known to hold the same value in every thread (the vote's).
fn output_divergence(body: &Block, nvars: usize, uniform: &HashSet<VarId>) -> OutputDivergence {
    let mut d = OutputDivergence { vars: vec![false; nvars], barrier_divergent: false, grew: false };
    loop {
        d.grew = false;
        d.barrier_divergent = false;
        walk_divergence(&body.stmts, false, &mut d, uniform);
        if !d.grew {
            return d;
        }
    }
}

fn walk_divergence(stmts: &[Stmt], ctx: bool, d: &mut OutputDivergence, uniform: &HashSet<VarId>) {
    for s in stmts {
        match s {
            Stmt::Assign { dst, expr } => {
                // A uniform load is a barrier too, and a native warp collective needs the same.
                if ctx && (matches!(expr, Expr::SharedUniformLoad { .. }) || expr.is_warp_collective()) {
                    d.barrier_divergent = true;
                }
                if !d.vars[dst.index()] && !uniform.contains(dst) && (ctx || expr_divergent(expr, &d.vars)) {
                    d.vars[dst.index()] = true;
                    d.grew = true;
                }
            }
            Stmt::If { cond, then_body, else_body } => {
                let c = ctx || matches!(cond, Operand::Var(v) if d.vars[v.index()]);
                walk_divergence(&then_body.stmts, c, d, uniform);
                walk_divergence(&else_body.stmts, c, d, uniform);
            }
            Stmt::Switch { selector, cases, default } => {
                let c = ctx || matches!(selector, Operand::Var(v) if d.vars[v.index()]);
                for b in switch_blocks(cases, default) {
                    walk_divergence(&b.stmts, c, d, uniform);
                }
            }
            Stmt::Loop { body } => {
                // The body is divergent if some thread can leave (or skip the rest) while others
                // go on: an exit under a divergent condition, or a divergent return.
                let c = ctx || has_divergent_exit(&body.stmts, false, &d.vars);
                walk_divergence(&body.stmts, c, d, uniform);
            }
            Stmt::Barrier | Stmt::SharedBarrier if ctx => d.barrier_divergent = true,
            _ => {}
        }
    }
}

fn has_divergent_exit(stmts: &[Stmt], ctx: bool, div: &[bool]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break | Stmt::Continue | Stmt::Return => ctx,
        Stmt::If { cond, then_body, else_body } => {
            let c = ctx || matches!(cond, Operand::Var(v) if div[v.index()]);
            has_divergent_exit(&then_body.stmts, c, div) || has_divergent_exit(&else_body.stmts, c, div)
        }
        Stmt::Loop { body } => ctx && contains_return(&body.stmts) || has_returns_divergent(&body.stmts, ctx, div),
        Stmt::Switch { selector, cases, default } => {
            let c = ctx || matches!(selector, Operand::Var(v) if div[v.index()]);
            switch_blocks(cases, default).any(|b| has_divergent_exit(&b.stmts, c, div))
        }
        _ => false,
    })
}

/// A `Return` inside a nested loop under divergent control also leaves the outer loop.
fn has_returns_divergent(stmts: &[Stmt], ctx: bool, div: &[bool]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Return => ctx,
        Stmt::If { cond, then_body, else_body } => {
            let c = ctx || matches!(cond, Operand::Var(v) if div[v.index()]);
            has_returns_divergent(&then_body.stmts, c, div) || has_returns_divergent(&else_body.stmts, c, div)
        }
        Stmt::Loop { body } => has_returns_divergent(&body.stmts, ctx, div),
        Stmt::Switch { selector, cases, default } => {
            let c = ctx || matches!(selector, Operand::Var(v) if div[v.index()]);
            switch_blocks(cases, default).any(|b| has_returns_divergent(&b.stmts, c, div))
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::SwitchCase;

    fn blk(stmts: Vec<Stmt>) -> Block {
        Block { stmts }
    }
    fn iff(c: u32, then: Vec<Stmt>, other: Vec<Stmt>) -> Stmt {
        Stmt::If { cond: Operand::Var(VarId(c)), then_body: blk(then), else_body: blk(other) }
    }
    fn ballot(d: u32) -> Stmt {
        Stmt::Assign { dst: VarId(d), expr: Expr::WarpBallot { pred: TRUE } }
    }

    /// Every statement of the body, at every depth.
    fn all<'b>(stmts: &'b [Stmt], out: &mut Vec<&'b Stmt>) {
        for s in stmts {
            out.push(s);
            for b in s.bodies() {
                all(&b.stmts, out);
            }
        }
    }

    #[test]
    fn the_summary_answers_as_the_walks_do_at_every_depth() {
        // Loops (with and without exits, nested), ifs, a switch, barriers, a collective,
        // returns and exits at several depths, and statements holding none of them.
        let inner_loop = Stmt::Loop { body: blk(vec![iff(1, vec![Stmt::Break], vec![]), Stmt::Continue]) };
        let switch = Stmt::Switch {
            selector: Operand::Var(VarId(2)),
            cases: vec![SwitchCase { values: vec![1], body: blk(vec![Stmt::Return]) }, SwitchCase { values: vec![2], body: blk(vec![ballot(3)]) }],
            default: blk(vec![iff(4, vec![], vec![Stmt::Break])]),
        };
        let body = blk(vec![
            Stmt::Assign { dst: VarId(0), expr: Expr::Use(TRUE) },
            Stmt::Loop {
                body: blk(vec![
                    inner_loop,
                    iff(5, vec![Stmt::Barrier], vec![iff(6, vec![Stmt::Continue], vec![])]),
                    switch,
                    Stmt::Loop { body: blk(vec![iff(7, vec![Stmt::Return, Stmt::SharedBarrier], vec![]), Stmt::Break]) },
                    iff(8, vec![Stmt::Assign { dst: VarId(9), expr: Expr::Use(TRUE) }], vec![]),
                ]),
            },
            iff(10, vec![Stmt::Return], vec![Stmt::Barrier]),
        ]);
        let summary = Summary::of(&body);
        let mut stmts = Vec::new();
        all(&body.stmts, &mut stmts);
        let mut seen = [false; 3];
        for s in stmts {
            let one = std::slice::from_ref(s);
            for (k, (bit, walk)) in
                [(Summary::BARRIER, contains_barrier(one)), (Summary::RETURN, contains_return(one)), (Summary::EXIT, contains_exit(one))]
                    .into_iter()
                    .enumerate()
            {
                assert_eq!(summary.has(s, bit), walk, "bit {bit} of {s:?}");
                seen[k] |= walk;
            }
            for lp in [None, Some(LoopKind::Uniform), Some(LoopKind::Divergent { live: VarId(11), cont: VarId(12) })] {
                let structural = contains_barrier(one) || (matches!(lp, Some(LoopKind::Uniform)) && contains_exit(one));
                let may_clear = contains_return(one) || (matches!(lp, Some(LoopKind::Divergent { .. })) && contains_exit(one));
                assert_eq!(summary.structural(s, lp), structural, "{s:?}");
                assert_eq!(summary.may_clear(s, lp), may_clear, "{s:?}");
            }
        }
        assert_eq!(seen, [true; 3], "the body exercises every bit");
    }
}
