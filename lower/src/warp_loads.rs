//! Global loads given to a whole warp: one lane's value, broadcast, in kernels whose warp
//! collectives the static meeting proof (`meeting`) clears only if such a load is the same in
//! each warp (CUB's segmented reductions and radix sorts branch on `d_begin_offsets[blockIdx.x]`
//! and `d_end_offsets[blockIdx.x]` before their warp reductions).
//!
//! **Why a per-lane load may differ.** Each lane's `ld.global` is its own memory operation.
//! Another thread may write the word during the launch (a data race is defined, §8.7.1: the
//! read returns some write's value), so lanes that read one address at one instruction may
//! read different values, and a branch on them may split the warp. The proof takes loads as
//! per lane.
//!
//! **The broadcast.** Every lane of the warp that runs the load performs it as before, then
//! takes the value of the lowest of those lanes (`FnLower::broadcast_first_lane`: an internal
//! `shfl.sync.idx` whose source lane is the lowest lane executing it; native subgroups or the
//! emulation, like any collective). That value is one NVIDIA could give each lane, when:
//! - the address is the same in those lanes (else they would read different words); the proof
//!   checks it with its own rules (`meeting::Site::uniform`: at most per warp), together with
//!   the load's block (run by whole warps at once) and no guard;
//! - the load comes before every operation of the thread that could constrain which write it
//!   reads ([`first_accesses`]): no store, atomic, fence, barrier, strong (`.relaxed`,
//!   `.acquire`, `.volatile`, `.mmio`) or generic access, call or other instruction with a
//!   memory effect on any path from the kernel's entry, and no global load except others of
//!   the same block given the same way. The axioms restrict the writes a read may return only
//!   through causality order (§8.10.6 Causality), coherence (§8.10.1) and, for morally strong
//!   operations, per-location sequential consistency (§8.10.5). A weak load is strong with
//!   nothing but the thread's own operations (§8.7: related in program order); before any of
//!   the operations above, no write precedes the read in base causality order (§8.9.5: that
//!   needs a synchronizing operation, a fence or barrier, or a write of the thread before it)
//!   and nothing of the thread's own overlaps it but earlier loads — and observation order
//!   (§8.9.5, causality order clause 2) through an earlier load of the same address is why
//!   only loads broadcast in the same block may come first: every lane running a block runs
//!   it together, so all those loads take the same lowest lane's values, and every lane gets
//!   exactly the reads that lane made, in its program order. So every lane may read what the
//!   lowest lane read, as if the warp had loaded once. A race is no longer visible as lanes
//!   that disagree; the test `warp_meeting` writes the offsets during the launch and checks
//!   that the lanes of each warp agree.
//!
//! `ld.param` is already the same in every thread (read-only: `Memory::Param`). `ld.const` and
//! `ld.global.nc` (read-only for the kernel's lifetime) are heap loads like `ld.global`, taken
//! the same way here.
//!
//! The kernel is lowered once as before, recording the candidate loads (`ld.global`/`.const`,
//! unguarded, weak, 32-bit words or narrower, outside the scheduler) and the instructions that
//! order memory; where the proof fails, `meeting::broadcasts_clearing` says which candidates
//! would clear it, and the kernel is lowered again with those broadcast, where the proof must
//! clear it with them (their sites checked as any collective's), or it keeps the first lowering
//! (`kernel::lower_body`).

use crate::cfg::{Cfg, NodeId};
use crate::ir::{Operand, VarId};
use ptxcross_frontend::ast::{Instruction, Span};

/// What the lowering of one kernel body records and reads (`FnLower::warp_loads`).
#[derive(Default)]
pub struct WarpLoads {
    /// Record candidates and ordering points (a kernel outside the scheduler, without meeting
    /// checks, in a module with waiting warp collectives).
    pub record: bool,
    pub candidates: Vec<Candidate>,
    /// Block and instruction number (`FnLower::inst_serial`) of every instruction that may
    /// constrain a later load's value (see [`orders_memory`]), candidates excepted.
    pub ordering_points: Vec<(NodeId, u64)>,
    /// The loads (by span) to broadcast in this lowering.
    pub broadcast: Vec<Span>,
}

impl WarpLoads {
    /// Records the load being lowered as a candidate: not an ordering point itself
    /// ([`first_accesses`] sees it as a candidate).
    pub fn add_candidate(&mut self, c: Candidate) {
        if self.ordering_points.last().is_some_and(|&(_, s)| s == c.serial) {
            self.ordering_points.pop();
        }
        self.candidates.push(c);
    }
}

/// A load that may be broadcast: `results` are the variables holding its values (one per
/// vector element), `site` its would-be collective site (`uniform`: its address).
pub struct Candidate {
    pub site: crate::meeting::Site,
    pub serial: u64,
    pub results: Vec<VarId>,
}

/// Instructions with no memory effect and no ordering: register arithmetic, moves and
/// conversions, control transfers, and the warp collectives (which order no memory, unlike
/// `bar.warp.sync`, §9.7.13.2). Everything else counts as ordering memory (conservative).
const NO_MEMORY_EFFECT: &[&str] = &[
    "mov", "cvta", "setp", "selp", "add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max", "abs", "neg", "and", "or", "xor",
    "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "shf", "prmt", "lop3", "fns", "slct", "isspacep", "sqrt",
    "rcp", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp", "cvt", "set", "mul24", "mad24", "addc", "subc",
    "madc", "sad", "bfind", "bmsk", "szext", "dp4a", "dp2a", "bra", "brx", "ret", "exit", "shfl", "vote", "activemask", "redux",
    "match", "elect",
];

/// Whether `inst` may constrain the value a later `ld.global` of the thread reads (see the
/// module comment): anything but the instructions above and weak loads of memory no global
/// access overlaps (`.param`, `.shared`, `.local`).
pub fn orders_memory(inst: &Instruction) -> bool {
    let name = inst.opcode.name.as_str();
    if NO_MEMORY_EFFECT.contains(&name) {
        return false;
    }
    let has = |m: &str| inst.modifiers.iter().any(|x| x.text == m);
    let strong = ["acquire", "relaxed", "volatile", "mmio"].iter().any(|m| has(m));
    let private = ["param", "param::entry", "param::func", "shared", "shared::cta", "local"].iter().any(|m| has(m));
    !(matches!(name, "ld" | "ldu") && !strong && private)
}

/// The candidates (indices) before which no ordering point lies on any path from the entry,
/// other than candidates earlier in their own block: the CFG's block `b` is reached from no
/// block with an ordering point (nor from itself through a loop), and its own ordering points
/// come after the candidate.
pub fn first_accesses(cfg: &Cfg, wl: &WarpLoads) -> Vec<usize> {
    let n = cfg.blocks.len();
    // Blocks entered after some ordering point.
    let mut after = vec![false; n];
    let mut work: Vec<NodeId> = wl.ordering_points.iter().flat_map(|&(b, _)| cfg.blocks[b].term.successors()).collect();
    // A candidate's block ends with it having run: later blocks come after it.
    work.extend(wl.candidates.iter().flat_map(|c| cfg.blocks[c.site.node].term.successors()));
    while let Some(b) = work.pop() {
        if !std::mem::replace(&mut after[b], true) {
            work.extend(cfg.blocks[b].term.successors());
        }
    }
    (0..wl.candidates.len())
        .filter(|&i| {
            let c = &wl.candidates[i];
            !after[c.site.node] && !wl.ordering_points.iter().any(|&(b, s)| b == c.site.node && s < c.serial)
        })
        .collect()
}

/// The collective site a candidate load at `node` becomes when broadcast: every lane of the
/// warp, no guard, `address` the same across the lanes running it (`Site::uniform`).
pub fn site(node: NodeId, span: Span, address: Operand) -> crate::meeting::Site {
    crate::meeting::Site {
        node,
        span,
        guard: crate::meeting::Guard::None,
        member: Operand::Const(crate::ir::Const::U32(u32::MAX)),
        member_is_active: false,
        uniform: Some(address),
    }
}

/// `chosen` (candidate indices) less those after an unchosen candidate of their own block: a
/// broadcast load may follow only loads of its block that are broadcast too (module comment).
pub fn closed_in_blocks(wl: &WarpLoads, chosen: &[usize]) -> Vec<usize> {
    let is_chosen = |i: usize| chosen.contains(&i);
    chosen
        .iter()
        .copied()
        .filter(|&i| {
            let c = &wl.candidates[i];
            wl.candidates.iter().enumerate().all(|(j, d)| d.site.node != c.site.node || d.serial >= c.serial || is_chosen(j))
        })
        .collect()
}
