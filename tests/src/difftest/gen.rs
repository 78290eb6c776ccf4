//! Random programs from a seed. Own small RNG (SplitMix64) so that a seed names the same
//! program on every machine and with every version of the dependencies.

use super::program::*;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
    /// A value that often sits at an edge (0, ±1, sign bit, all ones, small).
    pub fn value(&mut self) -> u64 {
        match self.below(8) {
            0 => self.pick(&[0, 1, 2, u64::MAX, u64::MAX - 1, 0x8000_0000, 0x7fff_ffff, 0xffff_ffff, 1 << 63, (1 << 63) - 1]),
            1 => self.below(64),
            2 => self.below(64).wrapping_neg(),
            3 => self.next_u64() & 0xffff_ffff,
            4 => (self.next_u64() as u32 as i32 as i64) as u64,
            _ => self.next_u64(),
        }
    }
}

/// Inputs of a launch: NIN words per thread, and the scratch buffer's initial words.
pub fn inputs(rng: &mut Rng, threads: usize) -> (Vec<u32>, Vec<u32>) {
    let mut input = Vec::with_capacity(threads * NIN);
    for _ in 0..threads * NIN {
        input.push(rng.value() as u32);
    }
    let scratch = (0..threads * NG).map(|_| rng.next_u64() as u32).collect();
    (input, scratch)
}

/// Limits of one program.
const MAX_STMTS: usize = 45;
const MAX_RETS: usize = 1;
/// Collectives per SIMT program (each costs lavapipe ~2 s of pipeline compilation: the warp
/// emulation reads all 32 lanes' words, see README "Differential testing").
const MAX_COLLS: usize = 4;

struct Gen<'a> {
    rng: &'a mut Rng,
    stmts: usize,
    rets: usize,
    published: usize,
    block: u32,
    /// Also generate collectives and uniform loops (issue 10); false draws exactly the random
    /// numbers it always did, so a seed names the same program as before.
    simt: bool,
    /// Loops at or below this nesting are uniform loops (`Stmt::ULoop`) around the current
    /// block: breaks and continues never reach them.
    floor: usize,
    colls: usize,
    /// Also generate floating-point instructions (`fops.rs`); false draws exactly the random
    /// numbers it always did.
    floats: bool,
    /// Also generate the integer families of `xops.rs`.
    xints: bool,
    /// Also generate the adversary's families of `hops.rs`.
    hx: bool,
    /// Also generate calls of device functions (`calls.rs`); `None` draws exactly the random
    /// numbers it always did.
    calls: Option<CallGen>,
}

/// The state of a call program's generation.
struct CallGen {
    sigs: Vec<super::calls::Sig>,
    recursive: Vec<bool>,
    /// The function whose body is being generated (`None`: the kernel).
    cur: Option<usize>,
    /// Call sites in the current body, and calls of itself among them.
    sites: usize,
    self_sites: usize,
    /// Functions holding collectives (`simt_call_program`): called only from the kernel's
    /// uniform points, directly and unguarded, before any exit; calls of them so far.
    collective: Vec<bool>,
    collective_sites: usize,
}

/// Call sites per body (the kernel, each function): a thread's calls multiply along a chain.
const MAX_CALL_SITES: usize = 3;
/// Statements per device function body.
const MAX_FUNC_STMTS: usize = 8;
/// Statements of a call program's kernel body (inlined calls multiply the code lavapipe
/// compiles: a program of 45 took it 2 minutes).
const MAX_CALL_KERNEL_STMTS: usize = 18;

/// A random program for a launch of `grid` × `block` threads.
pub fn program(rng: &mut Rng, grid: u32, block: u32) -> Program {
    let mut g = Gen { rng, stmts: 0, rets: 0, published: 0, block, simt: false, floor: 0, colls: 0, floats: false, xints: false, hx: false, calls: None };
    let body = g.block(0, 0, true);
    Program { body, grid, block, funcs: Vec::new() }
}

/// A random program with collectives (barriers, shfl, vote, activemask, redux, match) at
/// points every non-exited thread of the CTA reaches the same number of times: the top level
/// and the top level of uniform loops; per-thread control flow (branches, loops with per-thread
/// trip counts, early `ret` at the top level) runs between them.
pub fn simt_program(rng: &mut Rng, grid: u32, block: u32) -> Program {
    let mut g = Gen { rng, stmts: 0, rets: 0, published: 0, block, simt: true, floor: 0, colls: 0, floats: false, xints: false, hx: false, calls: None };
    let body = g.block(0, 0, true);
    Program { body, grid, block, funcs: Vec::new() }
}

/// A random program whose instructions are mostly floating point (`fops.rs`: f32/f64
/// arithmetic in every rounding direction, `.ftz`/`.sat`, min/max, abs/neg, sqrt/rcp/div,
/// ordered and unordered `setp`, `selp`, conversions to and from integers, f64, f16 and bf16),
/// mixed with the integer instructions, branches, loops and memory of [`program`].
pub fn float_program(rng: &mut Rng, grid: u32, block: u32) -> Program {
    let mut g = Gen { rng, stmts: 0, rets: 0, published: 0, block, simt: false, floor: 0, colls: 0, floats: true, xints: false, hx: false, calls: None };
    let body = g.block(0, 0, true);
    Program { body, grid, block, funcs: Vec::new() }
}

/// A random program with the integer families of `xops.rs` (16-bit arithmetic, carry chains,
/// lop3, bfind, fns, bmsk, szext, sad, mul24/mad24, dp4a/dp2a, add/sub.sat, testp, copysign)
/// mixed with the base instructions and control flow of [`program`].
pub fn xint_program(rng: &mut Rng, grid: u32, block: u32) -> Program {
    let mut g = Gen { rng, stmts: 0, rets: 0, published: 0, block, simt: false, floor: 0, colls: 0, floats: false, xints: true, hx: false, calls: None };
    let body = g.block(0, 0, true);
    Program { body, grid, block, funcs: Vec::new() }
}

/// A random program that calls device functions (`calls.rs`): 1–3 `.func`s with `.param` or
/// `.reg` formals of every width and pointers to the caller's memories, whose bodies are random
/// blocks (loops, early `ret` inside them, memory through the pointers), called directly or
/// through a per-thread function pointer, guarded or not, from the kernel's loops and branches
/// and from each other; recursive ones call themselves with a per-thread depth budget.
pub fn call_program(rng: &mut Rng, grid: u32, block: u32) -> Program {
    calls_program(rng, grid, block, false)
}

/// A call program ([`call_program`]) whose last non-recursive function holds collectives
/// (barriers, shfl, vote, activemask, redux, match at its top level, which every thread that
/// calls it reaches: it has no early `ret`) and is called from the kernel's uniform points
/// (its top level and uniform loops, unguarded, before any exit) of a SIMT program
/// ([`simt_program`]); the other functions are as in [`call_program`] and never call it.
/// ptxcross inlines such a function whatever the inlining budget (`lower/src/call.rs`).
pub fn simt_call_program(rng: &mut Rng, grid: u32, block: u32) -> Program {
    calls_program(rng, grid, block, true)
}

/// [`call_program`], or with `simt` [`simt_call_program`] (`false` draws exactly the random
/// numbers `call_program` always did).
fn calls_program(rng: &mut Rng, grid: u32, block: u32, simt: bool) -> Program {
    use super::calls;
    let n = 1 + rng.below(3) as usize;
    let sigs = calls::signatures(rng, n);
    let mut funcs: Vec<calls::Func> = sigs.iter().map(|s| calls::func(rng, s.clone())).collect();
    let holder = simt.then(|| (0..n).rev().find(|&k| !funcs[k].recursive).unwrap_or(n - 1));
    if let Some(h) = holder {
        funcs[h].recursive = false;
    }
    let recursive = funcs.iter().map(|f| f.recursive).collect();
    let collective = (0..n).map(|k| Some(k) == holder).collect();
    let cg = CallGen { sigs: sigs.clone(), recursive, cur: None, sites: 0, self_sites: 0, collective, collective_sites: 0 };
    let mut g = Gen { rng, stmts: 0, rets: 0, published: 0, block, simt: false, floor: 0, colls: 0, floats: false, xints: false, hx: false, calls: Some(cg) };
    for (k, f) in funcs.iter_mut().enumerate() {
        let cg = g.calls.as_mut().expect("calls");
        (cg.cur, cg.sites, cg.self_sites) = (Some(k), 0, 0);
        (g.stmts, g.rets) = (MAX_STMTS - MAX_FUNC_STMTS, 0);
        // The holder has no `ret` before its end: every thread that calls it reaches its
        // collectives.
        let holds = Some(k) == holder;
        if holds {
            (g.simt, g.rets) = (true, MAX_RETS);
        }
        let colls = g.colls;
        let mut body = g.block_in(0, 0, false, holds);
        body.extend(g.block_in(0, 0, false, holds));
        if holds && g.colls == colls {
            // At least one collective, at the end of its top level.
            let c = g.coll();
            body.push(Stmt::Coll(c));
        }
        g.simt = false;
        if f.recursive && g.calls.as_ref().expect("calls").self_sites == 0 {
            // Every recursive function calls itself at least once.
            let call = calls::call(g.rng, &sigs, k, None);
            body.push(Stmt::Call { g: g.opt_guard(), call });
        }
        f.body = body;
    }
    let cg = g.calls.as_mut().expect("calls");
    (cg.cur, cg.sites, cg.self_sites) = (None, 0, 0);
    (g.stmts, g.rets, g.simt, g.colls) = (MAX_STMTS - MAX_CALL_KERNEL_STMTS, 0, simt, 0);
    let mut body = g.block(0, 0, true);
    if simt {
        if g.calls.as_ref().expect("calls").collective_sites == 0 {
            // The kernel calls the holder at least once: first, before any exit.
            let call = g.collective_call();
            body.insert(0, call);
        }
    } else if g.calls.as_ref().expect("calls").sites == 0 {
        // The kernel calls at least once.
        let at = g.rng.below(body.len() as u64 + 1) as usize;
        let call = g.call_stmt();
        body.insert(at, call);
    }
    Program { body, grid, block, funcs }
}

/// A random program with the adversary's families of `hops.rs` mixed with the base
/// instructions, control flow and memory of [`program`].
pub fn hx_program(rng: &mut Rng, grid: u32, block: u32) -> Program {
    let mut g = Gen { rng, stmts: 0, rets: 0, published: 0, block, simt: false, floor: 0, colls: 0, floats: false, xints: false, hx: true, calls: None };
    let body = g.block(0, 0, true);
    Program { body, grid, block, funcs: Vec::new() }
}

impl Gen<'_> {
    fn guard(&mut self) -> Guard {
        Guard { p: self.rng.below(NP as u64) as u8, neg: self.rng.chance(30) }
    }
    fn opt_guard(&mut self) -> Option<Guard> {
        self.rng.chance(15).then(|| self.guard())
    }
    fn r(&mut self) -> u8 {
        self.rng.below(NR as u64) as u8
    }
    fn d(&mut self) -> u8 {
        self.rng.below(ND as u64) as u8
    }
    fn reg(&mut self, ty: IntTy) -> Reg {
        if ty.bits() == 32 {
            Reg::R(self.r())
        } else {
            Reg::D(self.d())
        }
    }
    fn src(&mut self, ty: IntTy) -> Src {
        if self.rng.chance(25) {
            Src::Imm(self.rng.value() & ty.mask())
        } else {
            Src::Reg(self.reg(ty))
        }
    }
    fn ty(&mut self) -> IntTy {
        self.rng.pick(&[IntTy::U32, IntTy::S32, IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64])
    }
    fn trip(&mut self) -> Trip {
        Trip { reg: self.r(), mask: self.rng.pick(&[1, 3, 7]), add: self.rng.below(3) as u32 }
    }

    /// An address of a memory the current body reaches (`None`: a device function whose
    /// pointers reach none that fits).
    fn addr(&mut self, w: Width, write: bool) -> Option<Addr> {
        let mems: &[Mem] = if write {
            &[Mem::Scratch, Mem::SharedRw, Mem::Local]
        } else if self.published > 0 {
            &[Mem::Scratch, Mem::SharedRw, Mem::Local, Mem::Table, Mem::SharedRo(0), Mem::SharedRo(1)]
        } else {
            &[Mem::Scratch, Mem::SharedRw, Mem::Local, Mem::Table]
        };
        let in_func = self.calls.as_ref().and_then(|c| c.cur.map(|k| c.sigs[k].ptrs.clone()));
        let mut mem = match in_func {
            Some(ptrs) => {
                let ok: Vec<Mem> = ptrs.into_iter().chain([Mem::Frame]).filter(|m| !write || m.writable()).collect();
                if ok.is_empty() {
                    return None;
                }
                self.rng.pick(&ok)
            }
            None => self.rng.pick(mems),
        };
        if let Mem::SharedRo(k) = mem {
            mem = Mem::SharedRo(k.min(self.published as u8 - 1));
        }
        let size = mem.bytes(self.block);
        let wb = w.bytes();
        let index = self.rng.chance(50).then(|| self.r());
        let off = self.rng.below((size / wb) as u64) as u32 * wb;
        Some(Addr { mem, index, off, generic: self.rng.chance(20) })
    }

    fn ins(&mut self) -> Ins {
        match self.rng.below(22) {
            20 => {
                let u = IntTy::U32;
                // Immediates stay within 0..255: NVIDIA's PTX JIT refuses larger ones.
                let field = |g: &mut Self| if g.rng.chance(50) { Src::Imm(g.rng.below(70)) } else { Src::Reg(g.reg(u)) };
                let (pos, len) = (field(self), field(self));
                if self.rng.chance(50) {
                    let ty = self.ty();
                    Ins::Bfe { ty, d: self.reg(ty), a: self.src(ty), pos, len }
                } else {
                    let ty = self.rng.pick(&[IntTy::U32, IntTy::U64]);
                    Ins::Bfi { ty, d: self.reg(ty), a: self.src(ty), b: self.src(ty), pos, len }
                }
            }
            21 => {
                let u = IntTy::U32;
                if self.rng.chance(50) {
                    Ins::Prmt { d: Reg::R(self.r()), a: self.src(u), b: self.src(u), c: self.src(u) }
                } else {
                    let c = if self.rng.chance(50) { Src::Imm(self.rng.below(40)) } else { self.src(u) };
                    Ins::Shf { left: self.rng.chance(50), clamp: self.rng.chance(50), d: Reg::R(self.r()), a: self.src(u), b: self.src(u), c }
                }
            }
            0..=7 => {
                let ty = self.ty();
                let op = self.rng.pick(&[
                    Bin::Add,
                    Bin::Sub,
                    Bin::MulLo,
                    Bin::MulHi,
                    Bin::Min,
                    Bin::Max,
                    Bin::And,
                    Bin::Or,
                    Bin::Xor,
                    Bin::Shl,
                    Bin::Shr,
                    Bin::Div,
                    Bin::Rem,
                ]);
                let b = if matches!(op, Bin::Shl | Bin::Shr) {
                    if self.rng.chance(50) {
                        Src::Imm(self.rng.below(70))
                    } else {
                        Src::Reg(Reg::R(self.r()))
                    }
                } else {
                    self.src(ty)
                };
                Ins::Bin { op, ty, d: self.reg(ty), a: self.src(ty), b }
            }
            8 => {
                let ty = self.ty();
                let op = self.rng.pick(&[Un::Not, Un::Neg, Un::Abs, Un::Popc, Un::Clz, Un::Brev]);
                let ty = match (op, ty) {
                    (Un::Neg | Un::Abs, IntTy::U32) => IntTy::S32,
                    (Un::Neg | Un::Abs, IntTy::U64) => IntTy::S64,
                    _ => ty,
                };
                let d = if matches!(op, Un::Popc | Un::Clz) { Reg::R(self.r()) } else { self.reg(ty) };
                Ins::Un { op, ty, d, a: Src::Reg(self.reg(ty)) }
            }
            9 => {
                let ty = self.ty();
                Ins::Mad { hi: self.rng.chance(30), ty, d: self.reg(ty), a: self.src(ty), b: self.src(ty), c: self.src(ty) }
            }
            10 => {
                let signed = self.rng.chance(50);
                let t = if signed { IntTy::S32 } else { IntTy::U32 };
                let c = self.rng.chance(50).then(|| self.src(IntTy::U64));
                Ins::Wide { signed, d: Reg::D(self.d()), a: self.src(t), b: self.src(t), c }
            }
            11 | 12 => {
                let ty = self.ty();
                let cmp = self.rng.pick(&[Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge]);
                let combine = self.rng.chance(30).then(|| (self.rng.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]), self.guard()));
                Ins::Setp { cmp, ty, p: self.rng.below(NP as u64) as u8, a: self.src(ty), b: self.src(ty), combine }
            }
            13 => {
                let ty = self.ty();
                Ins::Selp { ty, d: self.reg(ty), a: self.src(ty), b: self.src(ty), p: self.rng.below(NP as u64) as u8 }
            }
            14 => {
                let (to, from) = if self.rng.chance(50) {
                    (self.rng.pick(&[IntTy::U64, IntTy::S64]), self.rng.pick(&[IntTy::U32, IntTy::S32]))
                } else {
                    (self.rng.pick(&[IntTy::U32, IntTy::S32]), self.rng.pick(&[IntTy::U64, IntTy::S64]))
                };
                Ins::Cvt { to, from, d: self.reg(to), a: self.reg(from) }
            }
            15 => {
                let ty = self.ty();
                Ins::Mov { ty, d: self.reg(ty), a: self.src(ty) }
            }
            16..=17 => {
                let w = self.rng.pick(&[Width::U8, Width::S8, Width::U16, Width::S16, Width::B32, Width::B32, Width::B64]);
                let d = if w == Width::B64 { Reg::D(self.d()) } else { Reg::R(self.r()) };
                match self.addr(w, false) {
                    Some(addr) => Ins::Ld { w, d, addr },
                    None => Ins::Mov { ty: IntTy::U32, d: Reg::R(self.r()), a: Src::Imm(self.rng.value()) },
                }
            }
            _ => {
                let w = self.rng.pick(&[Width::U8, Width::U16, Width::B32, Width::B32, Width::B64]);
                let v = if w == Width::B64 { Reg::D(self.d()) } else { Reg::R(self.r()) };
                match self.addr(w, true) {
                    Some(addr) => Ins::St { w, addr, v },
                    None => Ins::Mov { ty: IntTy::U32, d: Reg::R(self.r()), a: Src::Imm(self.rng.value()) },
                }
            }
        }
    }

    /// A call from the current body: of a function above it, or of itself when it is
    /// recursive; indirect (a per-thread choice between two functions of the same `.param`
    /// signature) a third of the time it can be.
    fn call_stmt(&mut self) -> Stmt {
        let cg = self.calls.as_mut().expect("a call program");
        cg.sites += 1;
        let n = cg.sigs.len();
        let lo = cg.cur.map_or(0, |k| k + 1);
        let mut cands: Vec<usize> = (lo..n).filter(|&f| !cg.collective[f]).collect();
        if let Some(k) = cg.cur.filter(|&k| cg.recursive[k] && cg.self_sites < 2) {
            cands.push(k);
        }
        if cands.is_empty() {
            return Stmt::Ins(None, Ins::Mov { ty: IntTy::U32, d: Reg::R(self.r()), a: Src::Imm(self.rng.value()) });
        }
        let f = self.rng.pick(&cands);
        let cg = self.calls.as_mut().expect("a call program");
        let sigs = cg.sigs.clone();
        let alt = if Some(f) == cg.cur {
            cg.self_sites += 1;
            None
        } else if !sigs[f].reg_abi && self.rng.chance(35) {
            let collective = &self.calls.as_ref().expect("a call program").collective;
            let same: Vec<usize> = (lo..n).filter(|&j| j != f && sigs[j] == sigs[f] && !collective[j]).collect();
            let alt = if same.is_empty() { f } else { self.rng.pick(&same) };
            Some((alt, self.rng.below(NP as u64) as u8))
        } else {
            None
        };
        let call = super::calls::call(self.rng, &sigs, f, alt);
        let g = self.rng.chance(30).then(|| self.guard());
        Stmt::Call { g, call }
    }

    /// Whether the body being generated is a function holding collectives.
    fn in_collective_func(&self) -> bool {
        self.calls.as_ref().is_some_and(|c| c.cur.is_some_and(|k| c.collective[k]))
    }

    /// A direct, unguarded call of a function holding collectives (`simt_call_program`), for a
    /// point every non-exited thread of the CTA reaches, before any exit.
    fn collective_call(&mut self) -> Stmt {
        let cg = self.calls.as_mut().expect("a call program");
        cg.collective_sites += 1;
        let fs: Vec<usize> = (0..cg.sigs.len()).filter(|&f| cg.collective[f]).collect();
        let sigs = cg.sigs.clone();
        let f = self.rng.pick(&fs);
        Stmt::Call { g: None, call: super::calls::call(self.rng, &sigs, f, None) }
    }

    /// A block at loop nesting `loops`, control nesting `depth`; `top`: the program's top level.
    fn block(&mut self, loops: usize, depth: usize, top: bool) -> Vec<Stmt> {
        self.block_in(loops, depth, top, top)
    }

    /// A collective for a point every non-exited thread of the CTA reaches.
    fn coll(&mut self) -> Coll {
        let r = |g: &mut Self| g.rng.below(NR as u64) as u8;
        loop {
            return match self.rng.below(20) {
                0..=2 => Coll::Bar,
                // A source lane that has exited is undefined: no shfl after an early `ret` (a
                // function holding collectives has none, and is called before any).
                3..=8 if self.rets == 0 || self.in_collective_func() => {
                    let mode = self.rng.pick(&[ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx]);
                    let (b, c) = shfl_lanes(self.rng, self.block, mode);
                    let p = self.rng.chance(50).then(|| self.rng.below(NP as u64) as u8);
                    Coll::Shfl { mode, d: r(self), p, a: r(self), b, c, m: Mask::Full }
                }
                9..=12 => {
                    let mode = self.rng.pick(&[VoteMode::All, VoteMode::Any, VoteMode::Uni, VoteMode::Ballot]);
                    let d = if mode == VoteMode::Ballot { r(self) } else { self.rng.below(NP as u64) as u8 };
                    Coll::Vote { mode, d, a: Guard { p: self.rng.below(NP as u64) as u8, neg: self.rng.chance(30) }, m: Mask::Full }
                }
                13..=14 => Coll::Activemask { d: r(self) },
                15..=17 => {
                    let op = self.rng.pick(&[ReduxOp::Add, ReduxOp::Min, ReduxOp::Max, ReduxOp::And, ReduxOp::Or, ReduxOp::Xor]);
                    Coll::Redux { op, signed: self.rng.chance(50), d: r(self), a: r(self), m: Mask::Full }
                }
                18..=19 => Coll::Match { d: r(self), a: r(self), m: Mask::Full },
                _ => continue,
            };
        }
    }

    /// As [`Gen::block`]; `uniform`: every non-exited thread runs this block's top level the
    /// same number of times (collectives may go here).
    fn block_in(&mut self, loops: usize, depth: usize, top: bool, uniform: bool) -> Vec<Stmt> {
        let len = if top { 6 + self.rng.below(12) } else { 1 + self.rng.below(6) };
        let mut out = Vec::new();
        for _ in 0..len {
            if self.stmts >= MAX_STMTS {
                break;
            }
            let in_func = self.calls.as_ref().is_some_and(|c| c.cur.is_some());
            self.stmts += 1;
            let compound = depth < 3;
            if self.simt && uniform && self.colls < MAX_COLLS && self.rng.chance(35) {
                let s = match self.rng.below(10) {
                    0..=1 if compound && loops < MAX_DEPTH - 1 && !in_func => {
                        let (word, mask) = (self.rng.below((TABLE_BYTES / 4) as u64) as u8, self.rng.pick(&[1, 3]));
                        let floor = std::mem::replace(&mut self.floor, loops + 1);
                        let body = self.block_in(loops + 1, depth + 1, false, true);
                        self.floor = floor;
                        Stmt::ULoop { word, mask, body }
                    }
                    // Early exits of some threads before later collectives (exited threads
                    // do not take part in them); never inside a uniform loop.
                    2 if top && self.rets < MAX_RETS => {
                        self.rets += 1;
                        Stmt::Ret { g: self.guard() }
                    }
                    3..=4 if !in_func && self.rets == 0 && self.calls.as_ref().is_some_and(|c| c.collective.contains(&true)) => {
                        self.collective_call()
                    }
                    _ => {
                        self.colls += 1;
                        Stmt::Coll(self.coll())
                    }
                };
                out.push(s);
                continue;
            }
            let s = match self.rng.below(100) {
                0..=9 if compound => {
                    let g = self.guard();
                    let then_ = self.block(loops, depth + 1, false);
                    let else_ = if self.rng.chance(40) { self.block(loops, depth + 1, false) } else { vec![] };
                    Stmt::If { g, then_, else_ }
                }
                10..=19 if compound && loops < MAX_DEPTH - 1 => {
                    let trip = self.trip();
                    let body = self.block(loops + 1, depth + 1, false);
                    Stmt::Loop { do_while: self.rng.chance(70), trip, body }
                }
                20..=23 if compound && loops < MAX_DEPTH - 1 => {
                    let (g, trip) = (self.guard(), self.trip());
                    let a = self.block(loops + 1, depth + 1, false);
                    let b = self.block(loops + 1, depth + 1, false);
                    Stmt::Irreducible { g, trip, a, b }
                }
                24..=29 if loops > self.floor => Stmt::Break { g: self.guard(), up: self.rng.below((loops - self.floor) as u64) as u8 },
                30..=31 if loops > self.floor => Stmt::Continue { g: self.guard() },
                32..=33 if self.rets < MAX_RETS && self.floor == 0 => {
                    self.rets += 1;
                    Stmt::Ret { g: self.guard() }
                }
                // A register set to the same constant in both arms of a branch, then selected
                // against a constant: the driver knows the phi of equal constants, and lavapipe
                // read `select(c, 1.0, -0.0)` as a bool-to-float conversion (+0 for −0;
                // `driver_workarounds`, `lower/src/misread_constants.rs`).
                37..=38 if compound => {
                    let wide = self.rng.chance(30);
                    let (ty, d) = if wide { (IntTy::U64, Reg::D(self.d())) } else { (IntTy::U32, Reg::R(self.r())) };
                    let set: [u64; 4] = if wide {
                        [1 << 63, 0xbff0_0000_0000_0000, 0x3ff0_0000_0000_0000, 0]
                    } else {
                        [0x8000_0000, 0xbf80_0000, 0x3f80_0000, 0]
                    };
                    let mov = Stmt::Ins(None, Ins::Mov { ty, d, a: Src::Imm(self.rng.pick(&set)) });
                    let g = self.guard();
                    if self.rng.chance(40) {
                        // A different constant in the other arm, the register read as it is:
                        // the driver turns the phi into a select of the two (−1.0 in one arm,
                        // +0 in the other, gave −0).
                        let mov2 = Stmt::Ins(None, Ins::Mov { ty, d, a: Src::Imm(self.rng.pick(&set)) });
                        Stmt::If { g, then_: vec![mov], else_: vec![mov2] }
                    } else {
                        out.push(Stmt::If { g, then_: vec![mov.clone()], else_: vec![mov] });
                        let other = Src::Imm(self.rng.pick(&set));
                        let (a, b) = if self.rng.chance(50) { (other, Src::Reg(d)) } else { (Src::Reg(d), other) };
                        let dst = self.reg(ty);
                        Stmt::Ins(None, Ins::Selp { ty, d: dst, a, b, p: self.rng.below(NP as u64) as u8 })
                    }
                }
                // A select of two constants that a multiply and an add by constants turn into
                // one of the signed-zero/one pairs: the driver moves `imul`/`iadd` by a constant
                // into a select with a constant operand, then reads the result as a bool-to-
                // float conversion (`driver_workarounds::misread_selects_made_by_the_driver`).
                39 if compound => {
                    let wide = self.rng.chance(30);
                    let (ty, d) = if wide { (IntTy::U64, Reg::D(self.d())) } else { (IntTy::U32, Reg::R(self.r())) };
                    let pairs: [(u64, u64); 4] = if wide {
                        [(0x3ff0_0000_0000_0000, 1 << 63), (0xbff0_0000_0000_0000, 0), (1 << 63, 0x3ff0_0000_0000_0000), (0, 0xbff0_0000_0000_0000)]
                    } else {
                        [(0x3f80_0000, 0x8000_0000), (0xbf80_0000, 0), (0x8000_0000, 0x3f80_0000), (0, 0xbf80_0000)]
                    };
                    let (x, y) = self.rng.pick(&pairs);
                    let mask = if wide { u64::MAX } else { u32::MAX as u64 };
                    // m odd, so it has an inverse mod 2^n (Newton's iteration); k·m + c = target.
                    let m = (self.rng.below(1 << 20) << 1 | 1) & mask;
                    let mut inv = m;
                    for _ in 0..6 {
                        inv = inv.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inv)));
                    }
                    let c = self.rng.below(1 << 32) & mask;
                    let k = |t: u64| t.wrapping_sub(c).wrapping_mul(inv) & mask;
                    let p = self.rng.below(NP as u64) as u8;
                    out.push(Stmt::Ins(None, Ins::Selp { ty, d, a: Src::Imm(k(x)), b: Src::Imm(k(y)), p }));
                    out.push(Stmt::Ins(None, Ins::Bin { op: Bin::MulLo, ty, d, a: Src::Reg(d), b: Src::Imm(m) }));
                    Stmt::Ins(None, Ins::Bin { op: Bin::Add, ty, d, a: Src::Reg(d), b: Src::Imm(c) })
                }
                34..=36 if top && self.rets == 0 && self.published < NRO && !in_func => {
                    self.published += 1;
                    Stmt::Publish { region: self.published as u8 - 1, v: self.r() }
                }
                40..=52 if self.calls.as_ref().is_some_and(|c| c.sites < MAX_CALL_SITES) => self.call_stmt(),
                _ => {
                    // hx programs predicate more often (lavapipe's LLVM 15 miscompiled predicated
                    // in-place bfi.b64, copysign and szext; hops.rs makes in-place updates common).
                    let g = if self.hx { self.rng.chance(35).then(|| self.guard()) } else { self.opt_guard() };
                    if self.floats && self.rng.chance(65) {
                        Stmt::Ins(g, Ins::F(super::fops::gen(self.rng)))
                    } else if self.hx && self.rng.chance(65) {
                        Stmt::Ins(g, Ins::H(super::hops::gen(self.rng)))
                    } else if self.xints && self.rng.chance(60) {
                        Stmt::Ins(g, Ins::X(super::xops::gen(self.rng)))
                    } else {
                        Stmt::Ins(g, self.ins())
                    }
                }
            };
            out.push(s);
        }
        out
    }
}

/// The lane operand `b` and the clamp and segment mask `c` of a `shfl.sync` that every lane of
/// its warp runs: any source lane the warp has (§9.7.8.6).
pub(super) fn shfl_lanes(rng: &mut Rng, block: u32, mode: ShflMode) -> (Src, u32) {
    let b = if rng.chance(50) { Src::Imm(rng.below(40)) } else { Src::Reg(Reg::R(rng.below(NR as u64) as u8)) };
    let partial = block % 32;
    let c = if mode == ShflMode::Up || partial == 0 || rng.chance(10) {
        let seg = rng.pick(&[0u32, 0, 0x10, 0x18, 0x1c, 0x1e, 0x1f]);
        let any = rng.below(32) as u32;
        let clamp = if mode == ShflMode::Up { rng.pick(&[0, 0, 1, 5]) } else { rng.pick(&[31, 31, 7, 15, any]) };
        seg << 8 | clamp
    } else {
        // Clamped to the lanes the partial last warp has (else lanes source missing ones:
        // undefined).
        partial - 1
    };
    (b, c)
}

/// Per-thread code without collectives, barriers or exits, at most `stmts` statements (the
/// meeting family, `meet.rs`, puts its collectives around it).
pub(super) fn filler(rng: &mut Rng, block: u32, stmts: usize) -> Vec<Stmt> {
    let mut g = Gen {
        rng,
        stmts: MAX_STMTS.saturating_sub(stmts),
        rets: MAX_RETS,
        published: 0,
        block,
        simt: false,
        floor: 0,
        colls: 0,
        floats: false,
        xints: false,
        hx: false,
        calls: None,
    };
    g.block(0, 2, false)
}
