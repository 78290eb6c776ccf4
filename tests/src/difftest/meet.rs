//! The meeting family (issue 10): `.target sm_80` programs whose warp collectives sit in
//! per-lane control flow, so that lanes of one warp reach *different* collective instructions
//! and meet there. ISA 8.5 §9.7.8.6 `shfl.sync` (and §9.7.12.1 `vote`, §9.7.12.9 `match`,
//! §9.7.12.10 `redux`): the executing thread waits "until all non-exited threads corresponding
//! to membermask have executed shfl.sync with the same qualifiers and same membermask value";
//! §9.7.13.2 `bar.warp.sync`: "with the same membermask value". So lanes meet where the
//! opcode, its qualifiers and the membermask are the same; operands (sources, lanes, clamps,
//! predicates, destinations) may differ, and each lane computes its result from its own
//! instruction's operands and what the others contributed (the model, `model::run`).
//!
//! Shapes: if/else with the same kinds of collectives (same qualifiers, same membermask) in
//! both arms and different operands, nested once; a per-thread trip count `t` in one loop and
//! `3 - t` in the next around the same kinds (each lane runs the same number); a uniform loop
//! around such an if/else; if/else whose arms take membermasks of their own lanes (ballots of
//! the branch's predicate, `%m1`/`%m2`: the arms never meet); branches on the lane with the
//! full membermask (the halves meet) or each half's constant mask; top-level collectives with the
//! full membermask or the live lanes (`%m0`, a ballot taken again after every exit); early
//! exits; `bar.sync` at top-level points; a per-lane loop whose lanes then run one more of the
//! same collective and exit (the others go on without them); and, rarely, arms whose
//! qualifiers differ or whose else arm is empty, which either meet a later collective or never
//! complete (a hang on NVIDIA: the model says so and ptxcross must end the launch with
//! `FAULT_BARRIER_DEADLOCK`).
//!
//! Left out, as the spec leaves them undefined or open: a `shfl` whose source lane exited or is
//! outside the membermask (after an exit shuffles read the highest lane of the live mask, their
//! own lane, or `b` ≡ 0 mod 32); `bar.warp.sync` whose membermask names an exited or missing
//! lane (§9.7.13.2 waits for "all threads", not the non-exited ones: always `%m0..%m2` here);
//! `activemask` and `elect.sync` in divergent code (which lanes run together there is the
//! implementation's choice; elect's "all threads in the membermask execute the elect
//! instruction" does not say whether two instructions meet); membermasks that differ between
//! lanes that wait at the same time but overlap (the masks here are either the same or
//! disjoint).

use super::gen::{filler, shfl_lanes, Rng};
use super::program::*;

/// What must be the same for two collectives to meet: the opcode and its qualifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Shfl(ShflMode),
    Vote(VoteMode),
    Redux(ReduxOp, bool),
    Match,
    /// `bar.warp.sync`, with a shared-memory exchange around it or not (lanes at an exchange
    /// and lanes at a bare one would race on the words).
    Sync(bool),
}

/// The membermask of the collectives of a region, and the mask register whose highest lane a
/// shuffle may read there (live, and in the membermask).
#[derive(Clone, Copy)]
struct Ctx {
    mask: Mask,
    leader: u8,
    /// Shuffles are `bfly` by less than this power of two (lanes split on `lane < k`: each
    /// lane's source is in its own half).
    bfly: Option<u32>,
}

/// Collective instructions per program: each costs lavapipe seconds to compile, more in the
/// CTA barrier scheduler.
const MAX_COLLS: usize = 9;

struct MeetGen<'a> {
    rng: &'a mut Rng,
    block: u32,
    /// Some thread may have exited (shuffles then read only lanes known to be live).
    exited: bool,
    rets: usize,
    colls: usize,
}

/// A random meeting program for a launch of `grid` × `block` threads.
pub fn meet_program(rng: &mut Rng, grid: u32, block: u32) -> Program {
    let mut g = MeetGen { rng, block, exited: false, rets: 0, colls: 0 };
    let n = 2 + g.rng.below(3) as usize;
    let mut body = g.filler(6);
    // %m0: the warp's lanes (a partial warp's existing ones).
    body.push(Stmt::Coll(Coll::MaskBallot { m: 0, g: None }));
    for i in 0..n {
        if g.colls >= MAX_COLLS {
            break;
        }
        body.extend(g.segment(i + 1 == n));
        body.extend(g.filler(3));
    }
    Program { body, grid, block, funcs: Vec::new() }
}

impl MeetGen<'_> {
    fn filler(&mut self, stmts: usize) -> Vec<Stmt> {
        let n = self.rng.below(stmts as u64 + 1) as usize;
        if n == 0 {
            return Vec::new();
        }
        filler(self.rng, self.block, n)
    }
    fn r(&mut self) -> u8 {
        self.rng.below(NR as u64) as u8
    }
    /// A register other than `avoid`.
    fn r_but(&mut self, avoid: Option<u8>) -> u8 {
        loop {
            let r = self.r();
            if Some(r) != avoid {
                return r;
            }
        }
    }
    fn guard(&mut self) -> Guard {
        Guard { p: self.rng.below(NP as u64) as u8, neg: self.rng.chance(30) }
    }
    /// The top-level membermask: all ones or the live lanes.
    fn top(&mut self) -> Ctx {
        Ctx { mask: if self.rng.chance(50) { Mask::Full } else { Mask::Reg(0) }, leader: 0, bfly: None }
    }

    fn kind(&mut self, ctx: Ctx, tail: bool) -> Kind {
        loop {
            return match self.rng.below(10) {
                // After this the lanes exit one by one: no source lane is known to be live.
                0..=2 if !tail => Kind::Shfl(self.rng.pick(&[ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx, ShflMode::Idx])),
                3..=4 => Kind::Vote(self.rng.pick(&[VoteMode::All, VoteMode::Any, VoteMode::Uni, VoteMode::Ballot, VoteMode::Ballot])),
                5..=6 => Kind::Redux(
                    self.rng.pick(&[ReduxOp::Add, ReduxOp::Min, ReduxOp::Max, ReduxOp::And, ReduxOp::Or, ReduxOp::Xor]),
                    self.rng.chance(50),
                ),
                7 => Kind::Match,
                8..=9 if !tail && ctx.mask != Mask::Full => Kind::Sync(self.rng.chance(75)),
                _ => continue,
            };
        }
    }

    /// A kind whose qualifiers differ from `k`'s (lanes at the two never meet).
    fn other(&mut self, k: Kind) -> Kind {
        match k {
            Kind::Shfl(m) => Kind::Shfl(match m {
                ShflMode::Idx => ShflMode::Bfly,
                _ => ShflMode::Idx,
            }),
            Kind::Vote(VoteMode::Ballot) => Kind::Vote(VoteMode::Any),
            Kind::Vote(_) => Kind::Vote(VoteMode::Ballot),
            // `.u32` against `.s32` (min/max/add), or another operation.
            Kind::Redux(op @ (ReduxOp::Add | ReduxOp::Min | ReduxOp::Max), s) => Kind::Redux(op, !s),
            Kind::Redux(_, s) => Kind::Redux(ReduxOp::Add, s),
            Kind::Match => Kind::Redux(ReduxOp::Or, false),
            Kind::Sync(_) => Kind::Match,
        }
    }

    /// One collective of kind `k` in `ctx` with fresh operands, after what it needs (the
    /// leader lane's index, a narrowed match value); `avoid`: a register nothing here writes.
    fn op(&mut self, k: Kind, ctx: Ctx, avoid: Option<u8>) -> Vec<Stmt> {
        self.colls += 1;
        let m = ctx.mask;
        let mut out = Vec::new();
        let coll = match k {
            Kind::Shfl(mode) => {
                let (d, a) = (self.r_but(avoid), self.r());
                let p = self.rng.chance(40).then(|| self.rng.below(NP as u64) as u8);
                let free = !self.exited && matches!(m, Mask::Full | Mask::Reg(0));
                let (mode, b, c) = match ctx.bfly {
                    Some(k) => (ShflMode::Bfly, Src::Imm(self.rng.below(k as u64)), 31),
                    None => (mode, Src::Imm(0), 0),
                };
                let (b, c) = if ctx.bfly.is_some() {
                    (b, c)
                } else if free && self.rng.chance(70) {
                    // Every lane of the warp takes part: any source lane the warp has.
                    shfl_lanes(self.rng, self.block, mode)
                } else if mode == ShflMode::Idx {
                    // The highest lane of the leader mask: 31 - clz(mask).
                    let x = self.r_but(avoid);
                    out.push(Stmt::Ins(None, Ins::Mov { ty: IntTy::U32, d: Reg::R(x), a: Src::Reg(Reg::M(ctx.leader)) }));
                    out.push(Stmt::Ins(None, Ins::Un { op: Un::Clz, ty: IntTy::U32, d: Reg::R(x), a: Src::Reg(Reg::R(x)) }));
                    out.push(Stmt::Ins(None, Ins::Bin { op: Bin::Sub, ty: IntTy::U32, d: Reg::R(x), a: Src::Imm(31), b: Src::Reg(Reg::R(x)) }));
                    (Src::Reg(Reg::R(x)), 31)
                } else {
                    // b ≡ 0 (mod 32): the lane's own value (b[4:0] is what counts).
                    (Src::Imm(self.rng.pick(&[0, 32, 64])), self.rng.pick(&[0, 31, 0x1f1f]))
                };
                Coll::Shfl { mode, d, p, a, b, c, m }
            }
            Kind::Vote(mode) => {
                let d = if mode == VoteMode::Ballot { self.r_but(avoid) } else { self.rng.below(NP as u64) as u8 };
                Coll::Vote { mode, d, a: self.guard(), m }
            }
            Kind::Redux(op, signed) => Coll::Redux { op, signed, d: self.r_but(avoid), a: self.r(), m },
            Kind::Match => {
                let a = self.r_but(avoid);
                if self.rng.chance(70) {
                    // Few distinct values, so that lanes match.
                    let s = self.r();
                    out.push(Stmt::Ins(None, Ins::Bin { op: Bin::And, ty: IntTy::U32, d: Reg::R(a), a: Src::Reg(Reg::R(s)), b: Src::Imm(self.rng.pick(&[1, 3, 0x80000001])) }));
                }
                Coll::Match { d: self.r_but(avoid), a, m }
            }
            Kind::Sync(xchg) => {
                let x = xchg.then(|| Xchg { v: self.r(), d: self.r_but(avoid), k: 1 + self.rng.below(31) as u8 });
                Coll::WarpSync { m, x }
            }
        };
        out.push(Stmt::Coll(coll));
        out
    }

    /// Collectives of `kinds` in `ctx`, with per-thread code between them.
    fn arm(&mut self, kinds: &[Kind], ctx: Ctx) -> Vec<Stmt> {
        let mut out = self.filler(3);
        for &k in kinds {
            out.extend(self.op(k, ctx, None));
            if self.rng.chance(30) {
                out.extend(self.filler(3));
            }
        }
        out
    }

    /// An if/else on a per-lane predicate with collectives of the same kinds in both arms
    /// (one arm's lanes meet the other's), and once in a while a nested one in both arms.
    fn meeting_if(&mut self, ctx: Ctx, nest: bool) -> Vec<Stmt> {
        let n = 1 + self.rng.below(2) as usize;
        let kinds: Vec<Kind> = (0..n).map(|_| self.kind(ctx, false)).collect();
        let mut then_ = self.arm(&kinds, ctx);
        let mut else_ = if self.rng.chance(96) {
            let mut k2 = kinds.clone();
            if self.rng.chance(3) {
                // Qualifiers that differ: these lanes never meet the other arm's.
                let i = self.rng.below(n as u64) as usize;
                k2[i] = self.other(k2[i]);
            }
            self.arm(&k2, ctx)
        } else {
            // The else lanes skip: the then arm's lanes wait for them at whatever collective
            // they reach next (a meeting or a hang).
            Vec::new()
        };
        if nest && self.rng.chance(30) && self.colls + 2 * n <= MAX_COLLS {
            let inner: Vec<Kind> = (0..1).map(|_| self.kind(ctx, false)).collect();
            for arm in [&mut then_, &mut else_] {
                let g = self.guard();
                let a = self.arm(&inner, ctx);
                let b = self.arm(&inner, ctx);
                arm.push(Stmt::If { g, then_: a, else_: b });
            }
        }
        vec![Stmt::If { g: self.guard(), then_, else_ }]
    }

    /// An if/else on the lane (`%tx & 31 < k`, k a power of two): with the full membermask in
    /// both arms and the same kinds, the two halves meet; with each arm's lanes as a constant
    /// membermask (`(1 << k) - 1`, its complement) they never do, and the static proof may
    /// clear the kernel (`lower/src/meeting.rs`: branches on functions of `%tid.x` whose lanes
    /// hold the constant membermask). Shuffles are `bfly` by less than k (sources in the
    /// lane's own half), none after an exit; no `bar.warp.sync` (the constant masks name lanes
    /// that may have exited or not exist).
    fn lane_split(&mut self) -> Vec<Stmt> {
        let k = self.rng.pick(&[4u32, 8, 16]);
        let (x, p) = (self.r(), self.rng.below(NP as u64) as u8);
        let own = self.rng.chance(60);
        let lo = (1u32 << k) - 1;
        let ctx = |m: u32| Ctx { mask: if own { Mask::Const(m) } else { Mask::Full }, leader: 0, bfly: Some(k) };
        let n = 1 + self.rng.below(2) as usize;
        let exited = self.exited;
        let kinds = |g: &mut Self, m: u32| -> Vec<Kind> { (0..n).map(|_| g.kind(ctx(m), exited)).filter(|k| !matches!(k, Kind::Sync(_))).collect() };
        let then_kinds = kinds(self, lo);
        let else_kinds = if own { kinds(self, !lo) } else { then_kinds.clone() };
        let then_ = self.arm(&then_kinds, ctx(lo));
        let else_ = self.arm(&else_kinds, ctx(!lo));
        vec![
            Stmt::Ins(None, Ins::Bin { op: Bin::And, ty: IntTy::U32, d: Reg::R(x), a: Src::Reg(Reg::Tid), b: Src::Imm(31) }),
            Stmt::Ins(None, Ins::Setp { cmp: Cmp::Lt, ty: IntTy::U32, p, a: Src::Reg(Reg::R(x)), b: Src::Imm(k as u64), combine: None }),
            Stmt::If { g: Guard { p, neg: false }, then_, else_ },
        ]
    }

    /// An if/else whose then arm's lanes exit while the else arm's run collectives with the
    /// full membermask or `%m0` (naming the exiting lanes): they do not wait for lanes that
    /// exited (§9.7.12.x "all non-exited threads"), however late those exit. No shuffles or
    /// `bar.warp.sync`: their lanes may be gone. The live mask is taken again after it.
    fn exit_if(&mut self) -> Vec<Stmt> {
        self.rets += 1;
        let (g, ctx) = (self.guard(), self.top());
        let n = 1 + self.rng.below(2) as usize;
        let kinds: Vec<Kind> = (0..n).map(|_| self.kind(ctx, true)).collect();
        let else_ = self.arm(&kinds, ctx);
        // The then arm is entered where `g` holds and nothing writes it there: every lane of it
        // exits, after a per-thread number of steps that keeps the others waiting a while.
        let x = self.r();
        let step = Stmt::Ins(None, Ins::Bin { op: Bin::Add, ty: IntTy::U32, d: Reg::R(x), a: Src::Reg(Reg::R(x)), b: Src::Imm(3) });
        let then_ = vec![Stmt::Loop { do_while: false, trip: Trip { reg: self.r(), mask: 7, add: 0 }, body: vec![step] }, Stmt::Ret { g }];
        self.exited = true;
        self.colls += 1;
        vec![Stmt::If { g, then_, else_ }, Stmt::Coll(Coll::MaskBallot { m: 0, g: None })]
    }

    /// An if/else whose arms take their own lanes as membermask (`%m1`, `%m2`: ballots of the
    /// branch's predicate just before it), so the arms never meet; each arm's collectives
    /// complete among its own lanes.
    fn split_if(&mut self) -> Vec<Stmt> {
        let g = self.guard();
        let not = Guard { p: g.p, neg: !g.neg };
        let mut out = vec![Stmt::Coll(Coll::MaskBallot { m: 1, g: Some(g) }), Stmt::Coll(Coll::MaskBallot { m: 2, g: Some(not) })];
        self.colls += 2;
        let arms: Vec<Vec<Stmt>> = [1u8, 2]
            .into_iter()
            .map(|k| {
                let ctx = Ctx { mask: Mask::Reg(k), leader: k, bfly: None };
                let n = 1 + self.rng.below(2) as usize;
                let kinds: Vec<Kind> = (0..n).map(|_| self.kind(ctx, false)).collect();
                let mut arm = self.arm(&kinds, ctx);
                if self.rng.chance(25) {
                    arm.extend(self.meeting_if(ctx, false));
                }
                arm
            })
            .collect();
        let [then_, mut else_]: [Vec<Stmt>; 2] = arms.try_into().expect("two arms");
        if self.rng.chance(25) {
            // The else lanes go on at once (to a `bar.sync`, where the warp arrives once the
            // then lanes have finished their own collectives).
            else_ = self.filler(2);
            out.push(Stmt::If { g, then_, else_ });
            if self.rng.chance(60) {
                out.push(Stmt::Coll(Coll::Bar));
            }
            return out;
        }
        out.push(Stmt::If { g, then_, else_ });
        out
    }

    /// `t = %rS & 3` iterations around a collective, then `3 - t` around one of the same kind,
    /// and again: 2 or 4 loops in a row, each pair while or do-while loops (a do-while one more
    /// iteration each): every lane runs the same number, each at whichever loop's instruction
    /// (the scheduler's resume points then sit in several loops: the shape that once faulted in
    /// one-warp CTAs, `warp_meeting loops_of_reductions_in_a_row_meet_in_one_warp_ctas`).
    fn complementary_loops(&mut self) -> Vec<Stmt> {
        let ctx = self.top();
        let k = self.kind(ctx, false);
        let (x, s) = (self.r(), self.r());
        let loops = self.rng.pick(&[2usize, 2, 4]);
        let mut out = vec![Stmt::Ins(None, Ins::Bin { op: Bin::And, ty: IntTy::U32, d: Reg::R(x), a: Src::Reg(Reg::R(s)), b: Src::Imm(3) })];
        let mut do_while = false;
        for i in 0..loops {
            if i > 0 {
                out.push(Stmt::Ins(None, Ins::Bin { op: Bin::Sub, ty: IntTy::U32, d: Reg::R(x), a: Src::Imm(3), b: Src::Reg(Reg::R(x)) }));
            }
            if i % 2 == 0 {
                do_while = self.rng.chance(30);
            }
            let trip = Trip { reg: x, mask: 3, add: do_while as u32 };
            let mut body = self.op(k, ctx, Some(x));
            if i + 1 == loops {
                // After the last loop nothing reads `x`.
                body.extend(self.filler(3));
            }
            out.push(Stmt::Loop { do_while, trip, body });
        }
        out
    }

    /// The end of the program: a loop of `%rS & 3` iterations around a collective, then one
    /// more of its kind, then the exit; lanes with fewer iterations meet the others' loop
    /// collectives with their last one and exit, the rest go on among themselves (§9.7.12.x:
    /// exited lanes are not waited for). No shuffles or `bar.warp.sync`: their lanes exit.
    fn tail(&mut self) -> Vec<Stmt> {
        let ctx = self.top();
        let k = self.kind(ctx, true);
        let trip = Trip { reg: self.r(), mask: 3, add: 0 };
        let body = self.op(k, ctx, Some(trip.reg));
        let mut out = vec![Stmt::Loop { do_while: self.rng.chance(30), trip, body }];
        out.extend(self.op(k, ctx, None));
        out
    }

    fn segment(&mut self, last: bool) -> Vec<Stmt> {
        loop {
            return match self.rng.below(17) {
                0..=1 if self.rets < 2 => {
                    self.rets += 1;
                    self.exited = true;
                    self.colls += 1;
                    // The live mask again: exited lanes leave it.
                    vec![Stmt::Ret { g: self.guard() }, Stmt::Coll(Coll::MaskBallot { m: 0, g: None })]
                }
                2 => vec![Stmt::Coll(Coll::Bar)],
                3..=4 => {
                    let ctx = self.top();
                    let k = self.kind(ctx, false);
                    self.op(k, ctx, None)
                }
                5..=9 => {
                    let ctx = self.top();
                    self.meeting_if(ctx, true)
                }
                10..=11 => self.split_if(),
                12 | 16 => self.complementary_loops(),
                13 => self.lane_split(),
                14 => {
                    let ctx = self.top();
                    let mut body = self.meeting_if(ctx, false);
                    if self.rng.chance(30) {
                        body.push(Stmt::Coll(Coll::Bar));
                    }
                    vec![Stmt::ULoop { word: self.rng.below((TABLE_BYTES / 4) as u64) as u8, mask: self.rng.pick(&[1, 3]), body }]
                }
                15 if last => self.tail(),
                15 if self.rets < 2 => self.exit_if(),
                _ => continue,
            };
        }
    }
}
