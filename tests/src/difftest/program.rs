//! The generated programs: a structured tree ([`Stmt`]) that the generator builds and the
//! minimizer shrinks, flattened into a goto program ([`Flat`]) that is both printed as PTX and
//! executed by the model (`model.rs`), so the model runs exactly the branches the PTX has.
//!
//! Every program has the same frame: a fixed prologue loads each thread's registers from its
//! input words, sets up per-thread memory and bases; the body is the generated code; every exit
//! (the end, and each early `ret`) runs the epilogue, which stores the thread's registers,
//! predicates, local and shared slots and an exit id to its output words.

use std::fmt::Write;

/// `.b32` registers `%r0..`, `.b64` registers `%rd0..`, predicates `%p0..`.
pub const NR: usize = 8;
pub const ND: usize = 2;
pub const NP: usize = 4;
/// Words per thread: local memory, shared read-write slots, global scratch slots.
pub const NL: usize = 4;
pub const NS: usize = 4;
pub const NG: usize = 4;
/// Words of a device function's own `.local` array (`calls.rs`).
pub const NF: usize = 2;
/// Input words per thread: registers, 64-bit registers, predicate bits, three pad words (the
/// prologue reads them with 16-byte vector loads).
pub const NIN: usize = NR + 2 * ND + 4;
/// Output words per thread (see [`epilogue_layout`]); written with 16-byte vector stores.
pub const NOUT: usize = NR + 2 * ND + NP + NL + NS + 4;
/// Read-only shared regions (`sh_ro0`, `sh_ro1`), one word per thread, filled by `Publish`.
pub const NRO: usize = 2;
/// Bytes of the input table every thread may read (the start of the input buffer).
pub const TABLE_BYTES: u32 = 1024;
/// Loop counters (one per nesting depth).
pub const MAX_DEPTH: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reg {
    /// `%rN` (`.b32`)
    R(u8),
    /// `%rdN` (`.b64`)
    D(u8),
    /// `%cN`: the loop counter of nesting depth N (`.b32`); only loop frames write it.
    C(u8),
    /// `%mN`: a membermask (`.b32`) of the meeting family (`meet.rs`); only
    /// [`Coll::MaskBallot`] writes it, every thread starts with all ones.
    M(u8),
    /// `%tx`, the thread's `%tid.x` (read only; the meeting family branches on lanes).
    Tid,
}

/// Membermask registers `%m0..` (see [`Reg::M`]).
pub const NM: usize = 3;

/// The membermask operand of a warp collective: `0xffffffff`, or a `%mN` register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mask {
    Full,
    Reg(u8),
    Const(u32),
}

/// The shared-memory exchange of a [`Coll::WarpSync`]: `st.shared` of `%rV` into the thread's
/// word of `sh_x`, the `bar.warp.sync`, then `%rD` = the word of lane `lane ^ k` if that lane is
/// in the membermask, else the thread's own; [`flatten`] puts a second `bar.warp.sync` after it
/// (no lane stores again before every partner has read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Xchg {
    pub v: u8,
    pub d: u8,
    pub k: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Reg(Reg),
    Imm(u64),
}

/// `@%pN` or `@!%pN`; `p == NP` is `%q`, the frames' own predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub p: u8,
    pub neg: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntTy {
    U32,
    S32,
    U64,
    S64,
}

impl IntTy {
    pub fn bits(self) -> u32 {
        match self {
            IntTy::U32 | IntTy::S32 => 32,
            _ => 64,
        }
    }
    pub fn signed(self) -> bool {
        matches!(self, IntTy::S32 | IntTy::S64)
    }
    pub fn name(self) -> &'static str {
        match self {
            IntTy::U32 => "u32",
            IntTy::S32 => "s32",
            IntTy::U64 => "u64",
            IntTy::S64 => "s64",
        }
    }
    pub fn mask(self) -> u64 {
        if self.bits() == 32 {
            0xffff_ffff
        } else {
            u64::MAX
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    MulLo,
    MulHi,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    /// The divisor is made positive and non-zero first (`(b | 1) & MAX`), since PTX leaves
    /// division by zero and `MIN / -1` unspecified.
    Div,
    Rem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    Not,
    Neg,
    Abs,
    Popc,
    Clz,
    Brev,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Memory a thread addresses, each a power-of-two number of bytes (see [`Mem::bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mem {
    /// The thread's global scratch words (read-write).
    Scratch,
    /// The first [`TABLE_BYTES`] of the input buffer (read-only, shared by all threads).
    Table,
    /// The thread's shared-memory slots (read-write).
    SharedRw,
    /// Read-only shared region k: one word per thread of the CTA, written by `Publish`.
    SharedRo(u8),
    /// The thread's local memory (read-write).
    Local,
    /// The running device function's own `.local` words (`calls.rs`): one copy per activation.
    Frame,
}

impl Mem {
    pub fn bytes(self, block: u32) -> u32 {
        match self {
            Mem::Scratch => NG as u32 * 4,
            Mem::Table => TABLE_BYTES,
            Mem::SharedRw => NS as u32 * 4,
            Mem::SharedRo(_) => block * 4,
            Mem::Local => NL as u32 * 4,
            Mem::Frame => NF as u32 * 4,
        }
    }
    pub fn writable(self) -> bool {
        matches!(self, Mem::Scratch | Mem::SharedRw | Mem::Local | Mem::Frame)
    }
    pub fn space(self) -> &'static str {
        match self {
            Mem::Scratch | Mem::Table => ".global",
            Mem::SharedRw | Mem::SharedRo(_) => ".shared",
            Mem::Local | Mem::Frame => ".local",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    U8,
    S8,
    U16,
    S16,
    B32,
    B64,
}

impl Width {
    pub fn bytes(self) -> u32 {
        match self {
            Width::U8 | Width::S8 => 1,
            Width::U16 | Width::S16 => 2,
            Width::B32 => 4,
            Width::B64 => 8,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Width::U8 => "u8",
            Width::S8 => "s8",
            Width::U16 => "u16",
            Width::S16 => "s16",
            Width::B32 => "u32",
            Width::B64 => "u64",
        }
    }
}

/// A byte offset into `mem`: `(index & (size/width - 1)) * width` with a register index, else
/// `off` (a multiple of the width below the size). `generic`: through a generic address
/// (`cvta`), else the space's own instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub mem: Mem,
    pub index: Option<u8>,
    pub off: u32,
    pub generic: bool,
}

impl Addr {
    /// The byte offset inside `mem` given the index register's value.
    pub fn offset(&self, index_value: u32, width: Width, block: u32) -> u32 {
        let w = width.bytes();
        match self.index {
            Some(_) => (index_value & (self.mem.bytes(block) / w - 1)) * w,
            None => self.off,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ins {
    Bin { op: Bin, ty: IntTy, d: Reg, a: Src, b: Src },
    Un { op: Un, ty: IntTy, d: Reg, a: Src },
    /// `mad.lo`/`mad.hi`.
    Mad { hi: bool, ty: IntTy, d: Reg, a: Src, b: Src, c: Src },
    /// `mul.wide.{u32,s32} %rd, a, b` (+ `c` of 64 bits: `mad.wide`).
    Wide { signed: bool, d: Reg, a: Src, b: Src, c: Option<Src> },
    Setp { cmp: Cmp, ty: IntTy, p: u8, a: Src, b: Src, combine: Option<(BoolOp, Guard)> },
    Selp { ty: IntTy, d: Reg, a: Src, b: Src, p: u8 },
    /// `cvt.{to}.{from}` between 32 and 64 bits.
    Cvt { to: IntTy, from: IntTy, d: Reg, a: Reg },
    Mov { ty: IntTy, d: Reg, a: Src },
    Ld { w: Width, d: Reg, addr: Addr },
    St { w: Width, addr: Addr, v: Reg },
    /// `bfe.{ty} d, a, pos, len` (pos, len: u32).
    Bfe { ty: IntTy, d: Reg, a: Src, pos: Src, len: Src },
    /// `bfi.b{32,64} d, a, b, pos, len`: `a`'s low bits inserted into `b`.
    Bfi { ty: IntTy, d: Reg, a: Src, b: Src, pos: Src, len: Src },
    /// `prmt.b32 d, a, b, c` (the generic byte permute).
    Prmt { d: Reg, a: Src, b: Src, c: Src },
    /// `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`.
    Shf { left: bool, clamp: bool, d: Reg, a: Src, b: Src, c: Src },
    /// A floating-point instruction (see `fops.rs`).
    F(super::fops::FIns),
    /// An integer instruction beyond the base set (see `xops.rs`).
    X(super::xops::XIns),
    /// The adversary's families (see `hops.rs`).
    H(super::hops::HIns),
}

/// How many iterations a loop runs: `(%rN & mask) + add`, read when the loop starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trip {
    pub reg: u8,
    pub mask: u32,
    pub add: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Ins(Option<Guard>, Ins),
    /// Runs `then_` when the guard holds, else `else_` (forward branches).
    If { g: Guard, then_: Vec<Stmt>, else_: Vec<Stmt> },
    /// A counted loop; `do_while`: the test at the bottom (a backward predicated branch),
    /// else at the top (the trip count may be 0).
    Loop { do_while: bool, trip: Trip, body: Vec<Stmt> },
    /// Leaves the loop `up` levels out from the innermost one (0 = innermost).
    Break { g: Guard, up: u8 },
    /// Goes to the innermost loop's latch.
    Continue { g: Guard },
    /// A loop with two entries: `@g bra B; A: a; B: b; latch → A`. Irreducible.
    Irreducible { g: Guard, trip: Trip, a: Vec<Stmt>, b: Vec<Stmt> },
    /// Early exit: runs the epilogue and `ret`.
    Ret { g: Guard },
    /// Every thread stores `%rV` into its word of shared region `region`, then `bar.sync 0`.
    /// Only at the top level, before any `Ret` (the generator and the model check it).
    Publish { region: u8, v: u8 },
    /// A collective (see [`Coll`]).
    Coll(Coll),
    /// A call of a device function of [`Program::funcs`] (see `calls.rs`), `@g` if guarded.
    Call { g: Option<Guard>, call: super::calls::Call },
    /// A do-while loop whose trip count, `(table word `word` & mask) + 1`, is the same for every
    /// thread (the table is read-only input shared by all), so collectives in its body are
    /// reached by every non-exited thread the same number of times. Breaks and continues in
    /// its body never leave it.
    ULoop { word: u8, mask: u32, body: Vec<Stmt> },
}

/// Warp/CTA collectives (issue 10): generated only where every non-exited thread of the CTA
/// reaches the same sequence of them (the top level, or the top level of a [`Stmt::ULoop`]
/// body), with the full membermask, so the PTX is defined; the model checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coll {
    /// `bar.sync 0`.
    Bar,
    /// `shfl.sync.mode.b32 %rD[|%pP], %rA, b, c, m`.
    Shfl { mode: ShflMode, d: u8, p: Option<u8>, a: u8, b: Src, c: u32, m: Mask },
    /// `vote.sync.{all,any,uni}.pred %pD, {!}%pA, m` or `vote.sync.ballot.b32 %rD, {!}%pA, m`.
    Vote { mode: VoteMode, d: u8, a: Guard, m: Mask },
    /// `bar.warp.sync 0xffffffff; activemask.b32 %rD` (converged first, so the mask is every
    /// non-exited lane of the warp).
    Activemask { d: u8 },
    /// `redux.sync.op.{u32,s32,b32} %rD, %rA, m`.
    Redux { op: ReduxOp, signed: bool, d: u8, a: u8, m: Mask },
    /// `match.any.sync.b32 %rD, %rA, m`.
    Match { d: u8, a: u8, m: Mask },
    /// `vote.sync.ballot.b32 %mM, {!}%pG, 0xffffffff` (no guard: a predicate true in every
    /// thread): the meeting family's membermasks, the live lanes (of a branch).
    MaskBallot { m: u8, g: Option<Guard> },
    /// `bar.warp.sync m`, with a shared-memory exchange around it (see [`Xchg`]).
    WarpSync { m: Mask, x: Option<Xchg> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

/// A whole test case: the program and its launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub body: Vec<Stmt>,
    pub grid: u32,
    pub block: u32,
    /// Device functions the body calls (`calls.rs`); empty in the other generators' programs,
    /// whose PTX is then printed exactly as before.
    pub funcs: Vec<super::calls::Func>,
}

/// The flat goto program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flat {
    Label(u32),
    Bra { g: Option<Guard>, target: u32 },
    Op { g: Option<Guard>, ins: Ins },
    /// Store the thread's state (exit id `id`) and `ret` (`g`: only when the guard holds —
    /// printed as a branch around it).
    Exit { id: u32 },
    /// `st.shared` of `%rV` into the thread's word of region, then `bar.sync 0`.
    Publish { region: u8, v: u8 },
    Coll(Coll),
    /// A call (`calls.rs`); in a device function, `Exit` is its `ret` (the returns stored).
    Call { g: Option<Guard>, call: super::calls::Call, depth: super::calls::Depth },
}

/// Flattens `program`'s kernel body. Labels are numbered densely from 0.
pub fn flatten(program: &Program) -> Vec<Flat> {
    flatten_body(&program.body, None)
}

/// Flattens a body: the kernel's (`func` = None) or device function `func`'s.
pub fn flatten_body(body: &[Stmt], func: Option<usize>) -> Vec<Flat> {
    let mut f = Flattener { out: Vec::new(), labels: 0, loops: Vec::new(), exits: 0, func };
    f.block(body);
    let id = f.exit_id();
    f.out.push(Flat::Exit { id });
    f.out
}

struct LoopLabels {
    latch: u32,
    exit: u32,
}

struct Flattener {
    out: Vec<Flat>,
    labels: u32,
    loops: Vec<LoopLabels>,
    exits: u32,
    /// The device function being flattened (`None`: the kernel).
    func: Option<usize>,
}

impl Flattener {
    fn label(&mut self) -> u32 {
        self.labels += 1;
        self.labels - 1
    }
    fn exit_id(&mut self) -> u32 {
        self.exits += 1;
        self.exits
    }
    fn op(&mut self, g: Option<Guard>, ins: Ins) {
        self.out.push(Flat::Op { g, ins });
    }
    fn not(g: Guard) -> Guard {
        Guard { p: g.p, neg: !g.neg }
    }
    /// `%c = (%r & mask) + add`; at least 1 when the loop counts down before testing.
    fn trip(&mut self, c: Reg, t: Trip, at_least_one: bool) {
        let add = if at_least_one { t.add.max(1) } else { t.add };
        self.op(None, Ins::Bin { op: Bin::And, ty: IntTy::U32, d: c, a: Src::Reg(Reg::R(t.reg)), b: Src::Imm(t.mask as u64) });
        self.op(None, Ins::Bin { op: Bin::Add, ty: IntTy::U32, d: c, a: Src::Reg(c), b: Src::Imm(add as u64) });
    }
    /// `%c -= 1; %q = %c != 0`
    fn count_down(&mut self, c: Reg) {
        self.op(None, Ins::Bin { op: Bin::Sub, ty: IntTy::U32, d: c, a: Src::Reg(c), b: Src::Imm(1) });
        self.op(None, Ins::Setp { cmp: Cmp::Ne, ty: IntTy::U32, p: NP as u8, a: Src::Reg(c), b: Src::Imm(0), combine: None });
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let q = Guard { p: NP as u8, neg: false };
        match s {
            Stmt::Ins(g, ins) => self.op(*g, *ins),
            Stmt::If { g, then_, else_ } => {
                let (l_else, l_end) = (self.label(), self.label());
                self.out.push(Flat::Bra { g: Some(Self::not(*g)), target: l_else });
                self.block(then_);
                self.out.push(Flat::Bra { g: None, target: l_end });
                self.out.push(Flat::Label(l_else));
                self.block(else_);
                self.out.push(Flat::Label(l_end));
            }
            Stmt::Loop { do_while, trip, body } if self.loops.len() < MAX_DEPTH => {
                let c = Reg::C(self.loops.len() as u8);
                let (head, latch, exit) = (self.label(), self.label(), self.label());
                self.trip(c, *trip, *do_while);
                self.out.push(Flat::Label(head));
                if !do_while {
                    self.op(None, Ins::Setp { cmp: Cmp::Eq, ty: IntTy::U32, p: NP as u8, a: Src::Reg(c), b: Src::Imm(0), combine: None });
                    self.out.push(Flat::Bra { g: Some(q), target: exit });
                }
                self.loops.push(LoopLabels { latch, exit });
                self.block(body);
                self.loops.pop();
                self.out.push(Flat::Label(latch));
                if *do_while {
                    self.count_down(c);
                    self.out.push(Flat::Bra { g: Some(q), target: head });
                } else {
                    self.op(None, Ins::Bin { op: Bin::Sub, ty: IntTy::U32, d: c, a: Src::Reg(c), b: Src::Imm(1) });
                    self.out.push(Flat::Bra { g: None, target: head });
                }
                self.out.push(Flat::Label(exit));
            }
            Stmt::Irreducible { g, trip, a, b } if self.loops.len() < MAX_DEPTH => {
                let c = Reg::C(self.loops.len() as u8);
                let (la, lb, latch, exit) = (self.label(), self.label(), self.label(), self.label());
                self.trip(c, *trip, true);
                self.out.push(Flat::Bra { g: Some(*g), target: lb });
                self.out.push(Flat::Label(la));
                self.loops.push(LoopLabels { latch, exit });
                self.block(a);
                self.out.push(Flat::Label(lb));
                self.block(b);
                self.loops.pop();
                self.out.push(Flat::Label(latch));
                self.count_down(c);
                self.out.push(Flat::Bra { g: Some(q), target: la });
                self.out.push(Flat::Label(exit));
            }
            // Too deep (the minimizer may nest bodies further): the body runs once.
            Stmt::Loop { body, .. } => self.block(body),
            Stmt::Irreducible { a, b, .. } => {
                self.block(a);
                self.block(b);
            }
            Stmt::Break { g, up } => {
                if let Some(l) = self.loops.len().checked_sub(1 + *up as usize).map(|i| self.loops[i].exit) {
                    self.out.push(Flat::Bra { g: Some(*g), target: l });
                }
            }
            Stmt::Continue { g } => {
                if let Some(l) = self.loops.last().map(|l| l.latch) {
                    self.out.push(Flat::Bra { g: Some(*g), target: l });
                }
            }
            Stmt::Ret { g } => {
                let skip = self.label();
                self.out.push(Flat::Bra { g: Some(Self::not(*g)), target: skip });
                let id = self.exit_id();
                self.out.push(Flat::Exit { id });
                self.out.push(Flat::Label(skip));
            }
            Stmt::Publish { region, v } => self.out.push(Flat::Publish { region: *region, v: *v }),
            Stmt::Coll(c) => {
                self.out.push(Flat::Coll(*c));
                if let Coll::WarpSync { m, x: Some(_) } = *c {
                    // The exchange's second `bar.warp.sync`: a collective of its own.
                    self.out.push(Flat::Coll(Coll::WarpSync { m, x: None }));
                }
            }
            Stmt::Call { g, call } => {
                let depth = super::calls::Depth::of(self.func, call);
                self.out.push(Flat::Call { g: *g, call: call.clone(), depth });
            }
            Stmt::ULoop { word, mask, body } if self.loops.len() < MAX_DEPTH => {
                let c = Reg::C(self.loops.len() as u8);
                let (head, latch, exit) = (self.label(), self.label(), self.label());
                let addr = Addr { mem: Mem::Table, index: None, off: *word as u32 * 4, generic: false };
                self.op(None, Ins::Ld { w: Width::B32, d: c, addr });
                self.op(None, Ins::Bin { op: Bin::And, ty: IntTy::U32, d: c, a: Src::Reg(c), b: Src::Imm(*mask as u64) });
                self.op(None, Ins::Bin { op: Bin::Add, ty: IntTy::U32, d: c, a: Src::Reg(c), b: Src::Imm(1) });
                self.out.push(Flat::Label(head));
                self.loops.push(LoopLabels { latch, exit });
                self.block(body);
                self.loops.pop();
                self.out.push(Flat::Label(latch));
                self.count_down(c);
                self.out.push(Flat::Bra { g: Some(q), target: head });
                self.out.push(Flat::Label(exit));
            }
            Stmt::ULoop { body, .. } => self.block(body),
        }
    }
}

/// Output words of a thread: `%r*`, `%rd*` (low, high), predicates (0/1), local words,
/// shared slots, exit id.
pub fn epilogue_layout() -> [(&'static str, usize); 6] {
    [("r", NR), ("rd", 2 * ND), ("p", NP), ("local", NL), ("shared", NS), ("exit", 4)]
}

/// A register's PTX name.
pub(super) fn reg(r: Reg) -> String {
    match r {
        Reg::R(i) => format!("%r{i}"),
        Reg::D(i) => format!("%rd{i}"),
        Reg::C(i) => format!("%c{i}"),
        Reg::M(i) => format!("%m{i}"),
        Reg::Tid => "%tx".into(),
    }
}

/// A predicate register's PTX name.
pub(super) fn pred(p: u8) -> String {
    if p as usize == NP {
        "%q".into()
    } else {
        format!("%p{p}")
    }
}

fn guard(g: Option<Guard>) -> String {
    match g {
        Some(g) => format!("@{}{} ", if g.neg { "!" } else { "" }, pred(g.p)),
        None => String::new(),
    }
}

/// An immediate of type `ty`, in the range PTX's integer literals give it.
fn imm(v: u64, ty: IntTy) -> String {
    let v = v & ty.mask();
    match (ty.signed(), ty.bits()) {
        (true, 32) => format!("{}", v as u32 as i32),
        (true, _) => format!("{}", v as i64),
        (false, 32) => format!("{v}"),
        (false, _) if v > i64::MAX as u64 => format!("{v:#x}U"),
        (false, _) => format!("{v}"),
    }
}

fn src(s: Src, ty: IntTy) -> String {
    match s {
        Src::Reg(r) => reg(r),
        Src::Imm(v) => imm(v, ty),
    }
}

fn cmp_name(c: Cmp, ty: IntTy) -> &'static str {
    match (c, ty.signed()) {
        (Cmp::Eq, _) => "eq",
        (Cmp::Ne, _) => "ne",
        (Cmp::Lt, true) => "lt",
        (Cmp::Le, true) => "le",
        (Cmp::Gt, true) => "gt",
        (Cmp::Ge, true) => "ge",
        (Cmp::Lt, false) => "lo",
        (Cmp::Le, false) => "ls",
        (Cmp::Gt, false) => "hi",
        (Cmp::Ge, false) => "hs",
    }
}

fn bits_name(ty: IntTy) -> &'static str {
    if ty.bits() == 32 {
        "b32"
    } else {
        "b64"
    }
}

/// Prints the kernel `name` of `program` (`flat` = [`flatten`]`(program)`).
pub fn print(program: &Program, flat: &[Flat], name: &str) -> String {
    let b = program.block;
    let mut s = String::new();
    let w = &mut s;
    // redux.sync needs sm_80; programs without collectives keep the header they always had.
    // So do bf16 conversions; programs without either keep the header they always had.
    // bmsk and szext need PTX 7.6.
    let xints = flat.iter().any(|f| matches!(f, Flat::Op { ins: Ins::X(_), .. }));
    let floats = xints || flat.iter().any(|f| matches!(f, Flat::Op { ins: Ins::F(_), .. }));
    let target = if floats || flat.iter().any(|f| matches!(f, Flat::Coll(_))) { "sm_80" } else { "sm_70" };
    // `.b128` loads and stores need PTX 8.3.
    let b128 = flat.iter().any(|f| matches!(f, Flat::Op { ins: Ins::X(super::xops::XIns::Vec { b128: true, .. }), .. }));
    // The hx families: bf16 add/sub/mul and fp8 conversions need sm_90 (PTX 7.8).
    let hx = flat.iter().any(|f| matches!(f, Flat::Op { ins: Ins::H(_), .. }));
    let carry = flat.iter().any(|f| matches!(f, Flat::Op { ins: Ins::H(h), .. } if h.uses_carry()));
    let target = if hx { "sm_90" } else { target };
    // Float programs convert bf16 (`cvt.f32.bf16` needs PTX 7.1; the CUDA driver refuses it
    // under 7.0, while ptxcross accepts it).
    let version = if b128 || hx { "8.3" } else if xints { "7.6" } else if floats { "7.1" } else { "7.0" };
    let _ = writeln!(w, ".version {version}\n.target {target}\n.address_size 64\n");
    // Callees before callers (function k calls only functions above k, or itself).
    for k in (0..program.funcs.len()).rev() {
        super::calls::print_func(w, program, k);
    }
    let _ = writeln!(w, ".visible .entry {name}(.param .u64 out, .param .u64 scratch, .param .u64 inp)\n{{");
    let _ = writeln!(w, "    .reg .b32 %r<{NR}>;\n    .reg .b64 %rd<{ND}>;\n    .reg .pred %p<{NP}>;\n    .reg .pred %q;");
    let _ = writeln!(w, "    .reg .b32 %c<{MAX_DEPTH}>;\n    .reg .b32 %t<4>;\n    .reg .b64 %ta<2>;");
    let _ = writeln!(w, "    .reg .b32 %tx, %gt, %bs, %bo<{NRO}>;\n    .reg .b64 %bg, %bi, %bl, %bout, %pin;");
    if floats {
        let _ = writeln!(w, "    .reg .b16 %h<2>;\n    .reg .pred %pf;");
    }
    if hx {
        let _ = writeln!(w, "    .reg .b16 %hx<8>;");
        if !floats {
            let _ = writeln!(w, "    .reg .pred %pf;");
        }
    }
    if b128 {
        let _ = writeln!(w, "    .reg .b128 %qq;");
    }
    if !program.funcs.is_empty() {
        let _ = writeln!(w, "{}", super::calls::CALLER_REGS);
    }
    let meets = meets(flat);
    if meets {
        let _ = writeln!(w, "    .reg .b32 %m<{NM}>, %bx, %bxs;\n    .reg .pred %pm;\n    .shared .align 4 .b32 sh_x[{b}];");
    }
    for k in 0..NRO {
        let _ = writeln!(w, "    .shared .align 8 .b32 sh_ro{k}[{b}];");
    }
    let _ = writeln!(w, "    .shared .align 16 .b8 sh_rw[{}];", b as usize * NS * 4);
    let _ = writeln!(w, "    .local .align 16 .b8 loc[{}];", NL * 4);
    // Prologue (modelled by `model::Thread::new`).
    let _ = writeln!(
        w,
        "    ld.param.u64 %bout, [out];\n    ld.param.u64 %bg, [scratch];\n    ld.param.u64 %pin, [inp];\n\
         \x20   mov.u32 %tx, %tid.x;\n    mov.u32 %t0, %ctaid.x;\n    mov.u32 %t1, %ntid.x;\n    mad.lo.s32 %gt, %t0, %t1, %tx;\n\
         \x20   mul.wide.u32 %ta0, %gt, {};\n    add.s64 %ta0, %pin, %ta0;",
        NIN * 4
    );
    for i in (0..NR).step_by(4) {
        let _ = writeln!(w, "    ld.global.v4.u32 {{%r{}, %r{}, %r{}, %r{}}}, [%ta0+{}];", i, i + 1, i + 2, i + 3, i * 4);
    }
    for i in (0..ND).step_by(2) {
        let _ = writeln!(w, "    ld.global.v2.u64 {{%rd{}, %rd{}}}, [%ta0+{}];", i, i + 1, (NR + 2 * i) * 4);
    }
    let _ = writeln!(w, "    ld.global.u32 %t0, [%ta0+{}];", (NR + 2 * ND) * 4);
    for i in 0..NP {
        let _ = writeln!(w, "    and.b32 %t1, %t0, {};\n    setp.ne.u32 %p{i}, %t1, 0;", 1u32 << i);
    }
    for i in 0..MAX_DEPTH {
        let _ = writeln!(w, "    mov.u32 %c{i}, 0;");
    }
    let _ = writeln!(w, "    setp.ne.u32 %q, %t0, %t0;");
    let _ = writeln!(
        w,
        "    mov.u64 %bi, %pin;\n    mul.wide.u32 %ta1, %gt, {};\n    add.s64 %bg, %bg, %ta1;\n\
         \x20   mul.wide.u32 %ta1, %gt, {};\n    add.s64 %bout, %bout, %ta1;\n\
         \x20   mov.u32 %bs, sh_rw;\n    mad.lo.s32 %bs, %tx, {}, %bs;\n    mov.u64 %bl, loc;",
        NG * 4,
        NOUT * 4,
        NS * 4
    );
    for k in 0..NRO {
        let _ = writeln!(w, "    mov.u32 %bo{k}, sh_ro{k};");
    }
    for k in (0..NL).step_by(4) {
        let r: Vec<String> = (k..k + 4).map(|k| format!("%r{}", init_local_reg(k))).collect();
        let _ = writeln!(w, "    st.local.v4.u32 [%bl+{}], {{{}}};", k * 4, r.join(", "));
    }
    for k in (0..NS).step_by(4) {
        let r: Vec<String> = (k..k + 4).map(|k| format!("%r{}", init_shared_reg(k))).collect();
        let _ = writeln!(w, "    st.shared.v4.u32 [%bs+{}], {{{}}};", k * 4, r.join(", "));
    }
    if !program.funcs.is_empty() {
        // Device functions reach the thread's local words through a generic pointer.
        let _ = writeln!(w, "    cvta.local.u64 %blg, %bl;");
    }
    if meets {
        for k in 0..NM {
            let _ = writeln!(w, "    mov.u32 %m{k}, -1;");
        }
        let _ = writeln!(w, "    setp.eq.u32 %pm, %tx, %tx;\n    mov.u32 %bxs, sh_x;\n    mad.lo.s32 %bx, %tx, 4, %bxs;");
    }
    if carry {
        // The carry flag starts undefined (§9.7.2): cleared by an addition that cannot carry.
        let _ = writeln!(w, "    add.cc.u32 %t1, %t1, 0;");
    }
    let ctx = Ctx { block: b, program, func: None };
    for f in flat {
        print_flat(w, f, &ctx);
    }
    let _ = writeln!(w, "}}");
    s
}

/// What printing a body needs besides its statements.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub block: u32,
    pub program: &'a Program,
    /// The device function being printed (`None`: the kernel).
    pub func: Option<usize>,
}

/// The register whose input value initializes local word `k` / shared slot `k`.
pub fn init_local_reg(k: usize) -> usize {
    (k + 1) % NR
}
pub fn init_shared_reg(k: usize) -> usize {
    (k + 5) % NR
}

pub(super) fn print_flat(w: &mut String, f: &Flat, ctx: &Ctx) {
    match f {
        Flat::Label(l) => {
            let _ = writeln!(w, "$L{l}:");
        }
        Flat::Bra { g, target } => {
            let _ = writeln!(w, "    {}bra $L{target};", guard(*g));
        }
        Flat::Op { g, ins } => print_ins(w, *g, ins, ctx),
        Flat::Call { g, call, depth } => super::calls::print_call(w, *g, call, *depth, ctx),
        Flat::Exit { .. } if ctx.func.is_some() => super::calls::print_return(w, ctx),
        Flat::Coll(c) => print_coll(w, c),
        Flat::Publish { region, v } => {
            let _ = writeln!(
                w,
                "    shl.b32 %t2, %tx, 2;\n    add.s32 %t2, %t2, %bo{region};\n    st.shared.u32 [%t2], %r{v};\n    bar.sync 0;"
            );
        }
        Flat::Exit { id } => {
            // Groups of four words, each one 16-byte store.
            let mut o = 0;
            let mut st = |w: &mut String, four: [String; 4]| {
                let _ = writeln!(w, "    st.global.v4.u32 [%bout+{}], {{{}}};", o * 16, four.join(", "));
                o += 1;
            };
            let t = || ["%t0", "%t1", "%t2", "%t3"].map(String::from);
            for i in (0..NR).step_by(4) {
                st(w, std::array::from_fn(|k| format!("%r{}", i + k)));
            }
            for i in (0..ND).step_by(2) {
                let _ = writeln!(w, "    mov.b64 {{%t0, %t1}}, %rd{};\n    mov.b64 {{%t2, %t3}}, %rd{};", i, i + 1);
                st(w, t());
            }
            for i in 0..NP {
                let _ = writeln!(w, "    selp.u32 %t{i}, 1, 0, %p{i};");
            }
            st(w, t());
            for k in (0..NL).step_by(4) {
                let _ = writeln!(w, "    ld.local.v4.u32 {{%t0, %t1, %t2, %t3}}, [%bl+{}];", k * 4);
                st(w, t());
            }
            for k in (0..NS).step_by(4) {
                let _ = writeln!(w, "    ld.shared.v4.u32 {{%t0, %t1, %t2, %t3}}, [%bs+{}];", k * 4);
                st(w, t());
            }
            let _ = writeln!(w, "    mov.u32 %t0, {id};");
            st(w, ["%t0", "%t0", "%t0", "%t0"].map(String::from));
            let _ = writeln!(w, "    ret;");
        }
    }
}

const FULL: &str = "0xffffffff";

fn mask(m: Mask) -> String {
    match m {
        Mask::Full => FULL.into(),
        Mask::Reg(k) => format!("%m{k}"),
        Mask::Const(m) => format!("{m:#x}"),
    }
}

/// Whether a program uses the meeting family's registers and exchange words (`meet.rs`).
fn meets(flat: &[Flat]) -> bool {
    flat.iter().any(|f| {
        matches!(
            f,
            Flat::Coll(
                Coll::MaskBallot { .. }
                    | Coll::WarpSync { .. }
                    | Coll::Shfl { m: Mask::Reg(_), .. }
                    | Coll::Vote { m: Mask::Reg(_), .. }
                    | Coll::Redux { m: Mask::Reg(_), .. }
                    | Coll::Match { m: Mask::Reg(_), .. }
            ) | Flat::Op { ins: Ins::Mov { a: Src::Reg(Reg::M(_)), .. }, .. }
        )
    })
}

fn print_coll(w: &mut String, c: &Coll) {
    let _ = match *c {
        Coll::Bar => writeln!(w, "    bar.sync 0;"),
        Coll::Shfl { mode, d, p, a, b, c, m } => {
            let mode = match mode {
                ShflMode::Up => "up",
                ShflMode::Down => "down",
                ShflMode::Bfly => "bfly",
                ShflMode::Idx => "idx",
            };
            let p = p.map_or(String::new(), |p| format!("|{}", pred(p)));
            writeln!(w, "    shfl.sync.{mode}.b32 %r{d}{p}, %r{a}, {}, {c:#x}, {};", src(b, IntTy::U32), mask(m))
        }
        Coll::Vote { mode, d, a, m } => {
            let a = format!("{}{}", if a.neg { "!" } else { "" }, pred(a.p));
            let m = mask(m);
            match mode {
                VoteMode::Ballot => writeln!(w, "    vote.sync.ballot.b32 %r{d}, {a}, {m};"),
                VoteMode::All => writeln!(w, "    vote.sync.all.pred {}, {a}, {m};", pred(d)),
                VoteMode::Any => writeln!(w, "    vote.sync.any.pred {}, {a}, {m};", pred(d)),
                VoteMode::Uni => writeln!(w, "    vote.sync.uni.pred {}, {a}, {m};", pred(d)),
            }
        }
        Coll::MaskBallot { m, g } => {
            let a = g.map_or("%pm".to_string(), |g| format!("{}{}", if g.neg { "!" } else { "" }, pred(g.p)));
            writeln!(w, "    vote.sync.ballot.b32 %m{m}, {a}, {FULL};")
        }
        Coll::WarpSync { m, x: None } => writeln!(w, "    bar.warp.sync {};", mask(m)),
        Coll::WarpSync { m, x: Some(Xchg { v, d, k }) } => {
            // %t2 = lane ^ k's thread if that lane is in the membermask, else the thread itself.
            let m = mask(m);
            writeln!(
                w,
                "    st.shared.u32 [%bx], %r{v};\n    bar.warp.sync {m};\n\
                 \x20   xor.b32 %t2, %tx, {k};\n    and.b32 %t2, %t2, 31;\n    shr.b32 %t3, {m}, %t2;\n    and.b32 %t3, %t3, 1;\n\
                 \x20   mul.lo.u32 %t3, %t3, {k};\n    xor.b32 %t2, %tx, %t3;\n    shl.b32 %t2, %t2, 2;\n    add.u32 %t2, %t2, %bxs;\n\
                 \x20   ld.shared.u32 %r{d}, [%t2];"
            )
        }
        Coll::Activemask { d } => writeln!(w, "    bar.warp.sync {FULL};\n    activemask.b32 %r{d};"),
        Coll::Redux { op, signed, d, a, m } => {
            let (op, ty) = match op {
                ReduxOp::Add => ("add", if signed { "s32" } else { "u32" }),
                ReduxOp::Min => ("min", if signed { "s32" } else { "u32" }),
                ReduxOp::Max => ("max", if signed { "s32" } else { "u32" }),
                ReduxOp::And => ("and", "b32"),
                ReduxOp::Or => ("or", "b32"),
                ReduxOp::Xor => ("xor", "b32"),
            };
            writeln!(w, "    redux.sync.{op}.{ty} %r{d}, %r{a}, {};", mask(m))
        }
        Coll::Match { d, a, m } => writeln!(w, "    match.any.sync.b32 %r{d}, %r{a}, {};", mask(m)),
    };
}

fn print_ins(w: &mut String, g: Option<Guard>, ins: &Ins, ctx: &Ctx) {
    let block = ctx.block;
    // In a device function the local base `%bl` is a generic pointer (an argument).
    let generic_local = ctx.func.is_some();
    let gs = guard(g);
    let _ = match *ins {
        Ins::Bin { op: op @ (Bin::Div | Bin::Rem), ty, d, a, b } => {
            // A positive, non-zero divisor (see `Bin::Div`).
            let (t, max) = if ty.bits() == 32 { ("%t3", "2147483647".to_string()) } else { ("%ta1", "9223372036854775807".to_string()) };
            let bn = bits_name(ty);
            writeln!(
                w,
                "    or.{bn} {t}, {}, 1;\n    and.{bn} {t}, {t}, {max};\n    {gs}{}.{} {}, {}, {t};",
                src(b, ty),
                if op == Bin::Div { "div" } else { "rem" },
                ty.name(),
                reg(d),
                src(a, ty)
            )
        }
        Ins::Bin { op, ty, d, a, b } => {
            let (name, tyname) = match op {
                Bin::Add => ("add", ty.name()),
                Bin::Sub => ("sub", ty.name()),
                Bin::MulLo => ("mul.lo", ty.name()),
                Bin::MulHi => ("mul.hi", ty.name()),
                Bin::Min => ("min", ty.name()),
                Bin::Max => ("max", ty.name()),
                Bin::And => ("and", bits_name(ty)),
                Bin::Or => ("or", bits_name(ty)),
                Bin::Xor => ("xor", bits_name(ty)),
                Bin::Shl => ("shl", bits_name(ty)),
                Bin::Shr => ("shr", ty.name()),
                Bin::Div | Bin::Rem => unreachable!(),
            };
            let bs = if matches!(op, Bin::Shl | Bin::Shr) { src(b, IntTy::U32) } else { src(b, ty) };
            writeln!(w, "    {gs}{name}.{tyname} {}, {}, {bs};", reg(d), src(a, ty))
        }
        Ins::Un { op, ty, d, a } => {
            let (name, tyname) = match op {
                Un::Not => ("not", bits_name(ty)),
                Un::Neg => ("neg", ty.name()),
                Un::Abs => ("abs", ty.name()),
                Un::Popc => ("popc", bits_name(ty)),
                Un::Clz => ("clz", bits_name(ty)),
                Un::Brev => ("brev", bits_name(ty)),
            };
            writeln!(w, "    {gs}{name}.{tyname} {}, {};", reg(d), src(a, ty))
        }
        Ins::Mad { hi, ty, d, a, b, c } => writeln!(
            w,
            "    {gs}mad.{}.{} {}, {}, {}, {};",
            if hi { "hi" } else { "lo" },
            ty.name(),
            reg(d),
            src(a, ty),
            src(b, ty),
            src(c, ty)
        ),
        Ins::Wide { signed, d, a, b, c } => {
            let t = if signed { IntTy::S32 } else { IntTy::U32 };
            match c {
                None => writeln!(w, "    {gs}mul.wide.{} {}, {}, {};", t.name(), reg(d), src(a, t), src(b, t)),
                Some(c) => {
                    let t64 = if signed { IntTy::S64 } else { IntTy::U64 };
                    writeln!(w, "    {gs}mad.wide.{} {}, {}, {}, {};", t.name(), reg(d), src(a, t), src(b, t), src(c, t64))
                }
            }
        }
        Ins::Setp { cmp, ty, p, a, b, combine } => match combine {
            None => writeln!(w, "    {gs}setp.{}.{} {}, {}, {};", cmp_name(cmp, ty), ty.name(), pred(p), src(a, ty), src(b, ty)),
            Some((op, q)) => writeln!(
                w,
                "    {gs}setp.{}.{}.{} {}, {}, {}, {}{};",
                cmp_name(cmp, ty),
                match op {
                    BoolOp::And => "and",
                    BoolOp::Or => "or",
                    BoolOp::Xor => "xor",
                },
                ty.name(),
                pred(p),
                src(a, ty),
                src(b, ty),
                if q.neg { "!" } else { "" },
                pred(q.p)
            ),
        },
        Ins::Selp { ty, d, a, b, p } => {
            writeln!(w, "    {gs}selp.{} {}, {}, {}, {};", ty.name(), reg(d), src(a, ty), src(b, ty), pred(p))
        }
        Ins::Cvt { to, from, d, a } => writeln!(w, "    {gs}cvt.{}.{} {}, {};", to.name(), from.name(), reg(d), reg(a)),
        Ins::Mov { ty, d, a } => writeln!(w, "    {gs}mov.{} {}, {};", bits_name(ty), reg(d), src(a, ty)),
        Ins::Bfe { ty, d, a, pos, len } => {
            writeln!(w, "    {gs}bfe.{} {}, {}, {}, {};", ty.name(), reg(d), src(a, ty), src(pos, IntTy::U32), src(len, IntTy::U32))
        }
        Ins::Bfi { ty, d, a, b, pos, len } => writeln!(
            w,
            "    {gs}bfi.{} {}, {}, {}, {}, {};",
            bits_name(ty),
            reg(d),
            src(a, ty),
            src(b, ty),
            src(pos, IntTy::U32),
            src(len, IntTy::U32)
        ),
        Ins::Prmt { d, a, b, c } => {
            let u = IntTy::U32;
            writeln!(w, "    {gs}prmt.b32 {}, {}, {}, {};", reg(d), src(a, u), src(b, u), src(c, u))
        }
        Ins::Shf { left, clamp, d, a, b, c } => {
            let u = IntTy::U32;
            writeln!(
                w,
                "    {gs}shf.{}.{}.b32 {}, {}, {}, {};",
                if left { "l" } else { "r" },
                if clamp { "clamp" } else { "wrap" },
                reg(d),
                src(a, u),
                src(b, u),
                src(c, u)
            )
        }
        Ins::F(ref f) => {
            super::fops::print(w, &gs, f);
            Ok(())
        }
        Ins::X(ref x) => {
            super::xops::print(w, &gs, x);
            Ok(())
        }
        Ins::H(ref h) => {
            super::hops::print(w, &gs, h);
            Ok(())
        }
        Ins::Ld { w: wd, d, addr } => {
            let a = print_addr(w, &addr, wd, block, generic_local);
            writeln!(w, "    {gs}ld{a}.{} {}, [{}];", wd.name(), reg(d), addr_operand(&addr, generic_local))
        }
        Ins::St { w: wd, addr, v } => {
            let a = print_addr(w, &addr, wd, block, generic_local);
            writeln!(w, "    {gs}st{a}.{} [{}], {};", wd.name(), addr_operand(&addr, generic_local), reg(v))
        }
    };
}

/// The address operand: the base register plus offset, or the computed address in `%ta0`/`%t0`.
fn addr_operand(a: &Addr, generic_local: bool) -> String {
    let thirty_two = matches!(a.mem, Mem::SharedRw | Mem::SharedRo(_)) && !a.generic;
    match (a.index, a.generic) {
        (None, false) => format!("{}+{}", base(a.mem), a.off),
        (None, true) if generic_local && a.mem == Mem::Local => format!("%bl+{}", a.off),
        _ if thirty_two => "%t0".into(),
        _ => "%ta0".into(),
    }
}

pub fn base(m: Mem) -> String {
    match m {
        Mem::Scratch => "%bg".into(),
        Mem::Table => "%bi".into(),
        Mem::SharedRw => "%bs".into(),
        Mem::SharedRo(k) => format!("%bo{k}"),
        Mem::Local => "%bl".into(),
        Mem::Frame => "%bf".into(),
    }
}

/// Emits the address computation; returns the state-space qualifier (`.global`; empty:
/// generic).
fn print_addr(w: &mut String, a: &Addr, wd: Width, block: u32, generic_local: bool) -> &'static str {
    let shared = matches!(a.mem, Mem::SharedRw | Mem::SharedRo(_));
    // `generic_local`: `%bl` is already a generic address, so local accesses are generic ones.
    let local_base_generic = generic_local && a.mem == Mem::Local;
    if a.index.is_none() && (!a.generic || local_base_generic) {
        return if local_base_generic { "" } else { a.mem.space() };
    }
    // The offset into %t0.
    match a.index {
        Some(r) => {
            let wb = wd.bytes();
            let _ = writeln!(
                w,
                "    and.b32 %t0, %r{r}, {};\n    shl.b32 %t0, %t0, {};",
                a.mem.bytes(block) / wb - 1,
                wb.trailing_zeros()
            );
        }
        None => {
            let _ = writeln!(w, "    mov.u32 %t0, {};", a.off);
        }
    }
    if shared {
        let _ = writeln!(w, "    add.s32 %t0, %t0, {};", base(a.mem));
        if !a.generic {
            return ".shared";
        }
        let _ = writeln!(w, "    cvt.u64.u32 %ta0, %t0;\n    cvta.shared.u64 %ta0, %ta0;");
        return "";
    }
    let _ = writeln!(w, "    cvt.u64.u32 %ta0, %t0;\n    add.s64 %ta0, %ta0, {};", base(a.mem));
    match (a.mem, a.generic) {
        _ if local_base_generic => "",
        (_, false) => a.mem.space(),
        (Mem::Local | Mem::Frame, true) => {
            let _ = writeln!(w, "    cvta.local.u64 %ta0, %ta0;");
            ""
        }
        // Global addresses are already generic addresses.
        _ => "",
    }
}
