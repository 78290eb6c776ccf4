//! The static proof that a kernel's warp collectives cannot meet at different instructions, so
//! that the run-time meeting check (`inst::warp`, `FnLower::meet_check`) can be left out.
//!
//! **The rule.** On sm_70+ a waiting collective (`shfl.sync`, `vote.sync`, `match.sync`,
//! `redux.sync`, `elect.sync`, `bar.warp.sync`) completes when every non-exited lane of its
//! membermask has executed *a* collective of the same kind and membermask (ISA 8.5 §9.7.8.6
//! `shfl.sync`: "wait until all non-exited threads corresponding to membermask have executed
//! shfl.sync with the same qualifiers and same membermask value"; §9.7.12.x for the others,
//! §9.7.13.2 `bar.warp.sync`). Outside the CTA barrier scheduler a collective sees only the
//! lanes at that instruction at that time (the emulation, and native subgroup operations under
//! the SIMT pass's masks); the check records a lane of the membermask that is missing there
//! (*owed*) and faults when that lane executes a collective later (see `FnLower::meet_check`).
//!
//! **What the proof shows.** Call a lane *spent* once no path from its position reaches a
//! waiting collective (it may still store, or run a barrier, but it will never execute a
//! collective again: exited lanes are spent). A block is *warp-uniform* when, each time it
//! runs, every lane of a warp that is not spent runs it at the same time (or none of them).
//! If every collective of the kernel sits in a warp-uniform block, under no guard or a guard
//! that is the same in each warp, then at each dynamic collective the lanes of its warp that
//! do not execute it
//! are spent (or lie beyond a partial warp, and never run): an owed lane never executes a
//! collective, so the check can never fire, and none is emitted. The lanes that never come
//! end the wait on NVIDIA too (by exiting: spent lanes reach no collective, so they exit
//! unless they hang elsewhere), so the two give the same participants. Otherwise the kernel
//! *may meet*: it runs in the CTA barrier scheduler, where collectives meet across
//! instructions, or, where that is not done (sm_6x targets, refusals, code too large), every
//! collective keeps the check (see `kernel::lower_body`).
//!
//! **How.** A divergence analysis on the CFG, like `simt::check_barriers`'s, with three
//! levels instead of two: a block runs for every lane of the CTA that is not spent, for whole
//! warps (each warp's lanes that are not spent all run it, or none), or for any lanes; a value
//! is the same in the whole CTA, the same in each warp, `%tid.x + c`, or divergent.
//! - Sources: `%tid.x` is `%tid.x + 0` where each warp holds 32 consecutive `%tid.x` values
//!   from a multiple of 32 (a 1-D block, or an x extent that is a multiple of 32; `%tid.y/z`
//!   are then the same in each warp); memory loads, atomics and subgroup operations are
//!   divergent; parameters, `%ctaid`, constants are the CTA's. An operation of `%tid.x + c` and
//!   a constant (`shr`, `and`, `div`, a comparison …) is evaluated for every `%tid.x` of the
//!   block, warp by warp: the same across each warp, or divergent (`%tid.x >> 5`,
//!   `%tid.x < 32` are per warp; `%tid.x & 31`, `%tid.x < 16` are divergent). Results of
//!   `vote`, `redux` and `shfl.idx` from a constant lane are the same in each warp where the
//!   collective's membermask is and its block and guard are (every lane executing it
//!   together reads the same words: [`WarpResult`]), which covers CUB's loops that end on a
//!   `vote.any`. So is a global load given to the whole warp (`warp_loads`: one lane's value,
//!   broadcast), a collective site whose address must be the same across each warp too
//!   ([`Site::uniform`]; CUB's segment offsets). A u32 constant is known as such (`V::Known`),
//!   also where an operation of `%tid.x` gives one value for every `%tid.x` of the block
//!   (`%tid.x >> 31`, in nvcc's signed `%tid.x / 32`). A constant lane may be an immediate or a register set to a constant earlier
//!   in the same block (nvcc's `mov.u32 %r, 31` before CUB's `shfl.sync.idx`; see
//!   `FnLower::known_u32`). `bar.red`'s result is the same in the whole CTA (§9.7.14.1: "the
//!   final value is written to the destination register in all threads waiting at the
//!   barrier"; the emulation reads both counters between two barriers that every thread
//!   reaches, and no thread writes them there), such as the onesweep radix sort's
//!   `__syncthreads_or`; so is an `ld.shared` of a fixed address right after `bar.sync`,
//!   which `lower` loads between two barriers (`FnLower::reads_one_value_after_barrier`: the
//!   onesweep's tile index, taken by thread 0 with `atom.global.add`).
//! - A variable is a register for the whole kernel: its level joins every assignment's, and an
//!   assignment under control of some level is at least that level (the lanes that skip it keep
//!   an older value). So a predicate register written twice, once per lane and once per warp,
//!   is per lane (nvcc writes fresh predicate registers; hand-written PTX that reuses them
//!   keeps the check).
//! - A branch in a block of level L on a condition of level C (the larger) makes the blocks
//!   between it and its immediate post-dominator at least that level, but successors from which
//!   no collective is reachable do not count: a branch whose lanes that are not spent all go
//!   one way (the common `@p bra EXIT` in front of warp code, a loop whose collectives are all
//!   inside it) adds nothing beyond L.
//! - Iterated to a fixed point. A collective passes when its block and its guard are at most
//!   per warp, or when its constant membermask holds only lanes that run it together (one
//!   branch on `%tid.x` decides which lanes get there: [`Graph::members_all_run_it`]); the
//!   kernel keeps no check when all of them pass. The two kinds mix: the lanes owed at the
//!   first kind are spent, and so are those of the second (a lane of the membermask whose
//!   `%tid.x` takes the edge but that does not run the collective did not run the branch,
//!   which every lane that is not spent runs). A third way: a `vote.ballot` whose membermask
//!   is its own previous result in a loop that only lanes whose bit it cleared leave
//!   ([`Facts::ballot_mask_follows_lanes`], CUB's decoupled look-back), shown by the analysis
//!   run again with the loop's exit branch taken as warp-uniform. A guard may do what the
//!   branch does: `@p` on a function of `%tid.x` whose lanes hold the constant membermask,
//!   in a block that runs for whole warps ([`Graph::guard_holds_members`]; a branch's or a
//!   guard's condition may be any chain of integer operations, comparisons and negations of
//!   `%tid.x` and constants: [`Graph::tid_value`]). Another: an unguarded
//!   collective whose membermask is the result of an `activemask` taken earlier in its block,
//!   unchanged since ([`Site::member_is_active`]; `__syncwarp(__activemask())`,
//!   `__reduce_min_sync(__activemask(), x)` in divergent branches). A block is straight-line
//!   code: the lanes that ran that `activemask` together (its result; §9.7.14.11: "queries
//!   predicated-on active threads from the executing warp") all go on to the collective, with
//!   nothing in between that they could leave by, so every lane of the membermask executes
//!   this collective and none is owed; on NVIDIA it waits for exactly those lanes (§9.7.14.12
//!   `redux.sync`: "all non-exited threads corresponding to membermask"; §9.7.8.6, §9.7.14.2
//!   alike), which all come here next. Lanes outside the membermask take no part, wherever they are. This needs the mask
//!   to be exactly the `activemask` result (a copy, not a lane-dependent function of it) and
//!   no guard: `@p` with a lane-dependent `p` leaves lanes of the mask out.
//!
//! Uniform per CTA implies uniform per warp; a value called divergent may still be the same in
//! each warp (conservative).
//!
//! Not used: "the kernel has one collective of its kind" is not enough (one `shfl` in a
//! loop under a divergent branch meets itself from two iterations), nor is a constant
//! membermask alone (the lanes that reach the collective must hold it: see above).

use crate::cfg::{Cfg, NodeId, Terminator};
use std::cell::Cell;
use crate::ir::{BinaryOp, Builtin, CmpOp, Const, Expr, Memory, Operand, Stmt, Ty, UnaryOp, VarId, VarInfo};
use ptxcross_frontend::ast::Span;

/// The instruction guard a collective was lowered under (`FnLower::instruction`).
#[derive(Clone, Copy, Debug)]
pub enum Guard {
    None,
    /// `@pred`, or `@!pred` where `negated`.
    Pred { pred: Operand, negated: bool },
    /// Lowered inside some other statement: taken as divergent.
    Unknown,
}

/// One waiting warp collective of the kernel's CFG.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    pub node: NodeId,
    pub span: Span,
    pub guard: Guard,
    pub member: Operand,
    /// Unguarded, with a membermask that is `activemask`'s result taken earlier in the same
    /// block (`FnLower::active_mask_here`): its membermask's lanes are those running it.
    pub member_is_active: bool,
    /// A value that must be the same in the lanes running it together: the address of a
    /// load broadcast from one lane (`warp_loads`). Such a site passes only as the first kind
    /// (block, guard and this operand at most per warp), never by the other rules.
    pub uniform: Option<Operand>,
}

/// A variable holding a collective's result that is the same in every lane executing it
/// together (`vote`, `redux`, `shfl.idx` from a constant lane), when its membermask `member`
/// is warp-uniform: `site` indexes the kernel's [`Site`]s.
#[derive(Clone, Copy, Debug)]
pub struct WarpResult {
    pub var: VarId,
    pub member: Operand,
    pub site: usize,
    /// For `vote.ballot`: its predicate (see [`Facts::ballot_mask_follows_lanes`]).
    pub ballot: Option<Operand>,
}

/// What the analysis knows of a value across the lanes that are not spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum V {
    /// Not assigned yet (the analysis's start).
    Unset,
    /// The same in every lane of the CTA.
    Cta,
    /// The u32 constant `k` in every lane of the CTA (a constant, or an operation of `%tid.x`
    /// whose result is the same for every `%tid.x` of the block, such as nvcc's
    /// `%tid.x >> 31` in a signed division by 32).
    Known(u32),
    /// The same in every lane of each warp.
    Warp,
    /// `%tid.x + c` (u32, wrapping), where each warp's lanes hold 32 consecutive `%tid.x`
    /// values starting at a multiple of 32 (see [`Analysis::tid_x`]).
    Tid(u32),
    Divergent,
}

/// Levels of control: the lanes that run a block are every lane (0), whole warps (1), or any
/// lanes (2).
fn level(v: V) -> u8 {
    match v {
        V::Unset | V::Cta | V::Known(_) => 0,
        V::Warp => 1,
        V::Tid(_) | V::Divergent => 2,
    }
}

/// Per variable, the blocks whose statements [`Analysis::stmts`] reads it in (an operand, a
/// condition or selector of nested control flow, the member mask of a warp result the block
/// assigns), for [`Facts::solve`]'s re-runs.
struct Readers {
    /// `blocks[start[v]..start[v + 1]]`: the blocks reading variable `v`.
    start: Vec<u32>,
    blocks: Vec<u32>,
}

impl Readers {
    fn of(cfg: &Cfg, nvars: usize, result_of: &[u32], pairs: &[(usize, Operand)]) -> Readers {
        // (variable, block), each pair once: `last[v]` is the last block that listed `v`.
        let mut pairs_read: Vec<(u32, u32)> = Vec::new();
        let mut last = vec![u32::MAX; nvars];
        let mut stack: Vec<&[Stmt]> = Vec::new();
        for (b, block) in cfg.blocks.iter().enumerate() {
            let b = b as u32;
            let mut read = |o: Operand| {
                if let Operand::Var(v) = o {
                    if let Some(l) = last.get_mut(v.index()) {
                        if *l != b {
                            *l = b;
                            pairs_read.push((v.0, b));
                        }
                    }
                }
            };
            stack.push(&block.stmts);
            while let Some(stmts) = stack.pop() {
                for s in stmts {
                    match s {
                        Stmt::Assign { dst, expr } => {
                            expr.for_each_operand(&mut read);
                            if let Some(&r) = result_of.get(dst.index()).filter(|&&r| r != NO_RESULT) {
                                read(pairs[r as usize].1);
                            }
                        }
                        Stmt::If { cond, then_body, else_body } => {
                            read(*cond);
                            stack.push(&then_body.stmts);
                            stack.push(&else_body.stmts);
                        }
                        Stmt::Switch { selector, cases, default } => {
                            read(*selector);
                            stack.extend(cases.iter().map(|c| &c.body.stmts[..]));
                            stack.push(&default.stmts);
                        }
                        Stmt::Loop { body } => stack.push(&body.stmts),
                        _ => {}
                    }
                }
            }
        }
        let mut start = vec![0u32; nvars + 1];
        for &(v, _) in &pairs_read {
            start[v as usize + 1] += 1;
        }
        for i in 0..nvars {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut blocks = vec![0u32; pairs_read.len()];
        for (v, b) in pairs_read {
            blocks[fill[v as usize] as usize] = b;
            fill[v as usize] += 1;
        }
        Readers { start, blocks }
    }

    fn of_var(&self, v: VarId) -> &[u32] {
        match (self.start.get(v.index()), self.start.get(v.index() + 1)) {
            (Some(&s), Some(&e)) => &self.blocks[s as usize..e as usize],
            _ => &[],
        }
    }
}

fn join(a: V, b: V) -> V {
    match (a, b) {
        (x, y) if x == y => x,
        (V::Unset, x) | (x, V::Unset) => x,
        (V::Tid(_), _) | (_, V::Tid(_)) | (V::Divergent, _) | (_, V::Divergent) => V::Divergent,
        (V::Cta | V::Known(_), V::Cta | V::Known(_)) => V::Cta,
        _ => V::Warp,
    }
}

/// `v` assigned under control of `ctx`.
fn under(v: V, ctx: u8) -> V {
    match ctx {
        0 => v,
        1 => join(v, V::Warp),
        _ => V::Divergent,
    }
}

/// [`Analysis::result_of`] of a variable that holds no warp result.
const NO_RESULT: u32 = u32::MAX;

struct Analysis<'a> {
    vals: Vec<V>,
    results: &'a [(usize, Operand)],
    /// Per variable: the index in `results` of the warp result it holds, or [`NO_RESULT`]
    /// (dense: the fixed point asks this of every assignment in every round).
    result_of: Vec<u32>,
    /// Per variable: the same in every thread of the CTA that reads it (`bar.red`'s result).
    cta_result: Vec<bool>,
    site_ok: Vec<bool>,
    /// `%tid.x` values of the CTA, or `None` when a warp's lanes are not 32 consecutive
    /// `%tid.x` values starting at a multiple of 32 (a 2-D or 3-D block whose x extent is no
    /// multiple of 32).
    tid_x: Option<u32>,
    /// `%tid.y`/`%tid.z` are the same across each warp (x extent a multiple of 32).
    tid_yz_warp: bool,
    changed: bool,
    /// The variables whose value changed since [`Facts::solve`] last looked (it re-runs the
    /// blocks that read them).
    changed_vars: Vec<VarId>,
}

impl Analysis<'_> {
    fn op(&self, o: &Operand) -> V {
        match o {
            Operand::Const(Const::U32(k)) => V::Known(*k),
            Operand::Const(_) => V::Cta,
            Operand::Var(v) => self.vals[v.index()],
        }
    }

    /// `o` as a u32 constant, where it is one in every lane.
    fn known(&self, o: &Operand) -> Option<u32> {
        match self.op(o) {
            V::Known(k) => Some(k),
            _ => None,
        }
    }

    /// `f(%tid.x + c)` where it is the same value for every `%tid.x` of the block.
    fn same_for_every_tid(&self, c: u32, f: impl Fn(u32) -> Option<u32>) -> Option<u32> {
        let nx = self.tid_x?;
        let first = f(c)?;
        (0..nx).all(|x| f(x.wrapping_add(c)) == Some(first)).then_some(first)
    }

    /// Whether `f(%tid.x + c)` gives one value across each warp (`None` from `f`: unknown).
    fn per_warp_uniform(&self, c: u32, f: impl Fn(u32) -> Option<u64>) -> bool {
        let Some(nx) = self.tid_x else { return false };
        (0..nx.div_ceil(32)).all(|w| {
            let lanes = (w * 32..(w * 32 + 32).min(nx)).map(|x| f(x.wrapping_add(c)));
            let mut first = None;
            for r in lanes {
                let Some(r) = r else { return false };
                match first {
                    None => first = Some(r),
                    Some(f) if f != r => return false,
                    _ => {}
                }
            }
            true
        })
    }

    fn expr(&self, e: &Expr) -> V {
        // Operands not assigned yet: nothing known (the fixed point comes back).
        let mut unset = false;
        e.for_each_operand(|o| unset |= self.op(&o) == V::Unset);
        if unset {
            return V::Unset;
        }
        let all = |ops: &[&Operand]| ops.iter().fold(V::Cta, |acc, o| join(acc, self.op(o)));
        // An operation of values none of which depends on the lane within a warp.
        let plain = |v: V| if matches!(v, V::Tid(_)) { V::Divergent } else { v };
        match e {
            Expr::Use(a) => self.op(a),
            Expr::Builtin(Builtin::ThreadId(0)) => self.tid_x.map_or(V::Divergent, |_| V::Tid(0)),
            Expr::Builtin(Builtin::ThreadId(_)) => {
                if self.tid_yz_warp {
                    V::Warp
                } else {
                    V::Divergent
                }
            }
            Expr::Builtin(Builtin::SubgroupInvocationId) => V::Divergent,
            Expr::Builtin(_) => V::Cta,
            Expr::Binary { op, ty: Ty::U32, lhs, rhs } => match (self.op(lhs), self.known(rhs)) {
                (V::Known(l), Some(k)) => binary_u32(*op, l, k).map_or(V::Cta, V::Known),
                (V::Tid(c), Some(k)) => match op {
                    BinaryOp::Add => V::Tid(c.wrapping_add(k)),
                    BinaryOp::Sub => V::Tid(c.wrapping_sub(k)),
                    _ => match self.same_for_every_tid(c, |x| binary_u32(*op, x, k)) {
                        Some(r) => V::Known(r),
                        None if self.per_warp_uniform(c, |x| binary_u32(*op, x, k).map(u64::from)) => V::Warp,
                        None => V::Divergent,
                    },
                },
                _ => plain(all(&[lhs, rhs])),
            },
            Expr::Binary { lhs, rhs, .. } => plain(all(&[lhs, rhs])),
            Expr::Compare { op, ty: Ty::U32, lhs, rhs } => match (self.op(lhs), self.op(rhs), self.known(lhs), self.known(rhs)) {
                (V::Tid(c), _, _, Some(k)) => {
                    if self.per_warp_uniform(c, |x| compare_u32(*op, x, k).map(u64::from)) {
                        V::Warp
                    } else {
                        V::Divergent
                    }
                }
                (_, V::Tid(c), Some(k), _) => {
                    if self.per_warp_uniform(c, |x| compare_u32(*op, k, x).map(u64::from)) {
                        V::Warp
                    } else {
                        V::Divergent
                    }
                }
                _ => plain(all(&[lhs, rhs])),
            },
            Expr::Compare { lhs, rhs, .. } => plain(all(&[lhs, rhs])),
            Expr::Unary { arg, .. } | Expr::Convert { arg, .. } => plain(self.op(arg)),
            Expr::Fma { a, b, c, .. } => plain(all(&[a, b, c])),
            Expr::Select { cond, a, b, .. } => plain(all(&[cond, a, b])),
            Expr::LoadWord { memory: Memory::Param, index } => plain(self.op(index)),
            // The same value in every thread (its precondition: a uniform index).
            Expr::SharedUniformLoad { index } => plain(self.op(index)),
            Expr::LoadWord { .. } | Expr::LoadDword { .. } | Expr::AtomicWord { .. } | Expr::AtomicDword { .. } => V::Divergent,
            Expr::WarpBallot { .. } | Expr::WarpShuffle { .. } => V::Divergent,
            // A function of its arguments only (`ir::Function`).
            Expr::Call { args, .. } => plain(args.iter().fold(V::Cta, |acc, o| join(acc, self.op(o)))),
        }
    }

    fn assign(&mut self, dst: VarId, v: V) {
        let old = self.vals[dst.index()];
        let new = join(old, v);
        if new != old {
            self.vals[dst.index()] = new;
            self.changed = true;
            self.changed_vars.push(dst);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt], ctx: u8) {
        for s in stmts {
            match s {
                Stmt::Assign { dst, expr } => {
                    let r = self.result_of.get(dst.index()).copied().unwrap_or(NO_RESULT);
                    let v = if r != NO_RESULT {
                        let (site, member) = self.results[r as usize];
                        if self.site_ok[site] && level(self.op(&member)) <= 1 {
                            V::Warp
                        } else {
                            V::Divergent
                        }
                    } else if self.cta_result.get(dst.index()).copied().unwrap_or(false) {
                        V::Cta
                    } else {
                        self.expr(expr)
                    };
                    self.assign(*dst, under(v, ctx));
                }
                Stmt::If { cond, then_body, else_body } => {
                    let c = ctx.max(level(self.op(cond)));
                    self.stmts(&then_body.stmts, c);
                    self.stmts(&else_body.stmts, c);
                }
                Stmt::Switch { selector, cases, default } => {
                    let c = ctx.max(level(self.op(selector)));
                    for case in cases {
                        self.stmts(&case.body.stmts, c);
                    }
                    self.stmts(&default.stmts, c);
                }
                Stmt::Loop { body } => self.stmts(&body.stmts, 2),
                _ => {}
            }
        }
    }
}

/// `op` on u32 constants, where it is an integer operation of u32 values (`None`: not known).
fn binary_u32(op: BinaryOp, a: u32, b: u32) -> Option<u32> {
    Some(match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::DivU => a.checked_div(b)?,
        BinaryOp::RemU => a.checked_rem(b)?,
        BinaryOp::DivS => (a as i32).checked_div(b as i32)? as u32,
        BinaryOp::RemS => (a as i32).checked_rem(b as i32)? as u32,
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Shl if b < 32 => a << b,
        BinaryOp::ShrU if b < 32 => a >> b,
        BinaryOp::ShrS if b < 32 => ((a as i32) >> b) as u32,
        BinaryOp::MinU => a.min(b),
        BinaryOp::MaxU => a.max(b),
        BinaryOp::MinS => (a as i32).min(b as i32) as u32,
        BinaryOp::MaxS => (a as i32).max(b as i32) as u32,
        _ => return None,
    })
}

fn compare_u32(op: CmpOp, a: u32, b: u32) -> Option<bool> {
    let (sa, sb) = (a as i32, b as i32);
    Some(match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::LtU => a < b,
        CmpOp::LeU => a <= b,
        CmpOp::GtU => a > b,
        CmpOp::GeU => a >= b,
        CmpOp::LtS => sa < sb,
        CmpOp::LeS => sa <= sb,
        CmpOp::GtS => sa > sb,
        CmpOp::GeS => sa >= sb,
        _ => return None,
    })
}

/// The first collective of `sites` that the proof cannot clear (a lane of its warp that may
/// still execute a collective may be elsewhere when it runs), or `None`: no meeting check can
/// fire in this kernel. `block`: the CTA shape; `results`: see [`WarpResult`];
/// `cta_results`: variables the same in every thread of the CTA (`bar.red`'s counts);
/// `explain`: also say why it stops there ([`why`]).
#[allow(clippy::too_many_arguments)]
pub fn may_meet(cfg: &Cfg, vars: &[VarInfo], block: [u32; 3], sites: &[Site], results: &[WarpResult], cta_results: &[VarId], explain: bool) -> Option<(Span, Option<String>)> {
    if sites.is_empty() {
        return None;
    }
    let live = live_blocks(cfg, sites);
    let ipdom = cfg.immediate_post_dominators();
    let pairs: Vec<(usize, Operand)> = results.iter().map(|r| (r.site, r.member)).collect();
    let facts = Facts { cfg, vars, block, sites, results, pairs: &pairs, cta_results, live: &live, ipdom: &ipdom };
    let (a, block_lvl) = facts.solve(None);
    let graph = Graph { cfg, live: &live, ipdom: &ipdom, block_lvl: &block_lvl };
    let i = (0..sites.len()).find(|&i| !facts.clears(&a, &graph, i))?;
    let why = explain.then(|| why(&facts, &a, &block_lvl, &graph, i));
    Some((sites[i].span, why))
}

/// Which loads of `loads` (sites of loads that could be broadcast from one lane of the warp,
/// `warp_loads`, each with `uniform` its address, and the variables holding their values)
/// the proof would clear as broadcasts, when with them broadcast every collective of `sites`
/// clears too ([`may_meet`] of the kernel lowered with those loads broadcast); `None`
/// otherwise. A load whose block, address or guard may differ across a warp is left out
/// (its value stays per lane).
pub fn broadcasts_clearing(cfg: &Cfg, vars: &[VarInfo], block: [u32; 3], sites: &[Site], results: &[WarpResult], cta_results: &[VarId], loads: &[(Site, Vec<VarId>)]) -> Option<Vec<usize>> {
    let all: Vec<Site> = sites.iter().copied().chain(loads.iter().map(|(s, _)| *s)).collect();
    let mut all_results = results.to_vec();
    for (k, (s, vs)) in loads.iter().enumerate() {
        all_results.extend(vs.iter().map(|&var| WarpResult { var, member: s.member, site: sites.len() + k, ballot: None }));
    }
    let live = live_blocks(cfg, &all);
    let ipdom = cfg.immediate_post_dominators();
    let pairs: Vec<(usize, Operand)> = all_results.iter().map(|r| (r.site, r.member)).collect();
    let facts = Facts { cfg, vars, block, sites: &all, results: &all_results, pairs: &pairs, cta_results, live: &live, ipdom: &ipdom };
    let (a, block_lvl) = facts.solve(None);
    let graph = Graph { cfg, live: &live, ipdom: &ipdom, block_lvl: &block_lvl };
    if !(0..sites.len()).all(|i| facts.clears(&a, &graph, i)) {
        return None;
    }
    let chosen: Vec<usize> = (0..loads.len()).filter(|&k| a.site_ok[sites.len() + k]).collect();
    (!chosen.is_empty()).then_some(chosen)
}

/// Blocks from which a collective of `sites` is reachable (the lanes there are not spent).
fn live_blocks(cfg: &Cfg, sites: &[Site]) -> Vec<bool> {
    let mut live = vec![false; cfg.blocks.len()];
    for s in sites {
        live[s.node] = true;
    }
    let preds = cfg.predecessors();
    let mut work: Vec<NodeId> = sites.iter().map(|s| s.node).collect();
    while let Some(b) = work.pop() {
        for &p in &preds[b] {
            if !live[p] {
                live[p] = true;
                work.push(p);
            }
        }
    }
    live
}

/// What [`may_meet`] works from: the kernel, its collectives, and facts of its CFG.
struct Facts<'a> {
    cfg: &'a Cfg,
    vars: &'a [VarInfo],
    block: [u32; 3],
    sites: &'a [Site],
    results: &'a [WarpResult],
    pairs: &'a [(usize, Operand)],
    cta_results: &'a [VarId],
    /// Blocks from which a collective is reachable (the lanes there are not spent).
    live: &'a [bool],
    ipdom: &'a [Option<NodeId>],
}

impl<'a> Facts<'a> {
    /// [`Analysis::result_of`].
    fn result_of(&self) -> Vec<u32> {
        let mut result_of = vec![NO_RESULT; self.vars.len()];
        for (i, r) in self.results.iter().enumerate() {
            if let Some(slot) = result_of.get_mut(r.var.index()) {
                *slot = i as u32;
            }
        }
        result_of
    }

    /// [`Analysis::cta_result`].
    fn cta_result(&self) -> Vec<bool> {
        let mut cta = vec![false; self.vars.len()];
        for v in self.cta_results {
            if let Some(slot) = cta.get_mut(v.index()) {
                *slot = true;
            }
        }
        cta
    }

    /// The analysis iterated to its fixed point, and each block's level. `lone`: a block whose
    /// branch condition is taken as the same in each warp (its lanes that take the other way
    /// are treated as spent: see [`Facts::ballot_mask_follows_lanes`]).
    fn solve(&self, lone: Option<NodeId>) -> (Analysis<'a>, Vec<u8>) {
        let (a, block_lvl) = self.solve_in(lone, false);
        // Debug builds (the tests): the same fixed point as running every block in every
        // round (no unit test of this crate reaches the proof; its integration tests and
        // `tests/tests/warp_meeting.rs` do).
        #[cfg(debug_assertions)]
        {
            let (every, every_lvl) = self.solve_in(lone, true);
            assert!(
                every.vals == a.vals && every.site_ok == a.site_ok && every_lvl == block_lvl,
                "skipping the blocks whose inputs did not change reached another fixed point"
            );
        }
        (a, block_lvl)
    }

    /// [`Facts::solve`]; `every_block`: run every block in every round (the check in tests).
    fn solve_in(&self, lone: Option<NodeId>, every_block: bool) -> (Analysis<'a>, Vec<u8>) {
        let (cfg, block, sites, live, ipdom) = (self.cfg, self.block, self.sites, self.live, self.ipdom);
        let n = cfg.blocks.len();
        let x_runs = block[1] * block[2] == 1 || block[0].is_multiple_of(32);
        let mut a = Analysis {
            vals: vec![V::Unset; self.vars.len()],
            results: self.pairs,
            result_of: self.result_of(),
            cta_result: self.cta_result(),
            site_ok: vec![true; sites.len()],
            tid_x: x_runs.then_some(block[0]),
            tid_yz_warp: block[0].is_multiple_of(32),
            changed: false,
            changed_vars: Vec::new(),
        };
        let mut block_lvl = vec![0u8; n];
        // Round-robin over the blocks as before, but a block runs again only where something
        // it reads changed since it last ran (a variable it reads, its level, a site's
        // verdict): running it otherwise joins what every variable holds already (`join` is a
        // semilattice's), so each round ends in the same state as running every block did,
        // and the fixed point is reached in the same rounds. Running every block in every
        // round was 7.5% of the instructions translating the CUB file; this runs 40% fewer
        // blocks (docs/performance.md, xlate15).
        let readers = Readers::of(cfg, self.vars.len(), &a.result_of, self.pairs);
        let mut dirty = vec![true; n];
        loop {
            a.changed = false;
            for (b, block) in cfg.blocks.iter().enumerate() {
                if !std::mem::replace(&mut dirty[b], false) && !every_block {
                    continue;
                }
                a.stmts(&block.stmts, block_lvl[b]);
                for v in a.changed_vars.drain(..) {
                    for &r in readers.of_var(v) {
                        dirty[r as usize] = true;
                    }
                }
            }
            for b in 0..n {
                if !live[b] {
                    continue;
                }
                let cond = match &cfg.blocks[b].term {
                    Terminator::Branch { cond, .. } => cond,
                    Terminator::Switch { selector, .. } => selector,
                    _ => continue,
                };
                let mut succs: Vec<NodeId> = cfg.blocks[b].term.successors().into_iter().filter(|&s| live[s]).collect();
                succs.sort_unstable();
                succs.dedup();
                // Lanes that are not spent split only where two successors reach a collective; the
                // lanes running `b` are a part of the CTA's already where `b` is not uniform.
                let split = succs.len() >= 2 && Some(b) != lone;
                let lvl = if split { block_lvl[b].max(level(a.op(cond))) } else { block_lvl[b] };
                if lvl == 0 {
                    continue;
                }
                let stop = ipdom[b];
                let mut seen = vec![false; n];
                let mut stack = succs;
                while let Some(s) = stack.pop() {
                    if Some(s) == stop || seen[s] {
                        continue;
                    }
                    seen[s] = true;
                    if block_lvl[s] < lvl {
                        block_lvl[s] = lvl;
                        dirty[s] = true;
                        a.changed = true;
                    }
                    stack.extend(cfg.blocks[s].term.successors());
                }
            }
            let fine: Vec<bool> = sites
                .iter()
                .map(|s| block_lvl[s.node] <= 1 && guard_level(&a, s.guard) <= 1 && s.uniform.is_none_or(|o| level(a.op(&o)) <= 1))
                .collect();
            for (ok, fine) in a.site_ok.iter_mut().zip(fine) {
                if *ok && !fine {
                    *ok = false;
                    a.changed = true;
                    // A warp result of the site may change anywhere (rare: every block runs).
                    dirty.fill(true);
                }
            }
            if !a.changed {
                break;
            }
        }
        (a, block_lvl)
    }

    /// Whether collective `i` passes by one of the rules (module comment). A broadcast load's
    /// site (`Site::uniform`) passes only by the first: its address must be the same across
    /// the lanes that run it together.
    fn clears(&self, a: &Analysis, graph: &Graph, i: usize) -> bool {
        let s = &self.sites[i];
        a.site_ok[i]
            || (s.uniform.is_none()
                && (s.member_is_active || graph.members_all_run_it(a, s) || graph.guard_holds_members(a, s) || self.ballot_mask_follows_lanes(i)))
    }

    /// The third way a collective passes (CUB's decoupled look-back): a `vote.ballot` whose
    /// membermask is the register it writes, `m = ballot(p, m)`, in a loop that each lane
    /// whose `p` was false leaves right after it, for good. `m` holds a constant before the
    /// loop (in a block outside it that every path to the ballot passes) and is assigned
    /// nowhere else; the ballot's block `b` ends the loop's exit branch, on a comparison of the
    /// same value as `p` (unchanged between the two), and every lane that takes the exit has
    /// `p` false; and where the lanes that take that exit are taken as spent, `b` runs for
    /// whole warps, unguarded, with `m` the same in each warp ([`Facts::solve`] with `b`'s
    /// branch as warp-uniform: for the lanes still in the loop that is what happens, since
    /// none of the loop's blocks is reachable after the exit).
    ///
    /// Then at each run of the ballot the lanes of its warp running it are those that are
    /// not spent and have not left; at the first run (no lane has left) `m` is the constant,
    /// and later `m` is the previous run's ballot: lanes that ran it together with `p` true
    /// (§9.7.14.9 `vote.sync`: "copies the predicate from each thread in membermask into the
    /// corresponding bit"; every lane running it gets it), which did not take the exit and
    /// so run this one, all together. No lane of `m` is elsewhere: none is owed, and on NVIDIA
    /// the ballot waits for exactly these lanes too.
    fn ballot_mask_follows_lanes(&self, i: usize) -> bool {
        let cfg = self.cfg;
        let site = &self.sites[i];
        let Some(w) = self.results.iter().find(|r| r.site == i) else { return false };
        let (Some(Operand::Var(p)), Operand::Var(m)) = (w.ballot, w.member) else { return false };
        if !matches!(site.guard, Guard::None) {
            return false;
        }
        let b = site.node;
        let stmts = &cfg.blocks[b].stmts;
        let position = |v: VarId, e: &dyn Fn(&Expr) -> bool| stmts.iter().position(|s| matches!(s, Stmt::Assign { dst, expr } if *dst == v && e(expr)));
        // The ballot (its result's assignment), then `m = result`.
        let Some(ballot_at) = position(w.var, &|_| true) else { return false };
        let Some(m_at) = position(m, &|e| matches!(e, Expr::Use(Operand::Var(v)) if *v == w.var)) else { return false };
        if m_at < ballot_at || cfg.blocks.iter().map(|blk| count_assigns(&blk.stmts, m)).sum::<usize>() != 2 {
            return false;
        }
        let Some(init) = cfg.blocks.iter().position(|blk| blk.stmts.iter().any(|s| matches!(s, Stmt::Assign { dst, expr: Expr::Use(Operand::Const(_)) } if *dst == m))) else {
            return false;
        };
        // The loop: the blocks reachable from `b` that reach `b`.
        let n = cfg.blocks.len();
        let preds = cfg.predecessors();
        let walk = |start: Vec<NodeId>, next: &dyn Fn(NodeId) -> Vec<NodeId>, skip: Option<NodeId>| {
            let mut seen = vec![false; n];
            let mut stack = start;
            while let Some(x) = stack.pop() {
                if Some(x) == skip || std::mem::replace(&mut seen[x], true) {
                    continue;
                }
                stack.extend(next(x));
            }
            seen
        };
        let from_b = walk(cfg.blocks[b].term.successors().to_vec(), &|x| cfg.blocks[x].term.successors().to_vec(), None);
        let to_b = walk(preds[b].clone(), &|x| preds[x].clone(), None);
        if !from_b[b] || from_b[init] && to_b[init] {
            return false;
        }
        // Every path from the entry to `b` passes `init`.
        if walk(vec![cfg.entry], &|x| cfg.blocks[x].term.successors().to_vec(), Some(init))[b] {
            return false;
        }
        // The exit: the edge of `b`'s branch from which `b` is unreachable.
        let Terminator::Branch { cond: Operand::Var(q), then_target, else_target } = cfg.blocks[b].term else { return false };
        let exit_when = match (to_b[then_target] || then_target == b, to_b[else_target] || else_target == b) {
            (false, true) => true,
            (true, false) => false,
            _ => return false,
        };
        let (Some((p_at, px, p_holds)), Some((q_at, qx, q_holds))) = (compare_with_constant(cfg, b, p), compare_with_constant(cfg, b, q)) else {
            return false;
        };
        let (lo, hi) = (p_at.min(q_at), p_at.max(q_at));
        // `p` (the copy the ballot reads, and the comparison) assigned before the ballot.
        let p_def_at = single_def(cfg, p).map_or(usize::MAX, |(_, at, _)| at);
        if px != qx || p_at.max(p_def_at) > ballot_at || count_assigns(&stmts[lo..hi], px) != 0 {
            return false;
        }
        // Exiting lanes have `p` false: the two comparisons change only at their constants,
        // at 0 and at the sign bit, so these values cover every stretch where both are fixed.
        let mut edges = vec![0u32, 1, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, u32::MAX];
        for k in [p_at, q_at] {
            if let Some(Stmt::Assign { expr: Expr::Compare { lhs, rhs, .. }, .. }) = stmts.get(k) {
                for o in [lhs, rhs] {
                    if let Operand::Const(Const::U32(c)) = o {
                        edges.extend([c.wrapping_sub(1), *c, c.wrapping_add(1)]);
                    }
                }
            }
        }
        if edges.iter().any(|&x| q_holds(x) == exit_when && p_holds(x)) {
            return false;
        }
        let (a, block_lvl) = self.solve(Some(b));
        block_lvl[b] <= 1 && a.site_ok[i] && level(a.op(&w.member)) <= 1
    }
}

fn guard_level(a: &Analysis, g: Guard) -> u8 {
    match g {
        Guard::None => 0,
        Guard::Pred { pred, .. } => level(a.op(&pred)),
        Guard::Unknown => 2,
    }
}

/// The CFG with the analysis's facts about its blocks, for [`Graph::members_all_run_it`].
struct Graph<'a> {
    cfg: &'a Cfg,
    live: &'a [bool],
    ipdom: &'a [Option<NodeId>],
    block_lvl: &'a [u8],
}

impl Graph<'_> {
    /// Whether `target` is reachable from `from` without passing `stop` (a branch's region).
    fn reaches_within(&self, from: NodeId, stop: Option<NodeId>, target: NodeId) -> bool {
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut stack = vec![from];
        while let Some(s) = stack.pop() {
            if Some(s) == stop || seen[s] {
                continue;
            }
            if s == target {
                return true;
            }
            seen[s] = true;
            stack.extend(self.cfg.blocks[s].term.successors());
        }
        false
    }

    /// Whether `target` is reachable from the entry by edges `u → v` that `skip` lets pass.
    fn reaches_avoiding(&self, skip: impl Fn(NodeId, NodeId) -> bool, target: NodeId) -> bool {
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut stack = vec![self.cfg.entry];
        while let Some(u) = stack.pop() {
            if u == target {
                return true;
            }
            if std::mem::replace(&mut seen[u], true) {
                continue;
            }
            stack.extend(self.cfg.blocks[u].term.successors().into_iter().filter(|&v| !skip(u, v)));
        }
        false
    }

    /// The second way a collective passes: its membermask is a constant whose lanes all run it
    /// together. The collective's block lies in the region of exactly one branch on a
    /// condition that differs across a warp, `b`; `b` runs for whole warps (every lane of a
    /// warp that is not spent runs it at once), every path from the entry to the collective
    /// takes one edge of `b` and the other edge does not reach it before `b`'s immediate
    /// post-dominator, every other branch on the way is the same in each warp, and `b`'s
    /// condition is a function of `%tid.x` known before `b` on every path ([`Graph::tid_value`]:
    /// a comparison of `%tid.x + c` with a constant, or of `%laneid`, `%tid.x & 31` …). So the lanes of a warp that run the collective are exactly those whose `%tid.x`
    /// takes that edge, all at once; where that set holds every lane of the membermask (or no
    /// lane of the warp runs it), no lane is owed, and the lanes run it together on NVIDIA too
    /// (ISA 8.5 §9.7.10.6: the collective waits for the membermask's lanes only). E.g. CUB's
    /// `if (threadIdx.x < 25) … __syncwarp(0x1ffffff)` for a 100-thread block, or
    /// `if (lane < 16) __shfl_sync(0xffff, …)`.
    fn members_all_run_it(&self, a: &Analysis, site: &Site) -> bool {
        let Operand::Const(member) = site.member else { return false };
        let member = member.bits() as u32;
        let guard = guard_level(a, site.guard);
        let Some(nx) = a.tid_x else { return false };
        if guard > 1 {
            return false;
        }
        let mut splitting = Vec::new();
        for (b, block) in self.cfg.blocks.iter().enumerate() {
            let cond = match &block.term {
                Terminator::Branch { cond, .. } => cond,
                Terminator::Switch { selector, .. } => selector,
                _ => continue,
            };
            let mut succs: Vec<NodeId> = block.term.successors().into_iter().filter(|&s| self.live[s]).collect();
            succs.sort_unstable();
            succs.dedup();
            // As in `may_meet`: lanes part only where two successors reach a collective.
            if !self.live[b] || succs.len() < 2 || level(a.op(cond)) < 2 {
                continue;
            }
            let stop = self.ipdom[b];
            if succs.into_iter().any(|s| self.reaches_within(s, stop, site.node)) {
                splitting.push(b);
            }
        }
        let [b] = splitting[..] else { return false };
        let Terminator::Branch { cond: Operand::Var(cond), then_target, else_target } = self.cfg.blocks[b].term else { return false };
        if self.block_lvl[b] > 1 || b == site.node || then_target == else_target {
            return false;
        }
        let stop = self.ipdom[b];
        let (taken, edge_to) = match (self.reaches_within(then_target, stop, site.node), self.reaches_within(else_target, stop, site.node)) {
            (true, false) => (true, then_target),
            (false, true) => (false, else_target),
            _ => return false,
        };
        if self.reaches_avoiding(|u, v| (u, v) == (b, edge_to), site.node) {
            return false;
        }
        let Some(value) = self.tid_value(a, Operand::Var(cond), b, usize::MAX, &Cell::new(TID_STEPS)) else { return false };
        members_run_it(nx, member, |x| value(x).map(|v| (v != 0) == taken))
    }

    /// The fourth way a collective passes: a guarded one (`@p`) whose constant membermask
    /// holds only lanes whose guard is true, in a block that runs for whole warps (block level
    /// at most per warp), `p` a function of `%tid.x` ([`Graph::tid_value`]) known before every
    /// use of it as a guard there. The lanes of a warp that run the block are all of its lanes
    /// that are not spent, at once; of them exactly those whose `p` holds run the collective,
    /// which holds every lane of the membermask (or none of the warp's lanes run it): no lane is
    /// owed, and on NVIDIA it waits for these lanes only (§9.7.8.6, §9.7.14.9, §9.7.14.12: "all
    /// non-exited threads corresponding to membermask"; §9.7.13.2 `@p`: a thread whose guard is
    /// false does not execute the instruction). E.g. `@%p shfl.sync.idx … 0xffff` with
    /// `%p = %laneid < 16`.
    fn guard_holds_members(&self, a: &Analysis, site: &Site) -> bool {
        let (Operand::Const(member), Guard::Pred { pred: Operand::Var(p), negated }) = (site.member, site.guard) else { return false };
        let Some(nx) = a.tid_x else { return false };
        if self.block_lvl[site.node] > 1 {
            return false;
        }
        // The collective sits in an `If` on `p` at the top of its block (`FnLower::instruction`).
        let uses = self.cfg.blocks[site.node].stmts.iter().position(|s| matches!(s, Stmt::If { cond: Operand::Var(q), .. } if *q == p));
        let Some(first) = uses else { return false };
        let Some(value) = self.tid_value(a, Operand::Var(p), site.node, first, &Cell::new(TID_STEPS)) else { return false };
        members_run_it(nx, member.bits() as u32, |x| value(x).map(|v| (v != 0) != negated))
    }

    /// `o` as read in block `at` before its statement `before` (`usize::MAX`: at its end), as a
    /// function of the thread's `%tid.x` (`None` for a thread: not known): a constant, a value
    /// the analysis knows as `%tid.x + c`, or a variable assigned once in the kernel, at the top
    /// of a block, before that read on every path (earlier in `at`, or in a block every path to
    /// `at` passes), by an integer operation, comparison, negation or copy of such values (e.g.
    /// `%laneid < 16`, `(%tid.x & 31) >= 16`). Follows at most `budget` assignments.
    fn tid_value(&self, a: &Analysis, o: Operand, at: NodeId, before: usize, budget: &Cell<u32>) -> Option<TidFn> {
        let v = match o {
            Operand::Const(c) => {
                let k = c.bits();
                return Some(Box::new(move |_| Some(k)));
            }
            Operand::Var(v) => v,
        };
        if let V::Tid(c) = a.vals[v.index()] {
            return Some(Box::new(move |x| Some(u64::from(x.wrapping_add(c)))));
        }
        let (d, pos, expr) = single_def(self.cfg, v)?;
        let before_read = if d == at { pos < before } else { d == self.cfg.entry || !self.reaches_avoiding(|_, w| w == d, at) };
        if budget.get() == 0 || !before_read {
            return None;
        }
        budget.set(budget.get() - 1);
        let arg = |o: &Operand| self.tid_value(a, *o, d, pos, budget);
        Some(match *expr {
            Expr::Use(o) => arg(&o)?,
            Expr::Binary { op, ty: Ty::U32, lhs, rhs } => {
                let (f, g) = (arg(&lhs)?, arg(&rhs)?);
                Box::new(move |x| binary_u32(op, f(x)? as u32, g(x)? as u32).map(u64::from))
            }
            Expr::Binary { op: op @ (BinaryOp::And | BinaryOp::Or | BinaryOp::Xor), ty: Ty::Bool, lhs, rhs } => {
                let (f, g) = (arg(&lhs)?, arg(&rhs)?);
                Box::new(move |x| binary_u32(op, u32::from(f(x)? != 0), u32::from(g(x)? != 0)).map(u64::from))
            }
            Expr::Compare { op, ty: Ty::U32, lhs, rhs } => {
                let (f, g) = (arg(&lhs)?, arg(&rhs)?);
                Box::new(move |x| compare_u32(op, f(x)? as u32, g(x)? as u32).map(u64::from))
            }
            Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg: o } => {
                let f = arg(&o)?;
                Box::new(move |x| Some(u64::from(f(x)? == 0)))
            }
            Expr::Unary { op: UnaryOp::Not, ty: Ty::U32, arg: o } => {
                let f = arg(&o)?;
                Box::new(move |x| Some(u64::from(!(f(x)? as u32))))
            }
            _ => return None,
        })
    }
}

/// A value as a function of the thread's `%tid.x` ([`Graph::tid_value`]).
type TidFn = Box<dyn Fn(u32) -> Option<u64>>;

/// How many assignments [`Graph::tid_value`] follows back in all (operations of two
/// operands could otherwise double the walk at each step).
const TID_STEPS: u32 = 32;

/// Whether, in each warp of a block of `nx` threads along x, either no lane runs a
/// collective or every lane of `member` does: `runs(x)` for the thread with `%tid.x` x
/// (`None`: not known).
fn members_run_it(nx: u32, member: u32, runs: impl Fn(u32) -> Option<bool>) -> bool {
    (0..nx.div_ceil(32)).all(|w| {
        let (mut present, mut running) = (0u32, 0u32);
        for x in w * 32..(w * 32 + 32).min(nx) {
            let Some(r) = runs(x) else { return false };
            present |= 1 << (x % 32);
            if r {
                running |= 1 << (x % 32);
            }
        }
        running == 0 || member & present & !running == 0
    })
}

/// Assignments to `v` in `stmts`, nested statements included.
pub(crate) fn count_assigns(stmts: &[Stmt], v: VarId) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::Assign { dst, .. } => usize::from(*dst == v),
            Stmt::If { then_body, else_body, .. } => count_assigns(&then_body.stmts, v) + count_assigns(&else_body.stmts, v),
            Stmt::Switch { cases, default, .. } => cases.iter().map(|c| count_assigns(&c.body.stmts, v)).sum::<usize>() + count_assigns(&default.stmts, v),
            Stmt::Loop { body } => count_assigns(&body.stmts, v),
            _ => 0,
        })
        .sum()
}

/// The block, position and expression of `v`'s one assignment in the kernel, when it has one,
/// at the top level of a block.
fn single_def(cfg: &Cfg, v: VarId) -> Option<(NodeId, usize, &Expr)> {
    if cfg.blocks.iter().map(|blk| count_assigns(&blk.stmts, v)).sum::<usize>() != 1 {
        return None;
    }
    cfg.blocks.iter().enumerate().find_map(|(d, blk)| {
        blk.stmts.iter().enumerate().find_map(|(i, s)| match s {
            Stmt::Assign { dst, expr } if *dst == v => Some((d, i, expr)),
            _ => None,
        })
    })
}

/// `cond` as a comparison of a variable with a u32 constant, assigned once in the kernel (in
/// block `b`, through copies assigned once there too): the position of the comparison in `b`,
/// the variable, and the comparison as a function of its value.
fn compare_with_constant(cfg: &Cfg, b: NodeId, cond: VarId) -> Option<(usize, VarId, impl Fn(u32) -> bool)> {
    let (d, mut at, mut expr) = single_def(cfg, cond)?;
    for _ in 0..4 {
        let Expr::Use(Operand::Var(t)) = expr else { break };
        let (d2, at2, e) = single_def(cfg, *t)?;
        if d2 != d {
            return None;
        }
        (at, expr) = (at2, e);
    }
    let Expr::Compare { op, ty: Ty::U32, lhs, rhs } = expr else { return None };
    if d != b {
        return None;
    }
    let op = *op;
    let (x, k, swapped) = match (lhs, rhs) {
        (Operand::Var(x), Operand::Const(Const::U32(k))) => (*x, *k, false),
        (Operand::Const(Const::U32(k)), Operand::Var(x)) => (*x, *k, true),
        _ => return None,
    };
    compare_u32(op, 0, 0)?;
    Some((at, x, move |v: u32| if swapped { compare_u32(op, k, v) } else { compare_u32(op, v, k) }.unwrap_or(false)))
}

/// Why the proof cannot clear collective `i`, the first it stops at ([`may_meet`] with
/// `explain`, for `PTXCROSS_MEETING_WHY=1`, the census of docs/simt.md): the collective, then what makes it fail (a divergent guard,
/// or the branches whose lanes part before it), each followed back to a source of divergence
/// (a load, an atomic, a lane-dependent use of `%tid.x`, a collective not cleared, an
/// assignment under divergent control or in a loop).
fn why(facts: &Facts, a: &Analysis, block_lvl: &[u8], graph: &Graph, i: usize) -> String {
    let (cfg, vars, sites, results, live, ipdom) = (facts.cfg, facts.vars, facts.sites, facts.results, facts.live, facts.ipdom);
    let site = &sites[i];
    // Every assignment: its block, whether it is nested in a loop or under a divergent `If`.
    let mut defs: Vec<Vec<(NodeId, u8, &Expr)>> = vec![Vec::new(); vars.len()];
    fn collect<'e>(a: &Analysis, stmts: &'e [Stmt], b: NodeId, ctx: u8, defs: &mut Vec<Vec<(NodeId, u8, &'e Expr)>>) {
        for s in stmts {
            match s {
                Stmt::Assign { dst, expr } => {
                    if let Some(d) = defs.get_mut(dst.index()) {
                        d.push((b, ctx, expr));
                    }
                }
                Stmt::If { cond, then_body, else_body } => {
                    let c = ctx.max(level(a.op(cond)));
                    collect(a, &then_body.stmts, b, c, defs);
                    collect(a, &else_body.stmts, b, c, defs);
                }
                Stmt::Switch { selector, cases, default } => {
                    let c = ctx.max(level(a.op(selector)));
                    for case in cases {
                        collect(a, &case.body.stmts, b, c, defs);
                    }
                    collect(a, &default.stmts, b, c, defs);
                }
                Stmt::Loop { body } => collect(a, &body.stmts, b, 3, defs),
                _ => {}
            }
        }
    }
    for (b, blk) in cfg.blocks.iter().enumerate() {
        collect(a, &blk.stmts, b, 0, &mut defs);
    }
    let name = |v: VarId| vars.get(v.index()).map_or_else(|| format!("v{}", v.index()), |i| i.name.to_string());
    // One chain back from a divergent variable to a source.
    let origin = |start: VarId| {
        let mut chain = vec![name(start)];
        let mut v = start;
        let mut seen = vec![false; vars.len()];
        loop {
            if std::mem::replace(&mut seen[v.index()], true) {
                chain.push("(cycle)".into());
                break;
            }
            if let Some(r) = results.iter().find(|r| r.var == v) {
                let why = if !a.site_ok[r.site] { "not cleared" } else { "membermask divergent" };
                chain.push(format!("result of collective @{} ({why})", sites[r.site].span.start));
                break;
            }
            let ds = &defs[v.index()];
            let mut next = None;
            let mut reason = None;
            for &(b, ctx, e) in ds {
                if ctx == 3 {
                    reason = Some(format!("assigned in a structured loop (block {b})"));
                    break;
                }
                if ctx == 2 || block_lvl[b] > 1 {
                    reason = Some(format!("assigned under divergent control (block {b}, {} defs)", ds.len()));
                    break;
                }
                let lane = |o: &Operand| matches!(o, Operand::Var(x) if level(a.vals[x.index()]) > 1);
                let mut found = None;
                e.for_each_operand(|o| {
                    if found.is_none() && lane(&o) {
                        if let Operand::Var(x) = o {
                            found = Some(x)
                        }
                    }
                });
                let kind = match e {
                    Expr::LoadWord { memory, .. } | Expr::LoadDword { memory, .. } => Some(format!("load {memory:?}")),
                    Expr::AtomicWord { memory, .. } | Expr::AtomicDword { memory, .. } => Some(format!("atomic {memory:?}")),
                    Expr::Builtin(Builtin::ThreadId(d)) => Some(format!("%tid.{}", ["x", "y", "z"][(*d as usize).min(2)])),
                    Expr::Builtin(Builtin::SubgroupInvocationId) => Some("subgroup invocation".into()),
                    Expr::WarpBallot { .. } | Expr::WarpShuffle { .. } => Some("subgroup operation".into()),
                    _ => None,
                };
                let here = level(a.expr(e)) > 1;
                if !here {
                    continue;
                }
                match (kind, found) {
                    (Some(k), _) => {
                        reason = Some(k);
                        break;
                    }
                    (None, Some(x)) if matches!(a.vals[x.index()], V::Tid(_)) => {
                        reason = Some(format!("lane-dependent {e:?}").chars().take(120).collect());
                        break;
                    }
                    (None, Some(x)) => next = Some(x),
                    (None, None) => {
                        reason = Some(format!("{e:?}").chars().take(120).collect());
                        break;
                    }
                }
            }
            match (reason, next) {
                (Some(r), _) => {
                    chain.push(r);
                    break;
                }
                (None, Some(x)) => {
                    chain.push(name(x));
                    v = x;
                }
                (None, None) => {
                    chain.push(format!("({} defs, none divergent alone)", ds.len()));
                    break;
                }
            }
        }
        chain.join(" <- ")
    };
    let mut out = format!("collective @{} (block {}, level {}):", site.span.start, site.node, block_lvl[site.node]);
    if let Guard::Pred { pred: Operand::Var(p), .. } = site.guard {
        if level(a.vals[p.index()]) > 1 {
            out += &format!(" guard {}", origin(p));
        }
    }
    if matches!(site.guard, Guard::Unknown) {
        out += " guard unknown;";
    }
    if block_lvl[site.node] > 1 {
        // The branches on a lane-dependent condition whose region holds the collective.
        for (b, blk) in cfg.blocks.iter().enumerate() {
            let cond = match &blk.term {
                Terminator::Branch { cond, .. } => cond,
                Terminator::Switch { selector, .. } => selector,
                _ => continue,
            };
            let mut succs: Vec<NodeId> = blk.term.successors().into_iter().filter(|&s| live[s]).collect();
            succs.sort_unstable();
            succs.dedup();
            if !live[b] || succs.len() < 2 || level(a.op(cond)) < 2 {
                continue;
            }
            if succs.iter().any(|&s| graph.reaches_within(s, ipdom[b], site.node)) {
                match cond {
                    Operand::Var(c) => out += &format!(" | branch in block {b}: {}", origin(*c)),
                    Operand::Const(_) => out += &format!(" | branch in block {b} on a constant"),
                }
            }
        }
    }
    out
}
