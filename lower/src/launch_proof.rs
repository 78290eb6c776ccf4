//! Launch-specialised heap checks (issue 11): a kernel's *launch precondition*, under which
//! its heap accesses can never fault, and the variant of the kernel without their fault
//! recording, which the host runs for launches that satisfy it.
//!
//! **What is proven.** A plain heap access that `lower` made (`inst/memory.rs`) computes, from
//! its 64-bit address `a`, three tests: the segment test `hi(a) != segment_hi` (the address
//! lies in another segment's window), the alignment test `(off & (size - 1)) != 0`, and the
//! range test `ok = (off / 4 - 64) <u lim` (the word and the next `k` lie in the bound heap
//! outside its reserved words); a failed test records a deferred fault, and the access goes to
//! the sink word (`abi::HEAP_SINK_WORD`). [`analyse`] walks the checked kernel's final IR in
//! statement order and describes each such test symbolically (a [`Node`] DAG) over what is
//! constant in a launch and known to the host: parameter words, `%tid` (range
//! `[0, ntid)`, `ntid` is fixed at translation), `%ctaid` (range `[0, nctaid)`), and the bound
//! heap's length. Each test gets the dominating branch conditions on the path to it
//! (*guards*, e.g. saxpy's `i <s n` with `i = ctaid.x * ntid.x + tid.x`). The list of these
//! *claims* — "this test is false (true, for a range test) for every thread that reaches it"
//! — is the precondition ([`LaunchProof`]).
//!
//! **At launch** the host evaluates every claim ([`LaunchProof::holds`]) with exact integer
//! interval and congruence arithmetic (`u128`, no rounding, no overflow: a result that could
//! leave its type's range becomes the type's full range, so a 32-bit index that may wrap, a
//! `mul.wide` of a negative index or a pointer plus an offset that crosses 2^64 proves
//! nothing). A claim holds when the test's value is the claimed one on the whole range of
//! values that the guards allow (or no thread reaches it). Only then does the host run the
//! variant; any failed claim runs the checked kernel, whose faults are reported as always.
//!
//! **The variant** ([`specialise`]) replaces each claimed segment and alignment test by its
//! claimed constant `false` and removes the deferred-fault statements whose condition is then
//! constant false (a claimed range test counts as `true`). The range test itself *stays* and
//! keeps guarding the access's index (`select(ok, i, SINK)`, the shape the backends recognise,
//! `ir::Kernel::heap_indices_in_range`): so memory safety never rests on this module — even a
//! wrong precondition could only make a bad access go to the sink word without a fault report,
//! never outside the context's memory. With every claim true, the variant computes exactly
//! the same values as the checked kernel for every thread of the launch (a claimed test has its
//! claimed value there, and a removed fault statement would not have fired), so the launch's
//! results are the same bits. What the variant saves is the fault recording: without any
//! deferred fault left the backends emit no end-of-thread flush (`ir::Kernel::defers_faults`),
//! which SIMD drivers run for every thread (lavapipe executes an `if` body even when no lane
//! takes it), and the segment and alignment arithmetic.
//!
//! **Soundness of the evaluation** (why a claim that [`LaunchProof::holds`] accepts is true for
//! every thread): each node's abstract value (an interval of its unsigned value and a
//! residue modulo 2^k) contains the node's value for every thread of the launch (`%tid.d` in
//! `[0, ntid.d)`; `%ctaid.d` = the dispatch's workgroup id + the dispatch's base, which the
//! host keeps below `nctaid.d`; parameter words and the heap length are the launch's), by
//! induction over the DAG, each rule being exact or widening (see `Av`). Guards hold at the
//! claim (they are branch conditions dominating it, on values that never change: every node
//! is a function of launch constants and the thread's ids), so intersecting a guarded node's
//! value with what the guard allows keeps every reaching thread; an empty intersection means
//! no thread reaches the claim.

use crate::abi;
use crate::induction;
use crate::ir::{BinaryOp, Block, Builtin, CmpOp, Const, ConvertOp, Expr, Kernel, Memory, Operand, Stmt, Ty, UnaryOp, VarId};
use std::collections::HashMap;

/// One symbolic value (an integer or a boolean) of a thread, a function of launch constants
/// and the thread's ids. Operands are indices into [`LaunchProof::nodes`] (always smaller).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Const { ty: Ty, bits: u64 },
    /// Word `i` of the parameter buffer: of the parameter area, or the header's segment
    /// number (`abi::PARAM_HEAP_SEGMENT_WORD`) or globals base.
    Param(u32),
    /// `%tid.d`: `[0, workgroup_size[d])`.
    Tid(u8),
    /// `%ctaid.d`: `[0, grid[d])`.
    Ctaid(u8),
    /// The bound heap's length in words (`ir::Builtin::HeapWords`).
    HeapWords,
    Unary { op: UnaryOp, ty: Ty, arg: u32 },
    Binary { op: BinaryOp, ty: Ty, lhs: u32, rhs: u32 },
    Compare { op: CmpOp, ty: Ty, lhs: u32, rhs: u32 },
    Select { ty: Ty, cond: u32, a: u32, b: u32 },
    Convert { op: ConvertOp, from: Ty, to: Ty, arg: u32 },
    /// The current iteration (counted from 0) of loop `LaunchProof::loops[lp]`, as a `ty`
    /// value: `[0, J]`, `J` the loop's last iteration that can start (`induction`).
    Iter { lp: u32, ty: Ty },
    /// A value in `[0, max(arg)]` of `arg`'s type: a halving loop's variable inside the loop
    /// (`induction::halving_loop`: `v₀ >> (j·c) <= v₀`). `id` tells the loops apart (a guard
    /// on one loop's variable must not narrow another's, which may hold another value).
    AtMost { arg: u32, id: u32 },
}

/// A loop's exit test, over nodes of values that stay the same while the loop runs: the loop
/// goes on only if `init + (j + δ)·step op bound` holds in iteration `j` (`induction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopBound {
    pub init: u32,
    pub step: u32,
    pub bound: u32,
    pub op: CmpOp,
    pub ty: Ty,
    pub after_step: bool,
}

/// "Node `node` is `value` for every thread that reaches variable `var`'s assignment", where
/// the `guards` (node, truth) hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub var: VarId,
    pub node: u32,
    pub value: bool,
    pub guards: Vec<(u32, bool)>,
    /// A shared-memory word index claimed in range (`node` is `var <u shared words`, claimed
    /// true): the variant accesses `min(var, words - 1)` there, which the value facts bound,
    /// so the backends make the access without their check (and it defers no fault). The
    /// `min` changes nothing where the claim holds and keeps the access inside the array
    /// where it would not. Otherwise a heap access's test, as described above.
    pub shared_index: bool,
}

/// A kernel's launch precondition (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchProof {
    pub nodes: Vec<Node>,
    pub claims: Vec<Claim>,
    /// The loops whose iterations [`Node::Iter`] counts.
    pub loops: Vec<LoopBound>,
    pub workgroup_size: [u32; 3],
    /// The kernel's loops with a bound on their iterations per entry, when it has the
    /// loop-cut check (`loop_cut.rs`) and every other loop is bounded: the launch must also
    /// keep each thread's loop back-edges within [`LOOP_BUDGET`] (see [`NestLoop`]), and the
    /// variant runs without the check.
    pub loop_budget: Option<Vec<NestLoop>>,
}

/// Most loop back-edges a thread of a launch may take for the variant to leave out the
/// loop-cut check: half of llvmpipe's 65,535 (`loop_cut.rs`), so that no driver
/// transformation of the loops (peeling, rotation) can bring a thread near the limit.
pub const LOOP_BUDGET: u128 = 32_768;

/// One loop of the kernel (in statement order: an enclosing loop comes first), with the
/// innermost loop around it and how many iterations start per entry.
///
/// **The loop budget.** llvmpipe cuts a thread's loops after 65,535 back-edges in all
/// (`loop_cut.rs`), which the checked kernel detects at its end. A thread of a launch takes at
/// most `Σ_L Π_{A encloses L or is L} T(A)` back-edges, `T(A)` a bound on the iterations one
/// entry of loop `A` starts (each iteration ends in at most one back-edge, and loop `L` is
/// entered at most once per iteration of its enclosing loop, or once at all). With that sum
/// at most [`LOOP_BUDGET`] for every thread, no loop is cut, the check would never fire, and
/// the variant leaves it out (`loop_cut::strip_checks`). Loops in called functions and the
/// backends' compare-exchange loops are not counted, so kernels with atomics or calls of
/// functions that may loop get no budget (they keep the check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NestLoop {
    pub parent: Option<u32>,
    pub trips: Trips,
}

/// A bound on the iterations one entry of a loop starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trips {
    /// A single-pass loop (`induction::runs_once`).
    Once,
    /// A counted loop: `J + 1`, `J` its last iteration that can start
    /// (`LaunchProof::loops[i]`, `induction::last_iteration`).
    Counted(u32),
    /// A halving loop (`induction::halving_loop`) whose variable enters as node `init`:
    /// `bitlen(init) / shift + 1` (here `+ 2`).
    Halving { init: u32, shift: u32 },
}

/// What the host knows of a launch: the parameter buffer's words as the kernel reads them
/// (header included; the `%ctaid` base words are never read here), the grid, and the bound
/// heap's length in words.
#[derive(Clone, Copy, Debug)]
pub struct LaunchValues<'a> {
    pub params: &'a [u32],
    pub grid: [u32; 3],
    pub heap_words: u64,
}

// ------------------------------------------------------------------------------------------
// Analysis

struct Analysis<'k> {
    k: &'k Kernel,
    nodes: Vec<Node>,
    interned: HashMap<Node, u32>,
    /// Per node: the longest operand chain below it.
    depth: Vec<u32>,
    claims: Vec<Claim>,
    wanted: HashMap<VarId, bool>,
    values: Vec<bool>,
    loops: Vec<LoopBound>,
    /// The loop budget's loops so far, the loops around the walk's point, and whether some
    /// loop has no bound (then there is no budget).
    nest: Vec<NestLoop>,
    nest_stack: Vec<u32>,
    unbounded: bool,
    facts: crate::ir::IndexFacts,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Raw {
    WorkgroupId(u8),
    CtaBase(u8),
}

/// Deepest operand chain of a node: deeper addresses are not proven (the host's evaluation
/// recurses over it).
const MAX_NODE_DEPTH: u32 = 256;

/// What a variable holds at a point of the walk: a node, one of the two halves of `%ctaid`,
/// or nothing known.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sym {
    Node(u32),
    Raw(Raw),
}

/// The launch precondition of `k`'s plain heap accesses, or `None` when there is nothing to
/// claim (no such access, or none whose tests depend only on launch constants and thread ids;
/// kernels for several segments, `.address_size 32` kernels and native-warp kernels are left
/// as they are).
pub fn analyse(k: &Kernel) -> Option<LaunchProof> {
    if k.features.segment_slots >= 2 || k.features.pointers32 || k.features.native_warps || k.features.warp_fallback {
        return None;
    }
    let values = k.value_vars();
    let wanted = wanted_values(k, &values);
    if wanted.is_empty() {
        return None;
    }
    let mut a = Analysis {
        k,
        nodes: Vec::new(),
        interned: HashMap::new(),
        depth: Vec::new(),
        claims: Vec::new(),
        wanted,
        values,
        loops: Vec::new(),
        nest: Vec::new(),
        nest_stack: Vec::new(),
        unbounded: false,
        facts: k.index_facts(),
    };
    let mut env = Env { vals: vec![None; k.vars.len()], log: Vec::new() };
    let mut guards = Vec::new();
    a.block(&k.body, &mut env, &mut guards);
    if a.claims.is_empty() {
        return None;
    }
    let loop_budget = (crate::loop_cut::has_check(k) && !a.unbounded && !unseen_loops(k, &k.body)).then_some(a.nest);
    Some(LaunchProof { nodes: a.nodes, claims: a.claims, loops: a.loops, workgroup_size: k.workgroup_size, loop_budget })
}

/// The boolean values whose claimed value would remove a heap access's fault recording, with
/// that value: the conditions of lone `Fault` statements (claimed false), the conditions of
/// heap index selects `select(c, i, SINK)` (true) and of the segment test's offset select
/// `select(c, 0xffff_fff0, lo)` (false), and through `!` and `&&` (a conjunction claimed
/// true: both operands true) the values they are made of. Only comparisons are kept; a value
/// wanted both ways is dropped.
fn wanted_values(k: &Kernel, values: &[bool]) -> HashMap<VarId, bool> {
    let mut defs: HashMap<VarId, &Expr> = HashMap::new();
    let mut roots: Vec<(Operand, bool)> = Vec::new();
    fn walk<'a>(b: &'a Block, values: &[bool], defs: &mut HashMap<VarId, &'a Expr>, roots: &mut Vec<(Operand, bool)>) {
        for s in &b.stmts {
            match s {
                Stmt::Assign { dst, expr } => {
                    if values.get(dst.index()).copied().unwrap_or(false) {
                        defs.insert(*dst, expr);
                    }
                    match expr {
                        Expr::Select { ty: Ty::U32, cond, b: Operand::Const(Const::U32(abi::HEAP_SINK_WORD)), .. } => roots.push((*cond, true)),
                        Expr::Select { ty: Ty::U32, cond, a: Operand::Const(Const::U32(0xffff_fff0)), .. } => roots.push((*cond, false)),
                        _ => {}
                    }
                }
                Stmt::If { cond, then_body, else_body } if is_lone_fault(then_body, else_body) => roots.push((*cond, false)),
                _ => {}
            }
            for body in s.bodies() {
                walk(body, values, defs, roots);
            }
        }
    }
    walk(&k.body, values, &mut defs, &mut roots);
    let mut wanted: HashMap<VarId, Option<bool>> = HashMap::new();
    let mut work = roots;
    let mut steps = 0usize;
    while let Some((o, want)) = work.pop() {
        steps += 1;
        if steps > 1_000_000 {
            break;
        }
        let Operand::Var(v) = o else { continue };
        let Some(e) = defs.get(&v) else { continue };
        match e {
            Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg } => work.push((*arg, !want)),
            Expr::Binary { op: BinaryOp::And, ty: Ty::Bool, lhs, rhs } if want => {
                work.push((*lhs, true));
                work.push((*rhs, true));
            }
            Expr::Compare { .. } => {
                let w = wanted.entry(v).or_insert(Some(want));
                if *w != Some(want) {
                    *w = None;
                }
            }
            _ => {}
        }
    }
    wanted.into_iter().filter_map(|(v, w)| w.map(|w| (v, w))).collect()
}

/// Whether `b` may run loops the budget does not see: an atomic access (the backends'
/// compare-exchange loops), or a call of a function (of `k.functions`, outlined expansions)
/// that has a loop, an atomic access or a call itself.
fn unseen_loops(k: &Kernel, b: &Block) -> bool {
    fn plain(b: &Block) -> bool {
        b.stmts.iter().all(|s| {
            !matches!(s, Stmt::Loop { .. } | Stmt::Assign { expr: Expr::Call { .. } | Expr::AtomicWord { .. } | Expr::AtomicDword { .. }, .. })
                && s.bodies().all(plain)
        })
    }
    b.stmts.iter().any(|s| match s {
        Stmt::Assign { expr: Expr::AtomicWord { .. } | Expr::AtomicDword { .. }, .. } => true,
        Stmt::Assign { expr: Expr::Call { func, .. }, .. } => !k.functions.get(*func as usize).is_some_and(|f| plain(&f.body)),
        _ => s.bodies().any(|body| unseen_loops(k, body)),
    })
}

fn is_lone_fault(then_body: &Block, else_body: &Block) -> bool {
    else_body.stmts.is_empty() && !then_body.stmts.is_empty() && then_body.stmts.iter().all(|s| matches!(s, Stmt::Fault { .. }))
}

/// Every variable assigned anywhere in `b`.
fn assigned_in(b: &Block, out: &mut Vec<VarId>) {
    for s in &b.stmts {
        if let Stmt::Assign { dst, .. } = s {
            out.push(*dst);
        }
        for body in s.bodies() {
            assigned_in(body, out);
        }
    }
}

impl Analysis<'_> {
    /// The node's index; `None` past [`MAX_NODE_DEPTH`] (the host evaluates nodes
    /// recursively, on its own thread's stack).
    fn node(&mut self, n: Node) -> Option<u32> {
        if let Some(&i) = self.interned.get(&n) {
            return Some(i);
        }
        let d = |i: u32| self.depth[i as usize];
        let depth = 1 + match n {
            Node::Unary { arg, .. } | Node::Convert { arg, .. } => d(arg),
            Node::Binary { lhs, rhs, .. } | Node::Compare { lhs, rhs, .. } => d(lhs).max(d(rhs)),
            Node::Select { cond, a, b, .. } => d(cond).max(d(a)).max(d(b)),
            Node::Iter { lp, .. } => {
                let l = self.loops[lp as usize];
                d(l.init).max(d(l.step)).max(d(l.bound))
            }
            Node::AtMost { arg, .. } => d(arg),
            _ => 0,
        };
        if depth > MAX_NODE_DEPTH {
            return None;
        }
        let i = self.nodes.len() as u32;
        self.nodes.push(n);
        self.depth.push(depth);
        self.interned.insert(n, i);
        Some(i)
    }

    fn operand(&mut self, o: Operand, env: &[Option<Sym>]) -> Option<Sym> {
        match o {
            Operand::Var(v) => env.get(v.index()).copied().flatten(),
            Operand::Const(c) => match c {
                Const::Bool(_) | Const::U32(_) | Const::U64(_) => Some(Sym::Node(self.node(Node::Const { ty: c.ty(), bits: c.bits() })?)),
                _ => None,
            },
        }
    }

    fn operand_node(&mut self, o: Operand, env: &[Option<Sym>]) -> Option<u32> {
        match self.operand(o, env)? {
            Sym::Node(n) => Some(n),
            Sym::Raw(_) => None,
        }
    }

    fn expr(&mut self, e: &Expr, env: &[Option<Sym>]) -> Option<Sym> {
        let int = |t: Ty| matches!(t, Ty::Bool | Ty::U32 | Ty::U64);
        let n = match *e {
            Expr::Use(o) => return self.operand(o, env),
            Expr::Builtin(Builtin::ThreadId(d)) if d < 3 => Node::Tid(d),
            Expr::Builtin(Builtin::CtaId(d)) if d < 3 => return Some(Sym::Raw(Raw::WorkgroupId(d))),
            Expr::Builtin(Builtin::HeapWords) => Node::HeapWords,
            Expr::LoadWord { memory: Memory::Param, index: Operand::Const(Const::U32(i)) } => {
                let base = abi::PARAM_CTA_BASE_WORD;
                if (base..base + 3).contains(&i) {
                    return Some(Sym::Raw(Raw::CtaBase((i - base) as u8)));
                }
                // The parameter area, and of the header the segment number and the globals
                // base: the words the host has written when it evaluates the precondition.
                let header = [abi::PARAM_HEAP_SEGMENT_WORD, abi::PARAM_GLOBALS_BASE_WORD, abi::PARAM_GLOBALS_BASE_WORD + 1];
                if !(header.contains(&i) || (i >= abi::PARAM_HEADER_WORDS && self.k.param_word_in_range(Operand::Const(Const::U32(i))))) {
                    return None;
                }
                Node::Param(i)
            }
            Expr::Unary { op: UnaryOp::Not, ty, arg } if int(ty) => Node::Unary { op: UnaryOp::Not, ty, arg: self.operand_node(arg, env)? },
            Expr::Binary { op, ty, lhs, rhs } if int(ty) => {
                // `%ctaid.d` = the dispatch's workgroup id + its base (`grid.rs`).
                if let (BinaryOp::Add, Ty::U32, Some(Sym::Raw(x)), Some(Sym::Raw(y))) = (op, ty, self.operand(lhs, env), self.operand(rhs, env)) {
                    return match (x, y) {
                        (Raw::WorkgroupId(d), Raw::CtaBase(e)) | (Raw::CtaBase(e), Raw::WorkgroupId(d)) if d == e => Some(Sym::Node(self.node(Node::Ctaid(d))?)),
                        _ => None,
                    };
                }
                Node::Binary { op, ty, lhs: self.operand_node(lhs, env)?, rhs: self.operand_node(rhs, env)? }
            }
            Expr::Compare { op, ty, lhs, rhs } if int(ty) => Node::Compare { op, ty, lhs: self.operand_node(lhs, env)?, rhs: self.operand_node(rhs, env)? },
            Expr::Select { ty, cond, a, b } if int(ty) => Node::Select {
                ty,
                cond: self.operand_node(cond, env)?,
                a: self.operand_node(a, env)?,
                b: self.operand_node(b, env)?,
            },
            Expr::Convert { op, from, to, arg } if int(from) && int(to) && from != Ty::Bool && to != Ty::Bool => {
                Node::Convert { op, from, to, arg: self.operand_node(arg, env)? }
            }
            _ => return None,
        };
        Some(Sym::Node(self.node(n)?))
    }

    /// A claim that shared word index `index` is below the array's size, where the value facts
    /// cannot show it (see [`Claim::shared_index`]).
    fn shared_claim(&mut self, index: Operand, env: &Env, guards: &[(u32, bool)]) {
        let Operand::Var(v) = index else { return };
        let words = self.facts.shared_words;
        if words == 0 || !self.values.get(v.index()).copied().unwrap_or(false) || self.k.index_in_range(Memory::Shared, index, &self.facts) {
            return;
        }
        let Some(Sym::Node(n)) = env.vals.get(v.index()).copied().flatten() else { return };
        let Some(limit) = self.node(Node::Const { ty: Ty::U32, bits: u64::from(words) }) else { return };
        let Some(test) = self.node(Node::Compare { op: CmpOp::LtU, ty: Ty::U32, lhs: n, rhs: limit }) else { return };
        self.claims.push(Claim { var: v, node: test, value: true, guards: guards.to_vec(), shared_index: true });
    }

    fn block(&mut self, b: &Block, env: &mut Env, guards: &mut Vec<(u32, bool)>) {
        let outer = guards.len();
        for s in &b.stmts {
            match s {
                Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Shared, index }, .. } | Stmt::StoreWord { memory: Memory::Shared, index, .. } => {
                    self.shared_claim(*index, env, guards);
                    if let Stmt::Assign { dst, .. } = s {
                        env.set(dst.index(), None);
                    }
                }
                Stmt::Assign { dst, expr } => {
                    let sym = self.expr(expr, &env.vals);
                    if let (Some(&want), Some(Sym::Node(n))) = (self.wanted.get(dst), sym) {
                        if self.values.get(dst.index()).copied().unwrap_or(false) {
                            self.claims.push(Claim { var: *dst, node: n, value: want, guards: guards.clone(), shared_index: false });
                        }
                    }
                    env.set(dst.index(), sym);
                }
                Stmt::If { cond, then_body, else_body } => {
                    let c = self.operand_node(*cond, &env.vals);
                    let mut touched = Vec::new();
                    for (body, truth) in [(then_body, true), (else_body, false)] {
                        let mark = env.log.len();
                        let depth = guards.len();
                        if let Some(c) = c {
                            guards.push((c, truth));
                        }
                        self.block(body, env, guards);
                        guards.truncate(depth);
                        env.undo(mark, &mut touched);
                    }
                    // What either branch assigned is unknown after the `if`.
                    for v in touched {
                        env.set(v, None);
                    }
                    // The rest of this block runs only where a branch that always leaves it
                    // (ends in `break`, `continue` or `return`) was not taken.
                    if let Some(c) = c {
                        match (leaves(then_body), leaves(else_body)) {
                            (true, false) => guards.push((c, false)),
                            (false, true) => guards.push((c, true)),
                            _ => {}
                        }
                    }
                }
                Stmt::Loop { body } => {
                    // A loop body runs again with what it assigned: those are unknown inside
                    // it and after it, except the induction variables (`induction`), which
                    // are `v₀ + j·step` in iteration `j` when the loop's exit test bounds `j`.
                    let ind = induction::analyse_loop(body);
                    let halving = induction::halving_loop(body).and_then(|(v, shift)| Some((self.operand_node(Operand::Var(v), &env.vals)?, shift)));
                    let mut counted = None;
                    let entry: Vec<Option<(u32, u32)>> = ind
                        .ivs
                        .iter()
                        .map(|iv| Some((self.operand_node(Operand::Var(iv.var), &env.vals)?, self.operand_node(iv.step, &env.vals)?)))
                        .collect();
                    let bound = ind.exit.and_then(|t| self.operand_node(t.bound, &env.vals));
                    let mut assigned = Vec::new();
                    assigned_in(body, &mut assigned);
                    for v in &assigned {
                        env.set(v.index(), None);
                    }
                    // A halving variable stays within `[0, v₀]` in the loop.
                    if let (Some((v, _)), Some((init, _))) = (induction::halving_loop(body), halving) {
                        let id = self.nodes.len() as u32;
                        let sym = self.node(Node::AtMost { arg: init, id }).map(Sym::Node);
                        env.set(v.index(), sym);
                    }
                    if let (Some(t), Some(bound)) = (ind.exit, bound) {
                        if let Some((init, step)) = entry[t.iv] {
                            let lp = self.loops.len() as u32;
                            self.loops.push(LoopBound { init, step, bound, op: t.op, ty: t.ty, after_step: t.after_step });
                            counted = Some(lp);
                            for (iv, e) in ind.ivs.iter().zip(&entry) {
                                let Some((v0, step)) = *e else { continue };
                                let ty = iv.ty;
                                let sym = self.node(Node::Iter { lp, ty }).and_then(|j| {
                                    let m = self.node(Node::Binary { op: BinaryOp::Mul, ty, lhs: j, rhs: step })?;
                                    self.node(Node::Binary { op: BinaryOp::Add, ty, lhs: v0, rhs: m })
                                });
                                env.set(iv.var.index(), sym.map(Sym::Node));
                            }
                        }
                    }
                    // The loop budget: the loop-cut check's own loop is left out (the variant
                    // drops it with the check).
                    let check = crate::loop_cut::is_check_loop(self.k, body);
                    let mut pushed = false;
                    if !check {
                        let trips = if induction::runs_once(body) {
                            Some(Trips::Once)
                        } else if let Some(lp) = counted {
                            Some(Trips::Counted(lp))
                        } else {
                            halving.map(|(init, shift)| Trips::Halving { init, shift })
                        };
                        match trips {
                            Some(trips) => {
                                self.nest_stack.push(self.nest.len() as u32);
                                self.nest.push(NestLoop { parent: self.nest_stack.iter().rev().nth(1).copied(), trips });
                                pushed = true;
                            }
                            None => self.unbounded = true,
                        }
                    }
                    let mark = env.log.len();
                    let mut touched = Vec::new();
                    self.block(body, env, guards);
                    if pushed {
                        self.nest_stack.pop();
                    }
                    env.undo(mark, &mut touched);
                    for v in touched.into_iter().chain(assigned.iter().map(|v| v.index())) {
                        env.set(v, None);
                    }
                }
                Stmt::Switch { .. } => {
                    let mut touched = Vec::new();
                    for body in s.bodies() {
                        let mark = env.log.len();
                        self.block(body, env, guards);
                        env.undo(mark, &mut touched);
                    }
                    for v in touched {
                        env.set(v, None);
                    }
                }
                _ => {}
            }
        }
        guards.truncate(outer);
    }
}

/// Whether every path through `b` that reaches its end leaves the enclosing block (its last
/// statement is a `break`, `continue` or `return`: a `break` or `continue` there belongs to a
/// loop around the `if`, so it leaves the block that holds the `if` too).
fn leaves(b: &Block) -> bool {
    matches!(b.stmts.last(), Some(Stmt::Break | Stmt::Continue | Stmt::Return))
}

/// What each variable holds at the walk's point, with an undo log (a branch's assignments are
/// undone after it instead of copying the whole map per branch: big kernels have tens of
/// thousands of `if`s and variables).
struct Env {
    vals: Vec<Option<Sym>>,
    log: Vec<(usize, Option<Sym>)>,
}

impl Env {
    fn set(&mut self, i: usize, v: Option<Sym>) {
        if let Some(slot) = self.vals.get_mut(i) {
            self.log.push((i, *slot));
            *slot = v;
        }
    }
    /// Undoes every `set` since `mark`, adding the variables they set to `touched`.
    fn undo(&mut self, mark: usize, touched: &mut Vec<usize>) {
        while self.log.len() > mark {
            let Some((i, old)) = self.log.pop() else { break };
            self.vals[i] = old;
            touched.push(i);
        }
    }
}

// ------------------------------------------------------------------------------------------
// The variant

/// `k` without the fault recording that `proof`'s claims make unnecessary (see the module doc),
/// marked `Features::launch_specialised`. The host runs it only for launches where
/// [`LaunchProof::holds`]; `None` when nothing would change.
pub fn specialise(k: &Kernel, proof: &LaunchProof) -> Option<Kernel> {
    let claimed: HashMap<VarId, bool> = proof.claims.iter().filter(|c| !c.shared_index).map(|c| (c.var, c.value)).collect();
    let shared: std::collections::HashSet<VarId> = proof.claims.iter().filter(|c| c.shared_index).map(|c| c.var).collect();
    let mut out = k.clone();
    // Claimed segment and alignment tests become their constant; range tests keep their
    // comparison (the index select's proof for the backends) and count as true below.
    let values = k.value_vars();
    let mut defs: HashMap<VarId, Expr> = HashMap::new();
    fn collect(b: &Block, values: &[bool], defs: &mut HashMap<VarId, Expr>) {
        for s in &b.stmts {
            if let Stmt::Assign { dst, expr } = s {
                if values.get(dst.index()).copied().unwrap_or(false) {
                    defs.insert(*dst, expr.clone());
                }
            }
            for body in s.bodies() {
                collect(body, values, defs);
            }
        }
    }
    collect(&k.body, &values, &mut defs);
    fn truth(o: Operand, claimed: &HashMap<VarId, bool>, defs: &HashMap<VarId, Expr>, depth: u32) -> Option<bool> {
        match o {
            Operand::Const(Const::Bool(b)) => Some(b),
            Operand::Const(_) => None,
            Operand::Var(v) => {
                if let Some(&b) = claimed.get(&v) {
                    return Some(b);
                }
                if depth > 16 {
                    return None;
                }
                match defs.get(&v)? {
                    Expr::Use(o) => truth(*o, claimed, defs, depth + 1),
                    Expr::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg } => truth(*arg, claimed, defs, depth + 1).map(|b| !b),
                    Expr::Binary { op: BinaryOp::And, ty: Ty::Bool, lhs, rhs } => {
                        match (truth(*lhs, claimed, defs, depth + 1), truth(*rhs, claimed, defs, depth + 1)) {
                            (Some(false), _) | (_, Some(false)) => Some(false),
                            (Some(true), Some(true)) => Some(true),
                            _ => None,
                        }
                    }
                    Expr::Binary { op: BinaryOp::Or, ty: Ty::Bool, lhs, rhs } => {
                        match (truth(*lhs, claimed, defs, depth + 1), truth(*rhs, claimed, defs, depth + 1)) {
                            (Some(true), _) | (_, Some(true)) => Some(true),
                            (Some(false), Some(false)) => Some(false),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
        }
    }
    fn is_range_test(e: &Expr) -> bool {
        matches!(e, Expr::Compare { op: CmpOp::LtU, ty: Ty::U32, .. })
    }
    let mut changed = false;
    fn rewrite(b: &mut Block, claimed: &HashMap<VarId, bool>, defs: &HashMap<VarId, Expr>, changed: &mut bool) {
        b.stmts.retain_mut(|s| {
            match s {
                Stmt::Assign { dst, expr } => {
                    if let Some(&value) = claimed.get(dst) {
                        if !(value && is_range_test(expr)) {
                            *expr = Expr::Use(Operand::Const(Const::Bool(value)));
                            *changed = true;
                        }
                    }
                }
                Stmt::If { cond, then_body, else_body } if is_lone_fault(then_body, else_body) && truth(*cond, claimed, defs, 0) == Some(false) => {
                    *changed = true;
                    return false;
                }
                _ => {}
            }
            for body in s.bodies_mut() {
                rewrite(body, claimed, defs, changed);
            }
            true
        });
    }
    rewrite(&mut out.body, &claimed, &defs, &mut changed);
    if !shared.is_empty() && out.shared_words > 0 && !out.shared_dwords() {
        let last = out.shared_words - 1;
        fn clamp(b: &mut Block, shared: &std::collections::HashSet<VarId>, last: u32, vars: &mut Vec<crate::ir::VarInfo>, changed: &mut bool) {
            let mut i = 0;
            while i < b.stmts.len() {
                for body in b.stmts[i].bodies_mut() {
                    clamp(body, shared, last, vars, changed);
                }
                let index = match &mut b.stmts[i] {
                    Stmt::Assign { expr: Expr::LoadWord { memory: Memory::Shared, index }, .. } | Stmt::StoreWord { memory: Memory::Shared, index, .. } => Some(index),
                    _ => None,
                };
                if let Some(index) = index {
                    if let Operand::Var(v) = *index {
                        if shared.contains(&v) {
                            vars.push(crate::ir::VarInfo { ty: Ty::U32, name: "shared_index.claimed".into() });
                            let j = VarId(vars.len() as u32 - 1);
                            *index = Operand::Var(j);
                            let min = Expr::Binary { op: BinaryOp::MinU, ty: Ty::U32, lhs: Operand::Var(v), rhs: Operand::Const(Const::U32(last)) };
                            b.stmts.insert(i, Stmt::Assign { dst: j, expr: min });
                            *changed = true;
                            i += 1;
                        }
                    }
                }
                i += 1;
            }
        }
        clamp(&mut out.body, &shared, last, &mut out.vars, &mut changed);
    }
    // The launch keeps every thread's back-edges within the budget: no loop is cut, and the
    // loop-cut check would never fire (`NestLoop`).
    if proof.loop_budget.is_some() && crate::loop_cut::strip_checks(&mut out) {
        changed = true;
    }
    if !changed {
        return None;
    }
    // The removed faults' site assignments, now read by nothing, go too.
    crate::fault_site::remove_dead_sites(&mut out);
    out.features.launch_specialised = true;
    Some(out)
}

// ------------------------------------------------------------------------------------------
// Evaluation at launch

/// An abstract integer of width `w`: every value `v` it stands for has `lo <= v <= hi` (the
/// unsigned value) and `v ≡ r (mod 2^k)`. Booleans are width 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Av {
    lo: u128,
    hi: u128,
    k: u32,
    r: u128,
}

fn width(ty: Ty) -> u32 {
    match ty {
        Ty::Bool => 1,
        Ty::U64 | Ty::F64 => 64,
        _ => 32,
    }
}

fn pow2(k: u32) -> u128 {
    1u128 << k
}

impl Av {
    fn point(v: u128, w: u32) -> Av {
        Av { lo: v, hi: v, k: w, r: v }
    }
    fn top(w: u32, k: u32, r: u128) -> Av {
        Av { lo: 0, hi: pow2(w) - 1, k, r }
    }
    /// Residue reduced, interval tightened to the values with that residue; `None`: empty.
    fn norm(mut self, w: u32) -> Option<Av> {
        self.k = self.k.min(w);
        let m = pow2(self.k);
        self.r %= m;
        self.hi = self.hi.min(pow2(w) - 1);
        if self.lo > self.hi {
            return None;
        }
        let up = (self.r + m - self.lo % m) % m;
        let down = (self.hi % m + m - self.r) % m;
        if self.hi < down {
            return None;
        }
        let (lo, hi) = (self.lo + up, self.hi - down);
        if lo > hi {
            return None;
        }
        self.lo = lo;
        self.hi = hi;
        Some(self)
    }
    fn point_value(&self) -> Option<u128> {
        (self.lo == self.hi).then_some(self.lo)
    }
    fn intersect(self, o: Av, w: u32) -> Option<Av> {
        // Keep the stronger residue knowledge when they agree; otherwise only the interval.
        let (k, r) = if self.k >= o.k { (self.k, self.r) } else { (o.k, o.r) };
        let kk = self.k.min(o.k);
        if self.r % pow2(kk) != o.r % pow2(kk) {
            return None;
        }
        Av { lo: self.lo.max(o.lo), hi: self.hi.min(o.hi), k, r }.norm(w)
    }
    /// Signed range `[lo, hi]` of a `w`-bit value, when it does not straddle the sign change.
    fn signed(&self, w: u32) -> Option<(i128, i128)> {
        let half = pow2(w - 1);
        if self.hi < half {
            Some((self.lo as i128, self.hi as i128))
        } else if self.lo >= half {
            Some((self.lo as i128 - pow2(w) as i128, self.hi as i128 - pow2(w) as i128))
        } else {
            None
        }
    }
}

fn trailing_zeros(v: u128, w: u32) -> u32 {
    if v == 0 {
        w
    } else {
        v.trailing_zeros().min(w)
    }
}


struct Eval<'a> {
    proof: &'a LaunchProof,
    launch: LaunchValues<'a>,
    /// What guards add, per node.
    facts: HashMap<u32, Av>,
    /// Per node: not evaluated yet (`None`), or its outcome.
    memo: Vec<Option<Out>>,
}

/// The outcome of evaluating a node: its abstract value, or "no thread gets here" (`None`).
type Out = Option<Av>;

impl Eval<'_> {
    fn ty_of(&self, n: u32) -> Ty {
        match self.proof.nodes[n as usize] {
            Node::Const { ty, .. } => ty,
            Node::Param(_) | Node::Tid(_) | Node::Ctaid(_) | Node::HeapWords => Ty::U32,
            Node::Unary { ty, .. } | Node::Binary { ty, .. } | Node::Select { ty, .. } => ty,
            Node::Compare { .. } => Ty::Bool,
            Node::Convert { to, .. } => to,
            Node::Iter { ty, .. } => ty,
            Node::AtMost { arg, .. } => self.ty_of(arg),
        }
    }

    fn eval(&mut self, n: u32) -> Out {
        if let Some(Some(v)) = self.memo.get(n as usize) {
            return *v;
        }
        let w = width(self.ty_of(n));
        let mut v = self.compute(n, w).and_then(|v| v.norm(w));
        if let (Some(x), Some(f)) = (v, self.facts.get(&n)) {
            v = x.intersect(*f, w);
        }
        self.memo[n as usize] = Some(v);
        v
    }

    fn compute(&mut self, n: u32, w: u32) -> Out {
        let full = pow2(w);
        Some(match self.proof.nodes[n as usize] {
            Node::Const { bits, .. } => Av::point(bits as u128 % full, w),
            Node::Param(i) => match self.launch.params.get(i as usize) {
                Some(&p) => Av::point(p as u128, 32),
                None => Av::top(32, 0, 0),
            },
            Node::Tid(d) => {
                let n = self.proof.workgroup_size[d as usize] as u128;
                if n == 0 {
                    return None;
                }
                Av { lo: 0, hi: n - 1, k: 0, r: 0 }
            }
            Node::Ctaid(d) => {
                let n = self.launch.grid[d as usize] as u128;
                if n == 0 {
                    return None;
                }
                Av { lo: 0, hi: n - 1, k: 0, r: 0 }
            }
            Node::HeapWords => Av::point(self.launch.heap_words.min(u32::MAX as u64) as u128, 32),
            Node::Iter { lp, .. } => {
                let l = self.proof.loops[lp as usize];
                let (i, s, b) = (self.eval(l.init)?, self.eval(l.step)?, self.eval(l.bound)?);
                let bounds = |a: Av| induction::Bounds { lo: a.lo, hi: a.hi, k: a.k, r: a.r };
                match induction::last_iteration(l.op, width(l.ty), bounds(i), bounds(s), bounds(b), l.after_step) {
                    Some(j) => Av { lo: 0, hi: j.min(full - 1), k: 0, r: 0 },
                    None => Av::top(w, 0, 0),
                }
            }
            Node::AtMost { arg, .. } => Av { lo: 0, hi: self.eval(arg)?.hi, k: 0, r: 0 },
            Node::Unary { op: UnaryOp::Not, arg, .. } => {
                let a = self.eval(arg)?;
                match a.point_value() {
                    Some(x) => Av::point((full - 1) ^ x, w),
                    None if w == 1 => Av::top(1, 0, 0),
                    None => Av::top(w, 0, 0),
                }
            }
            Node::Unary { .. } => Av::top(w, 0, 0),
            Node::Binary { op, lhs, rhs, .. } => {
                let (a, b) = (self.eval(lhs)?, self.eval(rhs)?);
                binary(op, a, b, w)
            }
            Node::Compare { op, lhs, rhs, ty } => {
                let (a, b) = (self.eval(lhs)?, self.eval(rhs)?);
                match compare(op, a, b, width(ty)) {
                    Some(t) => Av::point(t as u128, 1),
                    None => Av::top(1, 0, 0),
                }
            }
            Node::Select { cond, a, b, .. } => {
                let c = self.eval(cond)?;
                match c.point_value() {
                    Some(1) => self.eval(a)?,
                    Some(_) => self.eval(b)?,
                    None => {
                        // Either side may be taken; an unreachable side adds nothing.
                        match (self.eval(a), self.eval(b)) {
                            (Some(x), Some(y)) => Av { lo: x.lo.min(y.lo), hi: x.hi.max(y.hi), k: 0, r: 0 },
                            (Some(x), None) | (None, Some(x)) => x,
                            (None, None) => return None,
                        }
                    }
                }
            }
            Node::Convert { op, from, to, arg } => {
                let a = self.eval(arg)?;
                let (wf, wt) = (width(from), width(to));
                match op {
                    ConvertOp::ZeroExtend | ConvertOp::Bitcast if wt >= wf => a,
                    ConvertOp::SignExtend if wt >= wf => {
                        let half = pow2(wf - 1);
                        if a.hi < half {
                            a
                        } else if a.lo >= half {
                            let d = pow2(wt) - pow2(wf);
                            Av { lo: a.lo + d, hi: a.hi + d, k: a.k.min(wf), r: a.r + d }
                        } else {
                            Av::top(wt, a.k.min(wf), a.r)
                        }
                    }
                    ConvertOp::Truncate if wt <= wf => {
                        if a.lo >> wt == a.hi >> wt {
                            let d = (a.lo >> wt) << wt;
                            Av { lo: a.lo - d, hi: a.hi - d, k: a.k.min(wt), r: a.r }
                        } else {
                            Av::top(wt, a.k.min(wt), a.r)
                        }
                    }
                    _ => Av::top(wt, 0, 0),
                }
            }
        })
    }
}

/// `a op b` in `w`-bit modular arithmetic, as an abstract value: exact where both are points
/// or the interval result stays inside `[0, 2^w)`, the full range (residue kept: it survives
/// the wrap, `k <= w`) where it might wrap.
fn binary(op: BinaryOp, a: Av, b: Av, w: u32) -> Av {
    let full = pow2(w);
    let mask = full - 1;
    let k = a.k.min(b.k);
    let m = pow2(k);
    if let (Some(x), Some(y)) = (a.point_value(), b.point_value()) {
        let v = match op {
            BinaryOp::Add => Some((x + y) & mask),
            BinaryOp::Sub => Some((x + full - y) & mask),
            BinaryOp::Mul => Some(x.wrapping_mul(y) & mask),
            BinaryOp::And => Some(x & y),
            BinaryOp::Or => Some(x | y),
            BinaryOp::Xor => Some(x ^ y),
            BinaryOp::Shl if y < w as u128 => Some((x << y) & mask),
            BinaryOp::ShrU if y < w as u128 => Some(x >> y),
            BinaryOp::MinU => Some(x.min(y)),
            BinaryOp::MaxU => Some(x.max(y)),
            _ => None,
        };
        if let Some(v) = v {
            return Av::point(v, w);
        }
    }
    match op {
        BinaryOp::Add => {
            let r = (a.r + b.r) % m;
            let (lo, hi) = (a.lo + b.lo, a.hi + b.hi);
            if hi < full {
                Av { lo, hi, k, r }
            } else if lo >= full {
                Av { lo: lo - full, hi: hi - full, k, r }
            } else {
                Av::top(w, k, r)
            }
        }
        BinaryOp::Sub => {
            let r = (a.r + m - b.r % m) % m;
            let (lo, hi) = (a.lo as i128 - b.hi as i128, a.hi as i128 - b.lo as i128);
            if lo >= 0 {
                Av { lo: lo as u128, hi: hi as u128, k, r }
            } else if hi < 0 {
                Av { lo: (lo + full as i128) as u128, hi: (hi + full as i128) as u128, k, r }
            } else {
                Av::top(w, k, r)
            }
        }
        BinaryOp::Mul | BinaryOp::Shl => {
            let b = if op == BinaryOp::Shl {
                match b.point_value() {
                    Some(s) if s < w as u128 => Av::point(1u128 << s, w),
                    _ => return Av::top(w, 0, 0),
                }
            } else {
                b
            };
            // v = r + t·2^k times a constant c: ≡ r·c mod 2^(k + tz(c)).
            let (k, r) = match (a.point_value(), b.point_value()) {
                (_, Some(c)) => {
                    let k = (a.k + trailing_zeros(c, w)).min(w);
                    (k, a.r.wrapping_mul(c) % pow2(k))
                }
                (Some(c), _) => {
                    let k = (b.k + trailing_zeros(c, w)).min(w);
                    (k, b.r.wrapping_mul(c) % pow2(k))
                }
                _ => (k, a.r.wrapping_mul(b.r) % m),
            };
            match a.hi.checked_mul(b.hi) {
                Some(hi) if hi < full => Av { lo: a.lo * b.lo, hi, k, r },
                _ => Av::top(w, k, r),
            }
        }
        BinaryOp::ShrU => match b.point_value() {
            Some(s) if s < w as u128 => {
                let s = s as u32;
                let (k, r) = if a.k >= s { (a.k - s, a.r >> s) } else { (0, 0) };
                Av { lo: a.lo >> s, hi: a.hi >> s, k, r }
            }
            _ => Av::top(w, 0, 0),
        },
        BinaryOp::And => {
            let hi = a.hi.min(b.hi);
            let (k, r) = match (a.point_value(), b.point_value()) {
                (_, Some(c)) | (Some(c), _) => {
                    let other = if b.point_value() == Some(c) { a } else { b };
                    let tz = trailing_zeros(c, w);
                    if other.k >= tz {
                        (other.k, (other.r & c) % pow2(other.k))
                    } else {
                        (tz, 0)
                    }
                }
                _ => (k, (a.r & b.r) % m),
            };
            Av { lo: 0, hi, k, r }
        }
        BinaryOp::Or => Av { lo: a.lo.max(b.lo), hi: (a.hi + b.hi).min(mask), k, r: (a.r | b.r) % m },
        BinaryOp::Xor => Av::top(w, k, (a.r ^ b.r) % m),
        BinaryOp::MinU => Av { lo: a.lo.min(b.lo), hi: a.hi.min(b.hi), k: 0, r: 0 },
        BinaryOp::MaxU => Av { lo: a.lo.max(b.lo), hi: a.hi.max(b.hi), k: 0, r: 0 },
        _ => Av::top(w, 0, 0),
    }
}

/// `a op b` when it is the same for every pair of values the two stand for.
fn compare(op: CmpOp, a: Av, b: Av, w: u32) -> Option<bool> {
    use CmpOp::*;
    let ordered = |a: (i128, i128), b: (i128, i128), op: CmpOp| -> Option<bool> {
        match op {
            LtU | LtS => if a.1 < b.0 { Some(true) } else if a.0 >= b.1 { Some(false) } else { None },
            LeU | LeS => if a.1 <= b.0 { Some(true) } else if a.0 > b.1 { Some(false) } else { None },
            GtU | GtS => if a.0 > b.1 { Some(true) } else if a.1 <= b.0 { Some(false) } else { None },
            GeU | GeS => if a.0 >= b.1 { Some(true) } else if a.1 < b.0 { Some(false) } else { None },
            _ => None,
        }
    };
    match op {
        Eq | Ne => {
            let kk = a.k.min(b.k);
            let differ = a.hi < b.lo || b.hi < a.lo || a.r % pow2(kk) != b.r % pow2(kk);
            let same = a.point_value().is_some() && a.point_value() == b.point_value();
            let eq = if same { Some(true) } else if differ { Some(false) } else { None };
            eq.map(|e| if op == Eq { e } else { !e })
        }
        LtU | LeU | GtU | GeU => ordered((a.lo as i128, a.hi as i128), (b.lo as i128, b.hi as i128), op),
        LtS | LeS | GtS | GeS => ordered(a.signed(w)?, b.signed(w)?, op),
        _ => None,
    }
}

/// What `lhs op rhs` (holding) says of each side, as new bounds; `None`: it cannot hold.
/// Signed comparisons are refined where neither side straddles the sign change (then each
/// side is one interval of signed values, which maps back to one unsigned interval).
fn refine(op: CmpOp, a: Av, b: Av, w: u32) -> Option<(Av, Av)> {
    use CmpOp::*;
    let (sa, sb, unsigned) = match op {
        LtS | LeS | GtS | GeS => {
            let (Some(sa), Some(sb)) = (a.signed(w), b.signed(w)) else { return Some((a, b)) };
            (sa, sb, false)
        }
        LtU | LeU | GtU | GeU => ((a.lo as i128, a.hi as i128), (b.lo as i128, b.hi as i128), true),
        Eq => {
            let i = a.intersect(b, w)?;
            return Some((i, i));
        }
        Ne => {
            // A side that is one value `p` takes `p` off an end of the other's interval (a
            // head-tested `for (i = k; i != n; i += s)` loop's body sees `i != n`).
            let trim = |x: Av, p: Option<u128>| -> Option<Av> {
                match p {
                    Some(p) if x.lo == p && x.hi == p => None,
                    Some(p) if x.lo == p => Av { lo: p + 1, ..x }.norm(w),
                    Some(p) if x.hi == p => Av { hi: p - 1, ..x }.norm(w),
                    _ => Some(x),
                }
            };
            return Some((trim(a, b.point_value())?, trim(b, a.point_value())?));
        }
        _ => return Some((a, b)),
    };
    let (mut na, mut nb) = (sa, sb);
    match op {
        LtU | LtS => {
            na.1 = na.1.min(sb.1 - 1);
            nb.0 = nb.0.max(sa.0 + 1);
        }
        LeU | LeS => {
            na.1 = na.1.min(sb.1);
            nb.0 = nb.0.max(sa.0);
        }
        GtU | GtS => {
            na.0 = na.0.max(sb.0 + 1);
            nb.1 = nb.1.min(sa.1 - 1);
        }
        _ => {
            na.0 = na.0.max(sb.0);
            nb.1 = nb.1.min(sa.1);
        }
    }
    if na.0 > na.1 || nb.0 > nb.1 {
        return None;
    }
    let back = |orig: Av, (lo, hi): (i128, i128)| -> Option<Av> {
        // Unsigned: as is. Signed: a range that did not straddle 0 keeps its sign.
        let shift = if !unsigned && lo < 0 { pow2(w) as i128 } else { 0 };
        Av { lo: (lo + shift) as u128, hi: (hi + shift) as u128, ..orig }.norm(w)
    };
    Some((back(a, na)?, back(b, nb)?))
}

impl LaunchProof {
    /// Whether every claim holds for this launch (see the module doc); `false` whenever one
    /// cannot be shown.
    pub fn holds(&self, launch: LaunchValues) -> bool {
        self.verdicts(launch, true).iter().all(|&v| v) && self.loop_budget_holds(launch)
    }

    /// Whether every thread of the launch takes at most [`LOOP_BUDGET`] loop back-edges
    /// (see [`NestLoop`]); `true` for a proof without a loop budget. The bounds are evaluated
    /// without guards, over every thread's values (a wider range only gives a larger bound).
    pub fn loop_budget_holds(&self, launch: LaunchValues) -> bool {
        let Some(nest) = &self.loop_budget else { return true };
        let mut ev = Eval { proof: self, launch, facts: HashMap::new(), memo: vec![None; self.nodes.len()] };
        // Per loop: a bound on its iterations per thread (entries times iterations per entry).
        let mut total_of: Vec<u128> = Vec::with_capacity(nest.len());
        let mut sum: u128 = 0;
        for l in nest {
            let t: u128 = match l.trips {
                Trips::Once => 1,
                Trips::Counted(lp) => {
                    let Some(&b) = self.loops.get(lp as usize) else { return false };
                    let (Some(i), Some(s), Some(n)) = (ev.eval(b.init), ev.eval(b.step), ev.eval(b.bound)) else {
                        // No thread computes the loop's values: no thread runs it.
                        total_of.push(0);
                        continue;
                    };
                    let bounds = |a: Av| induction::Bounds { lo: a.lo, hi: a.hi, k: a.k, r: a.r };
                    match induction::last_iteration(b.op, width(b.ty), bounds(i), bounds(s), bounds(n), b.after_step) {
                        Some(j) => j.saturating_add(1),
                        None => return false,
                    }
                }
                Trips::Halving { init, shift } => match ev.eval(init) {
                    Some(a) => u128::from((128 - a.hi.leading_zeros()) / shift.max(1)) + 2,
                    None => 0,
                },
            };
            let outer = match l.parent {
                Some(p) => match total_of.get(p as usize) {
                    Some(&o) => o,
                    None => return false,
                },
                None => 1,
            };
            let mine = outer.saturating_mul(t).min(u128::MAX >> 8);
            total_of.push(mine);
            sum = sum.saturating_add(mine);
            if sum > LOOP_BUDGET {
                return false;
            }
        }
        sum <= LOOP_BUDGET
    }

    /// Which claims fail for this launch (indices into [`LaunchProof::claims`]): for tests and
    /// diagnostics.
    pub fn failing_claims(&self, launch: LaunchValues) -> Vec<usize> {
        self.verdicts(launch, false).iter().enumerate().filter(|(_, &v)| !v).map(|(i, _)| i).collect()
    }

    /// Each claim's verdict (with `stop`, the verdicts up to the first failure). Claims under
    /// the same guards (consecutive, usually: one branch's accesses) share the guards' facts
    /// and the evaluation of their nodes.
    fn verdicts(&self, launch: LaunchValues, stop: bool) -> Vec<bool> {
        let mut out = Vec::with_capacity(self.claims.len());
        let mut i = 0;
        while i < self.claims.len() {
            let guards = &self.claims[i].guards;
            let end = i + self.claims[i..].iter().take_while(|c| &c.guards == guards).count();
            let mut ev = Eval { proof: self, launch, facts: HashMap::new(), memo: vec![None; self.nodes.len()] };
            let mut reached = true;
            // Two rounds: a guard's bounds may tighten another guard's operands.
            'rounds: for _ in 0..2 {
                let mut facts: HashMap<u32, Av> = ev.facts.clone();
                for &(g, truth) in guards {
                    if !self.guard(g, truth, &mut ev, &mut facts, 0) {
                        reached = false; // no thread reaches these claims
                        break 'rounds;
                    }
                }
                ev.facts = facts;
                ev.memo.iter_mut().for_each(|m| *m = None);
            }
            for c in &self.claims[i..end] {
                let ok = !reached
                    || match ev.eval(c.node) {
                        None => true,
                        Some(v) => v.point_value() == Some(c.value as u128),
                    };
                out.push(ok);
                if stop && !ok {
                    return out;
                }
            }
            i = end;
        }
        out
    }

    /// Adds what guard `g == truth` says to `facts`; `false` when no thread can satisfy it.
    fn guard(&self, g: u32, truth: bool, ev: &mut Eval, facts: &mut HashMap<u32, Av>, depth: u32) -> bool {
        if depth > 16 {
            return true;
        }
        let add = |n: u32, v: Av, w: u32, facts: &mut HashMap<u32, Av>| -> bool {
            let v = match facts.get(&n) {
                Some(f) => match f.intersect(v, w) {
                    Some(i) => i,
                    None => return false,
                },
                None => v,
            };
            facts.insert(n, v);
            true
        };
        match self.nodes[g as usize] {
            Node::Unary { op: UnaryOp::Not, ty: Ty::Bool, arg } => self.guard(arg, !truth, ev, facts, depth + 1),
            Node::Binary { op: BinaryOp::And, ty: Ty::Bool, lhs, rhs } if truth => {
                self.guard(lhs, true, ev, facts, depth + 1) && self.guard(rhs, true, ev, facts, depth + 1)
            }
            Node::Binary { op: BinaryOp::Or, ty: Ty::Bool, lhs, rhs } if !truth => {
                self.guard(lhs, false, ev, facts, depth + 1) && self.guard(rhs, false, ev, facts, depth + 1)
            }
            Node::Compare { op, ty, lhs, rhs } => {
                let Some(op) = (if truth { Some(op) } else { op.integer_negation() }) else { return false };
                let w = width(ty);
                let (Some(a), Some(b)) = (ev.eval(lhs), ev.eval(rhs)) else { return false };
                match refine(op, a, b, w) {
                    None => false,
                    Some((a, b)) => add(lhs, a, w, facts) && add(rhs, b, w, facts),
                }
            }
            _ => add(g, Av::point(truth as u128, 1), 1, facts),
        }
    }
}
